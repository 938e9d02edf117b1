"""The runner's protocol as a sans-IO machine: one node's links to the other nodes of a table.

A :class:`Link` wraps this node's :class:`~p2p8s.table.Table` and decides what a runner
does between the table and the network (protocol/table.md, "The runner's part"): what
each peer is owed again after a drop (``sync``, resend), what a restarted peer gets (the
``log``), what each peer acknowledged (:mod:`~p2p8s.table.acks`: the rest is resent,
a payload left unacknowledged too long remakes the connection), when its own table is
void and must be rebuilt from a peer's log, who dials
whom, which connection of a node is the live one (the newest: an older one is dropped
at once, nothing counted from it); with :mod:`~p2p8s.table.relay` (what a lost node's
peers relay to each other), :mod:`~p2p8s.table.freeze` (a process that did not run
holds its output), :mod:`~p2p8s.table.linkwatch` with :mod:`~p2p8s.table.stall` (a turn
another node does not move, this table holding its moves, a payload left unacknowledged)
and :mod:`~p2p8s.table.outcome` (the
``--rounds`` cut-off, when the runner stops or the match cannot go on). Network events
and ``now`` go in (:meth:`~Link.connected`, :meth:`~Link.received`, :meth:`~Link.lost`,
:meth:`~Link.clock`, :meth:`~Link.handle_timer`), typed records of
:mod:`~p2p8s.table.linkout` come out, in the order the adapter carries them out, and
:meth:`~Link.get_timer` says when to call again (aioquic-style). Connections are
numbers the adapter gives. After :attr:`Link.failure` or a ``Rebuild`` every input is
ignored; after :attr:`Link.done` a link whose match is over still answers the nodes it
:attr:`~Link.owed` (they come back and are given its log).
"""

from __future__ import annotations

from collections.abc import Sequence

from p2p8s.engine import Action
from p2p8s.errors import IllegalAction, MalformedInput, Note, RemoteError
from p2p8s.table import events as tev
from p2p8s.table import linkout as lo
from p2p8s.table.actions import LEAVE, OWNKEY, RESYNC, decode_ownkey, encode_records
from p2p8s.table.core import Outgoing, Output
from p2p8s.table.freeze import ASLEEP_MAX_S, Awake, Waiting
from p2p8s.table.linkout import LinkCode, TableFailed, note
from p2p8s.table.linkwatch import LinkWatch
from p2p8s.table.logverify import records_from_frames
from p2p8s.table.sync import (
    ACK,
    LOG_PART,
    RELAY,
    RUNNER_KINDS,
    SYNC,
    Ack,
    LogAnswer,
    Sync,
    round_of,
)
from p2p8s.wire import Farewell, Game


