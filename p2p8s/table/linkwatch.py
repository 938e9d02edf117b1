"""What a :class:`~p2p8s.table.link.Link` watches on the clock and after each input
(protocol/table.md, "The runner's part" → "Stalled turn", "Held", "Acks"), sans-IO: a
turn another node does not move (catch up, then count it lost — or, when the gap is
this node's own, rebuild from a log), this table holding its moves (rebuild once every
node, or most for :data:`~p2p8s.table.stall.HELD_STUCK_S`, is reached), a payload
left unacknowledged (make the connection anew), and who dials whom.
"""

from __future__ import annotations

from p2p8s.errors import Note
from p2p8s.table import linkout as lo
from p2p8s.table.clock import Stall
from p2p8s.table.linkout import LinkCode, note
from p2p8s.table.linkstate import LinkState
from p2p8s.table.stall import CatchUp, GiveUp


class LinkWatch(LinkState):
    """The watches of :class:`~p2p8s.table.link.Link` (which gives the steps they take:
    :meth:`_rebuild`, :meth:`_lose_peer`)."""

    def _rebuild(self, seat: int, conn: int, why: Note, *, resume: bool = False) -> None:
        raise NotImplementedError  # Link

    def _lose_peer(self, seat: int, now: float) -> None:
        raise NotImplementedError  # Link

    # --- stalled turns (R-TIMER, the others' clocks) ---------------------------------------

    def _stall(self) -> Stall | None:
        """The table's stalled-turn watch, for a node this link knows."""
        stall = self.table.stall
        return stall if stall is not None and stall.node in self.got else None

    def _synced(self) -> list[int]:
        """The other people's seats whose node is reached and synced (neither away nor
        syncing nor resending), not left or finished."""
        return [s for s in self.others
                if s not in self.gone_for_good and s not in self.outcome.finished
                and s in self.peers and s not in self.away and s not in self.pending
                and s not in self.expect]

    def _check_stall(self, now: float) -> None:
        """The turn on now waits for another node's move past its deadline and a margin:
        first catch up with that node (a fresh connection, so its ``sync`` resends what
        was lost either way); if the turn still has not moved
        :data:`~p2p8s.table.stall.STALL_RETRY_S` later, count that node as lost (its
        seats are taken over; with two people the game waits)."""
        if self.stopped:
            return
        stall = self._stall()
        deal = stall is not None and stall.turn[1] < 0  # a round's crypto, not a turn
        match self.watch.check(stall, now):
            case CatchUp(seat=seat, node=node):
                self.counts["stalled"] = self.counts.get("stalled", 0) + 1
                self._show(note(LinkCode.TURN_STALLED, seat=seat, node=node, deal=deal))
                self._reconnect(node)
            case GiveUp(node=node) if (lack := self.table.missing()) is not None and (
                    synced := self._synced()):
                # a message this table holds waits for one that never came here (a gap
                # no resend filled): the stall is this node's, not that node's — the
                # others may have played on. Rebuild from a log that has it
                self.counts["stall_gap"] = self.counts.get("stall_gap", 0) + 1
                seat = min(synced)
                self._rebuild(seat, self.peers[seat], note(
                    LinkCode.REBUILD_GAP, seat=seat, node=lack.seat), resume=True)
            case GiveUp(node=node):
                self.counts["stall_lost"] = self.counts.get("stall_lost", 0) + 1
                for conn in (self.peers.pop(node, None), self.pending.pop(node, None)):
                    if conn is not None:
                        self._emit(lo.Drop(seat=node, conn=conn))
                self._emit(lo.PeerGone(seat=node, why=note(LinkCode.GONE_STALLED, deal=deal)))
                self.away.discard(node)  # counted as lost now (as if its connection ended)
                self._lose_peer(node, now)

    def _reconnect(self, node: int) -> None:
        """Close the connection in use to ``node``'s node as if replaced (no
        ``peer_lost``) and count it as missing: the higher seat dials, and the ``sync``
        on the new connection resends what either side lacks."""
        conn = self.peers.pop(node, None)
        if conn is not None:
            self._emit(lo.Drop(seat=node, conn=conn))
        self.expect.pop(node, None)
        self.acks.forget(node)
        self.away.add(node)  # dialled (the higher seat), not lost: no takeover yet
        self._dial(node)

    def _check_unacked(self, now: float) -> None:
        """A payload for a peer in use not acknowledged for
        :data:`~p2p8s.table.acks.UNACKED_MAX_S` did not get through (a socket that
        swallows what is written to it, a connection the peer no longer counts): make
        the connection anew (:meth:`_reconnect`), whose ``sync`` resends it."""
        if not self.stopped and not self.freeze.asleep:
            for seat in self.acks.stuck(self._live(), now):
                self.counts["unacked"] = self.counts.get("unacked", 0) + 1
                self._reconnect(seat)

    def _check_held(self, now: float) -> None:
        """This node's table holds its moves (it does not know whether its seat was taken
        over) while every other node is reached and synced: after
        :data:`~p2p8s.table.stall.HELD_MAX_S` it rebuilds from their log, which says what
        happened (protocol/table.md, "Held")."""
        reached = [s for s in self.others
                   if s not in self.gone_for_good and s not in self.outcome.finished]
        holding = (not self.stopped and self.done is None and not self.freeze.asleep
                   and self.table.holding and bool(reached)
                   and all(s in self.peers and s not in self.away and s not in self.pending
                           and s not in self.expect for s in reached))
        synced = self._synced()
        running = not self.stopped and self.done is None and not self.freeze.asleep
        stuck = running and bool(synced) and self.table.held_for_good
        holds = running and self.table.holding
        long = self.watch.stuck(holds, now) and 2 * len(synced) > len(reached)
        if self.watch.held(holding, now) or stuck or long:
            # (a recovery of its key that can never finish: no use waiting for everyone;
            # held for HELD_STUCK_S with most nodes reached: no use waiting for all)
            self.counts["held"] = self.counts.get("held", 0) + 1
            seat = min(synced)
            self._rebuild(seat, self.peers[seat], note(LinkCode.REBUILD_HELD, seat=seat))

    def _check_gap(self, now: float) -> None:
        """This table holds messages that wait for one that never came, while every node
        reached is synced and none is being dialled (their resends are in: none of them
        will send it — its sender's queue may have gone with a table rebuilt meanwhile) —
        in any phase, a round's deal too: after :data:`~p2p8s.table.stall.GAP_MAX_S` it
        rebuilds from the log of the lowest of them, which has it, keeping its seats
        (``resume``: protocol/table.md, "Gap")."""
        running = (not self.stopped and self.done is None and not self.freeze.asleep
                   and not self.table.holding)
        synced = self._synced()
        # a node being dialled or synced may still resend it: not while one is
        syncing = any(s in self.pending or s in self.expect or s in self.away
                      for s in self.others)
        lack = self.table.missing() if running and synced and not syncing else None
        if lack is not None and self.watch.gap(lack, now):
            self.counts["gap"] = self.counts.get("gap", 0) + 1
            self.watch.gap(None, now)
            seat = min(synced)
            self._rebuild(seat, self.peers[seat], note(
                LinkCode.REBUILD_LACK, seat=seat, node=lack.seat), resume=True)
        elif lack is None:
            self.watch.gap(None, now)

    def _dial(self, seat: int) -> None:
        """Dial ``seat``'s node again if this node is the one to: the higher seat dials
        the lower (a restarted node dials everyone); not once it left for good."""
        if ((self.done is None or seat in self.owed) and seat not in self.gone_for_good
                and seat not in self.outcome.finished and (seat < self.me or self.restored)):
            self._emit(lo.Dial(seat=seat))