class Link(LinkWatch):
    """The behaviour of this node's links (see :class:`~p2p8s.table.linkstate.LinkState`
    for the arguments)."""

    def get_timer(self) -> float | None:
        """When to call :meth:`handle_timer` (the loop's clock): the table's timer; while
        asleep after a freeze, the end of the settling time, then the end of the wait
        for the peers lost meanwhile."""
        if self.stopped:
            return None
        if self.freeze.asleep:
            return self.freeze.get_timer()
        times = [t for t in (self.table.get_timer(), self.watch.timer(self._stall()),
                             self.outcome.left_timer(), *self.acks.timers(self._live()))
                 if t is not None]
        return min(times, default=None)

    # --- inputs --------------------------------------------------------------------------

    def start(self, now: float) -> list[lo.Out]:
        """Begin: start the table, or — restored — count the peers not reached as lost
        (dialled) and show the restored table's first events."""
        if not self.restored:
            self._process(self.table.start(now))
            return self._take()
        self.fresh = dict(self.peers)
        self.restart_to = set(self.others) - set(self.fresh)
        self._queue_own(self.restart_to)
        for seat in self.others:
            if seat not in self.peers:  # not reachable now
                self.away.add(seat)
                self._process(self.table.peer_lost(seat, now))
                self._dial(seat)
        self._restored_events(now)
        return self._take()

    def _queue_own(self, seats: set[int]) -> None:
        """Restored: queue for each peer of ``seats`` (not reached at the restore) this
        node's own broadcasts of the current round in the log it was rebuilt from, first
        — sent while that peer's connection was down, they may never have reached it —
        so the ``restarted`` sync resends them (the peer drops the copies it has)."""
        number = self.table.round_number
        own = [Outgoing(to=None, payload=payload) for _, payload in records_from_frames(
            self.config, self.restored_frames, me=self.me, signer=self.me)
               if number and round_of(payload) == number]
        self.restored_frames = ()
        for seat in seats:
            for msg in own:
                self.acks.posted[seat].post(msg)

    def clock(self, now: float, waited_s: float | None = None) -> list[lo.Out]:
        """The loop read its clock: ``now``, having waited ``waited_s`` since the last read
        (None: the first read). A process found frozen may have been declared lost and
        its seats taken over meanwhile, while its table knows nothing of it (and its
        timers are all due at once): it is then :attr:`asleep` until it knows."""
        gap = self.freeze.clock(now, waited_s)
        if gap is None or self.done is not None or self.stopped:
            if gap is not None:
                self.freeze.wake()
            return []
        self.counts["frozen"] = self.counts.get("frozen", 0) + 1
        self._show(note(LinkCode.FROZEN, seconds=gap))
        return self._take()

    def handle_timer(self, now: float) -> list[lo.Out]:
        """The time of :meth:`get_timer` has come (or passed)."""
        if self.stopped:
            return []
        if self.freeze.asleep:
            self._asleep_check(now)
            if self.freeze.asleep:
                return self._take()  # no timer, no move while its seat may be another's
        timer = self.table.get_timer()
        if timer is not None and timer <= now:
            self._process(self.table.handle_timer(now))
        self._check_stall(now)
        self._check_held(now)
        self._check_gap(now)
        for seat in self.watch.due_back(now):
            self._peer_back(seat, now)
        self._out.extend(self.acks.acks(self._live(), self.got, now=now))
        self._check_unacked(now)
        self.outcome.check_left(self.away, now)
        return self._take()

    def connected(self, seat: int, conn: lo.Conn, now: float) -> list[lo.Out]:
        """A roster member's node (:meth:`member`) finished the handshake after the deal,
        on a connection the mesh does not use yet: start the ``sync``."""
        if self.stopped or not self.member(seat) or self.peers.get(seat) == conn.id:
            return []
        self.conns[conn.id] = conn
        # the newest connection of a node replaces any other at once: nothing is written
        # to the old one again (what it carried unacknowledged is resent after the sync)
        for old in (self.peers.pop(seat, None), self.pending.get(seat)):
            if old is not None and old != conn.id:
                self._emit(lo.Drop(seat=seat, conn=old))
        self.pending[seat] = conn.id
        if seat in self.answers:
            self._ask_log_again(seat)
        if self.freeze.asleep:
            self.freeze.unsynced[seat] = conn.id  # its sync first: was it taken over?
        else:
            self._send_sync(seat, conn.id)
        self._after_input(now)
        return self._take()

    def received(self, seat: int | None, conn: int, body: Game, *, frame: bytes,
                 digest: bytes, now: float) -> list[lo.Out]:
        """A game envelope from ``seat``'s node on ``conn`` (``frame``: its signed bytes,
        ``digest`` its hash): a runner payload, or a game payload for the table."""
        if self.stopped:
            return []
        if seat is None or seat not in self.got or (body.to is not None and body.to != self.me):
            self._show(note(LinkCode.MISADDRESSED, seat=seat, to=body.to))
            return self._take()
        kind = body.payload[0] if body.payload else 0
        if kind in RUNNER_KINDS:
            try:
                self._runner_payload(conn, seat, kind, body.payload[1:], now)
            except (RemoteError, MalformedInput) as exc:
                self._show(note(LinkCode.PEER_FAULT, seat=seat, error=exc))
                self._fail(TableFailed(LinkCode.INVALID_DATA, seat=seat,
                                       name=self._name(seat), error=exc))
        elif self.peers.get(seat) != conn:
            # a connection replaced (or not synced yet): its sender resends on the new
            # one what this node's ``sync`` said it lacks, so this copy is not counted
            self.counts["stale"] = self.counts.get("stale", 0) + 1
        else:
            self.received_count += 1
            if kind == LEAVE and seat not in self.gone_for_good:
                self.gone_for_good.append(seat)
                self.away.add(seat)
            self._take_game(seat, frame, body, now, head=digest)
            self._maybe_back(seat, now)
        self._after_input(now)
        return self._take()

    def lost(self, seat: int | None, conn: int, reason: Note, now: float, *,
             error: RemoteError | None = None) -> list[lo.Out]:
        """The connection ``conn`` of ``seat``'s node ended (``reason``: the peer's ``bye``,
        a :class:`~p2p8s.wire.Farewell`, or how it ended; ``error``: it sent invalid data)."""
        if self.stopped or seat is None or seat not in self.got:
            return []  # not a seated player (a newcomer refused after the deal)
        if self.pending.get(seat) == conn:
            del self.pending[seat]  # lost again before its sync: keep trying
            if seat in self.away or seat in self.peers or self.done is not None:
                self._dial(seat)
                return self._take()
            # it replaced the connection in use: the node is lost as that one would be
        elif self.peers.get(seat) != conn:
            return []  # an old connection of that seat
        if reason.code is Farewell.DONE:
            if self.done is None or seat in self.owed:  # (done here and owing it nothing,
                # as at every end: both finished, nothing to say)
                self._emit(lo.PeerGone(seat=seat, why=note(LinkCode.GONE_FINISHED)))
            last = self.last_round.get(seat, 0)
            if self._taken(seat):
                # its seats are played by another node this round: its node sends
                # nothing of this round, and the round ends without it
                last = max(last, self.table.round_number)
            self.outcome.peer_finished(seat, last_round=last)
            self.outcome.check_left(self.away, now)
            return self._take()
        if self.done is not None:
            unacked = bool(self.acks.posted[seat].unacked)
            if seat in self.telling and not unacked and seat not in self.given_log:
                # back after the end and given what it missed, it acknowledged all of
                # it: it lacks nothing of this node's, and its bye was lost with the
                # connection (else the linger waits for it to the end, for nothing)
                self.telling.discard(seat)
            if (unacked or seat in self.telling) and seat not in self.gone_for_good:
                # it lacks what this node sent (its last payloads of the rounds played),
                # or may lack the log it was being sent: owed, so waited for (said) and
                # dialled, and resent what it lacks (or given the log) when back
                if seat in self.telling:
                    self._emit(lo.PeerGone(seat=seat, why=note(LinkCode.GONE_LOST,
                                                               reason=reason)))
                self.away.add(seat)
                self.expect.pop(seat, None)
                self._dial(seat)
            return self._take()
        if error is not None:
            self._fail(TableFailed(LinkCode.DISCONNECTED, seat=seat, name=self._name(seat),
                                   error=error))
            return self._take()
        if seat in self.gone_for_good:
            return []  # it said so (leave); its bye follows
        why = (note(LinkCode.GONE_LEFT) if reason.code is Farewell.LEFT
               else note(LinkCode.GONE_LOST, reason=reason))
        self._emit(lo.PeerGone(seat=seat, why=why))
        if self.freeze.asleep:
            # this node was the one gone (frozen): the peer most likely closed the
            # connection because of that; its table is not told (_asleep_check)
            self.away.add(seat)
            self.expect.pop(seat, None)
            self.freeze.lost.add(seat)
            self._dial(seat)
            self._after_input(now)
            return self._take()
        self._lose_peer(seat, now)
        self._check_unacked(now)
        self.outcome.check_left(self.away, now)
        return self._take()

    def _lose_peer(self, seat: int, now: float) -> None:
        """``seat``'s node is lost (its connection ended, or its turn stalled): relay what
        it sent, tell the table (its seats are taken over, or the game waits), dial."""
        if self.come_back is not None and seat not in self.away:
            self._show(note(LinkCode.COME_BACK, seat=seat, command=self.come_back))
        self.away.add(seat)
        self.expect.pop(seat, None)
        self._relay(seat)
        self._take_relayed(seat, now)
        self._process(self.table.peer_lost(seat, now))
        self._dial(seat)
        self._check_alone()

    def _check_alone(self) -> None:
        """Tell the player once when this node reaches no other node (it keeps trying)."""
        reachable = [s for s in self.others
                     if s not in self.gone_for_good and s not in self.outcome.finished]
        if (reachable and all(s in self.away for s in reachable) and not self.alone
                and self.done is None and not self.stopped):
            self.alone = True
            self._show(note(LinkCode.NOBODY_REACHABLE))

    # --- acknowledgements (protocol/table.md, "Acks") --------------------------------------

    def _on_ack(self, conn: int, seat: int, ack: Ack) -> None:
        """``seat``'s node holds ``ack.received`` of the payloads posted for it. One on a
        connection not in use, one already had, one counting more than was posted
        change nothing (counted)."""
        kind = self.acks.take(seat, ack.received) if self.peers.get(seat) == conn else "stale"
        self.counts[f"ack_{kind}"] = self.counts.get(f"ack_{kind}", 0) + 1

    def act(self, action: Action, now: float) -> list[lo.Out]:
        """The local player's (or the auto player's) ``action``; one the table refuses
        comes out as :class:`~p2p8s.table.linkout.Refused`."""
        if self.stopped:
            return []
        try:
            out = self.table.act(action, now)
        except IllegalAction as exc:
            self._emit(lo.Refused(error=exc))
            return self._take()
        self._process(out)
        self._check_unacked(now)
        return self._take()

    def present(self, now: float) -> list[lo.Out]:
        """The person typed something: they are back at the keyboard (R-TIMER)."""
        if not self.stopped:
            self._process(self.table.present(now))
            self._check_unacked(now)
        return self._take()

    def leave(self, now: float, *, quietly: bool = False) -> list[lo.Out]:
        """The local player leaves: send ``leave`` (the others take the seat over at
        once) and stop. ``quietly``: on Ctrl-C / SIGTERM (nothing is shown)."""
        if (self.left or self.outcome.completed or self.table.failed is not None
                or self.stopped):
            return []
        self.left = True
        self.freeze.wake()  # after a freeze: the ``leave`` only, nothing it held
        self._process(Output(self.table.leave(now).messages, []))
        if not quietly:
            self._show(note(LinkCode.YOU_LEFT))
        self.outcome.end(note(LinkCode.DONE_LEFT), completed=False)
        return self._take()

    def _process(self, out: Output, events: Sequence[object] | None = None) -> None:
        """lo.Post the table's messages (held while asleep; none of a round past the
        cut-off), show its events (or ``events`` instead), mark round ends, and stop where
        the match is over or cannot go on (:class:`~p2p8s.table.outcome.Outcome`)."""
        if self.stopped:
            return
        messages: Sequence[Outgoing] = out.messages
        if self.freeze.asleep and messages:  # sent once it knows (_asleep_check)
            self.freeze.held.extend(messages)
            messages = ()
        for msg in filter(self.outcome.sendable, messages):
            self._relay_before_key(msg)
            self._emit(lo.Post(to=msg.to, payload=msg.payload))
            for seat in self.others:
                if msg.to is None or msg.to == seat:
                    self.acks.posted[seat].post(msg)
        shown, marks = self.outcome.take(out.events if events is None else events)
        self._out.extend(marks)
        if shown:
            self._show(*shown)
        reached = sorted(s for s in self.peers if s not in self.away)
        if self.table.void and reached:
            # moves of its seat beyond the cut of the takeover went in here: void on
            # every node; the others' log says what happened (protocol/table.md "The cut")
            reader = self.table.void_reader
            seat = reader if reader in reached else reached[0]
            self._rebuild(seat, self.peers[seat], note(LinkCode.REBUILD_TAKEN, seat=seat))

    def _restored_events(self, now: float) -> None:
        """The first output of a table restored from the log: the rounds already played
        are counted, only the current round's events shown (after the notes)."""
        out = self.table.handle_timer(now)
        current, marks = self.outcome.replayed(out.events)
        self._out.extend(marks)
        taken = self.me in self.table.taken_over or bool(marks)
        rejoined = note(LinkCode.REJOINED, seat=self.me, taken=taken, rounds=len(marks),
                        resumed=self.table.resumed)
        self._process(out, [*self.notes, rejoined, *current])

    # --- game payloads -------------------------------------------------------------------

    def _take_game(self, seat: int, frame: bytes, body: Game, now: float, *,
                   head: bytes | None = None) -> None:
        """A game payload of ``seat``'s node, received or relayed (``frame``: its signed
        frame; ``head``: its hash, the chain's head now, when received): count it for
        ``sync`` (received only: a relayed frame need not be the next of that node's
        stream to this one — it may follow a gap, or skip payloads no relay carries —
        so it is not counted, and its node's resend brings it again as a copy), log it,
        keep a crypto broadcast to relay, give it to the table."""
        if self.stopped:
            return
        ack_now = False
        if head is not None:
            self.got[seat] += 1
            ack_now = self.acks.due[seat].heard(self.got[seat], now)
        self.last_round[seat] = max(self.last_round.get(seat, 0), round_of(body.payload))
        self.relays.heard(seat, frame, body)
        self._emit(lo.Log(frame=frame, head=head))
        if ack_now:  # logged first: an ack counts what this node holds
            self._out.extend(self.acks.acks(self._live(), self.got, seat=seat))
        self._receive(seat, body.payload, now)

    def _receive(self, seat: int, payload: bytes, now: float) -> None:
        """Give the table a payload of ``seat``'s node; invalid data stops the table."""
        try:
            out = self.table.receive(seat, payload, now)
        except RemoteError as exc:
            bad = exc.seat if exc.seat is not None else seat
            self._show(tev.Fault.of(exc, bad))
            self._fail(TableFailed(LinkCode.INVALID_DATA, seat=bad, name=self._name(bad),
                                   error=exc))
            return
        self._process(out)

    def _relay(self, seat: int) -> None:
        """Send every other connected peer the last crypto broadcasts received from
        ``seat``'s node, just lost (:mod:`p2p8s.table.relay`)."""
        payload = self.relays.payload(seat)
        for other, conn in list(self.peers.items()):
            if (payload is not None and other != seat and other in self.got
                    and other not in self.away):
                self._emit(lo.Send(conn=conn, to=other, payload=payload))

    def _relay_before_key(self, msg: Outgoing) -> None:
        """Before this table relays another node's round keys (an ``ownkey`` it took in),
        that node's last broadcasts go to the peers first: one that missed them (its
        connection to that node was down) takes them in before the takeover, so its
        proxy does not play again a turn that node played (protocol/table.md, "Coming
        back" → "Restart with the table secret")."""
        if msg.to is not None or msg.payload[:1] != bytes([OWNKEY]):
            return
        node = decode_ownkey(msg.payload[1:])[1]  # this table's own output: valid
        if node != self.me and node in self.got:
            self._relay(node)

    def _take_relayed(self, seat: int, now: float) -> None:
        """Take in the relayed frames of ``seat``'s node (lost) this node never got, in
        order, as if they had come from it."""
        for relayed in self.relays.take(seat):
            if self.stopped:
                return
            self.counts["relayed"] = self.counts.get("relayed", 0) + 1
            self._take_game(seat, relayed.frame, relayed.body, now)

    # --- sync, log, rebuild --------------------------------------------------------------

    def _send_sync(self, seat: int, conn: int) -> None:
        """This node's ``sync`` on a new connection of ``seat``'s node."""
        taken = self._taken(seat)
        if taken:  # so its payloads this node never received are void
            self.told_taken[seat] = conn
        self.acks.due[seat].told(self.got[seat])  # a sync acknowledges too
        self._emit(lo.Send(conn=conn, to=seat, payload=Sync(
            received=self.got[seat], posted=len(self.acks.posted[seat]),
            restarted=seat in self.restart_to, taken=taken).payload()))

    def _ask_log_again(self, seat: int) -> None:
        """A restored node whose ``seat``'s log answer was not complete when its connection
        ended: its ``sync`` on the new one says ``restarted`` again, so that peer starts
        both counts again and sends its whole log anew (the parts had are dropped); this
        node resends what that peer has not acknowledged, counted from 0."""
        self.answers[seat] = LogAnswer()
        self.restart_to.add(seat)
        self.fresh.pop(seat, None)
        self.expect.pop(seat, None)
        self.got[seat] = 0
        self.acks.restart(seat)
        self.counts["log_asked_again"] = self.counts.get("log_asked_again", 0) + 1

    def _use(self, seat: int, conn: int) -> None:
        self.peers[seat] = conn
        self.acks.forget(seat)  # what waits now waits on this connection
        self._emit(lo.Use(seat=seat, conn=conn))

    def _rebuild(self, seat: int, conn: int, why: Note, *, resume: bool = False) -> None:
        """Its table is void (or, ``resume``, lacks a message: :class:`~lo.Rebuild`):
        rebuild it from the logs of the peers connected now (``seat`` on ``conn`` among
        them: the one that said so)."""
        self.pending.pop(seat, None)
        self._use(seat, conn)
        peers = {**self.peers, **self.pending}
        for s in self.away:
            if s != seat and s not in self.pending:
                peers.pop(s, None)
        self.rebuild = lo.Rebuild(seat=seat, why=why, peers=peers, resume=resume)
        self._emit(self.rebuild)

    def _runner_payload(self, conn: int, seat: int, kind: int, body: bytes,
                        now: float) -> None:
        """A ``sync``, ``log`` or ``relay`` payload (protocol/table.md, "Coming back");
        raises RemoteError for a peer's invalid data (MalformedInput, never expected here,
        ends the table the same way rather than the runner)."""
        if kind == RELAY:
            # taken in at once, that node lost or not: a frame of it this node never
            # logged may be one its connection lost (resent later: then a copy, dropped)
            self._take_relayed(self.relays.keep(seat, body), now)
        elif kind == SYNC:
            self._on_sync(conn, seat, Sync.parse(body), now)
        elif kind == ACK:
            self._on_ack(conn, seat, Ack.parse(body))
        elif kind == LOG_PART:
            if conn not in (self.peers.get(seat), self.pending.get(seat)):
                # a part of an answer on a connection replaced: asked again on the new
                # one, which brings every part (never two answers' parts mixed)
                self.counts["stale"] = self.counts.get("stale", 0) + 1
                return
            frames = self.answers.setdefault(seat, LogAnswer()).add(body)
            if frames is None:
                return
            del self.answers[seat]
            # a restored node asked those peers for their logs: their answers (to its
            # ``restarted``, or to a sync of before it, on the same connection) are
            # taken while its table catches up; once a round of its own began there, a
            # log is a peer's whose match is over
            asked = seat in self.asked_log and self.table.catching_up
            if not asked and seat not in self.await_log:
                # not asked for: the match is over there (it answered this node's sync
                # with its log): the result is in it, rebuild from the others' logs
                self._rebuild(seat, conn, note(LinkCode.REBUILD_OVER, seat=seat))
                return
            records = records_from_frames(self.config, frames, me=self.me)
            for frame in frames:
                self.relays.seen.add(frame)
                self._emit(lo.Log(frame=frame))
            self._receive(seat, bytes([RESYNC]) + encode_records(records), now)
            if seat in self.await_log:  # everything it sent is in now
                self.await_log.discard(seat)
                self._peer_back(seat, now)

    def _on_sync(self, conn: int, seat: int, sync: Sync, now: float) -> None:
        if self.pending.get(seat) != conn and self.peers.get(seat) != conn:
            return  # a connection already replaced
        if self.outcome.match_over and not sync.restarted:
            # the match is over here: the node coming back learns the result from this
            # node's log (it rebuilds from it), not from a resend of every sender apart
            self.pending.pop(seat, None)
            self._emit(lo.SendLog(conn=conn, seat=seat))
            self.given_log.add(seat)
            self._use(seat, conn)
            self._back(seat, LinkCode.BACK, moved=self.conns[conn].moved)
            return
        # a sync of before this node's restart (on the connection it told it restarted
        # on), or from a peer told so only now: its counts are of the old run
        known = self.fresh.get(seat) == conn or seat in self.restart_to
        if self.freeze.unsynced.get(seat) == conn:  # this node was frozen (asleep)
            del self.freeze.unsynced[seat]
            if sync.taken and not sync.restarted and not known:
                # its seats were taken over meanwhile: whatever its table did since is
                # void; rebuild from the log instead of resending
                self._rebuild(seat, conn, note(LinkCode.REBUILD_ASLEEP, seat=seat))
                return
            self._send_sync(seat, conn)
        if sync.restarted:
            # its state is lost (or void): it gets the log (the signed frames this node
            # has), then everything from now on; the counts start again
            self.pending.pop(seat, None)
            self.told_taken.pop(seat, None)
            self.expect.pop(seat, None)
            both = seat in self.restart_to
            if both:
                # restored too, and told so by this node's ``sync``: both restarted, each
                # sends the other its log, so the log coming is the answer to this
                # node's ``restarted``, not a match over
                self.restart_to.discard(seat)
                self.await_log.add(seat)
            # a log acknowledges nothing: a table takes a log in only until its next
            # round begins, and never a welcome from it (a node that asks again, its
            # answer cut short, may have begun the round its welcome was for), so what
            # this node posted for it and that was not acknowledged is resent after the
            # log, counted from 0 (copies of what the log gave are dropped)
            self.acks.restart(seat)
            self.got[seat] = 0
            self._emit(lo.SendLog(conn=conn, seat=seat))
            self.given_log.add(seat)
            for msg in self.acks.posted[seat].since(0):
                self._emit(lo.Resend(conn=conn, to=msg.to, payload=msg.payload))
            self._use(seat, conn)
            joined = self.conns[conn].joined  # a new process: a new port
            self._back(seat, LinkCode.BACK_RESTARTED if joined else LinkCode.BACK_RESYNCED,
                       moved=None if joined else self.conns[conn].moved)
            self._peer_back(seat, now)
            if not self.stopped and seat not in self.table.gone:
                # its person gets a fresh turn timer there: so does its turn here
                self._process(self.table.peer_restarted(seat, now))
            return
        if (self.told_taken.get(seat) == conn and sync.posted > self.got[seat]
                and seat not in self.restart_to):
            return  # it rebuilds from this node's log: its ``restarted`` sync follows
        if sync.taken and sync.received < len(self.acks.posted[seat]) and not known:
            # what the peer missed of this node's payloads is void (its table took this
            # node's seats over without them): rebuild from a peer's log
            self._rebuild(seat, conn, note(LinkCode.REBUILD_TAKEN, seat=seat))
            return
        self.pending.pop(seat, None)
        self.told_taken.pop(seat, None)
        if seat in self.restart_to:
            # told it this node restarted: it starts counting again from 0, and its log
            # (coming) holds everything it sent; resend all posted since
            self.restart_to.discard(seat)
            for msg in self.acks.posted[seat].since(0):
                self._emit(lo.Resend(conn=conn, to=msg.to, payload=msg.payload))
            self.await_log.add(seat)
        elif self.fresh.pop(seat, None) == conn:
            pass  # its sync of before the restart, on that connection: nothing is due
        else:  # (a restored node's peer on a new connection counts from the restart)
            self.acks.posted[seat].ack(sync.received)  # what it has is acknowledged
            for msg in self.acks.posted[seat].since(sync.received):
                self._emit(lo.Resend(conn=conn, to=msg.to, payload=msg.payload))
                self.counts["resent"] = self.counts.get("resent", 0) + 1
            self.expect[seat] = sync.posted
        self._use(seat, conn)
        if seat in self.away:
            self._back(seat, LinkCode.BACK, moved=self.conns[conn].moved)
        self._maybe_back(seat, now)

    def _back(self, seat: int, how: LinkCode, *, moved: str | None) -> None:
        if self.done is not None:
            self.telling.add(seat)  # owed until its bye: the runner lingers for it
        self.away.discard(seat)
        self.alone = False
        self.relays.drop(seat)  # it resends, or rebuilds: relays are not due
        if seat in self.gone_for_good:
            self.gone_for_good.remove(seat)
        self._emit(lo.Undial(seat=seat))
        self._emit(lo.PeerBack(seat=seat, how=note(how, moved=moved)))

    def _maybe_back(self, seat: int, now: float) -> None:
        """Every payload the peer resent is in: the table may count it back."""
        due = self.expect.get(seat)
        if due is not None and self.got[seat] >= due and not self.stopped:
            del self.expect[seat]
            self._peer_back(seat, now)

    def _taken(self, seat: int) -> bool:
        """Whether a seat of ``seat``'s node is taken over (played by another node)."""
        return any(self.config.node_of(d) == seat for d in self.table.taken_over)

    def _peer_back(self, seat: int, now: float) -> None:
        """Count ``seat``'s node back in the table, unless it was counted lost for a
        stalled turn and its seats are not taken over yet (then at the end of its
        hold-off: :meth:`handle_timer`)."""
        if self.stopped or seat not in self.table.gone:
            return
        taken = self._taken(seat)
        if self.watch.may_return(seat, now, taken=taken):
            self._process(self.table.peer_back(seat, now))

    # --- frozen --------------------------------------------------------------------------

    def _after_input(self, now: float) -> None:
        if self.freeze.asleep and self.freeze.settled:
            self._asleep_check(now)
        self._check_held(now)
        self._check_gap(now)
        self._check_unacked(now)
        self.outcome.check_left(self.away, now)

    def _asleep_check(self, now: float) -> None:
        """After a freeze: once the connections that ended meanwhile are back (each peer's
        ``sync`` said its table did not take this node's seats over, else the table is
        rebuilt) — or after :data:`~p2p8s.table.freeze.ASLEEP_MAX_S` — play on: send
        what the table held, and count the peers still missing as lost."""
        if self.stopped:
            return
        state = self.freeze.check(now, self.away)
        if isinstance(state, Waiting) and state.first:
            self._show(note(LinkCode.ASLEEP_WAITING, seats=state.missing))
        if not isinstance(state, Awake):
            return
        for seat, conn in state.unsynced.items():
            if self.pending.get(seat) == conn:
                self._send_sync(seat, conn)
        said = (note(LinkCode.CAUGHT_UP) if not state.missing else
                note(LinkCode.ASLEEP_GAVE_UP, seats=state.missing, seconds=ASLEEP_MAX_S))
        self._process(Output(state.held, []), [said])
        for seat in state.missing:
            self._process(self.table.peer_lost(seat, now))
