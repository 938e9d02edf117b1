"""The replicated table (sans-IO): the mental-poker round and the rules engine on every node.

A :class:`Table` is one node's copy of the game. Payloads from peers go in with
:meth:`Table.receive`, the local player's moves with :meth:`Table.act`, the clock with
:meth:`Table.handle_timer`; every call returns an :class:`Output` — payloads to send
(:class:`Outgoing`) and events for the client (:mod:`p2p8s.table.events`). It never does
I/O and never reads a clock: ``now`` is an argument, randomness comes from ``rand``.

The table is a facade over small machines, each owning one job (protocol/table.md has
the full flow):

- :mod:`~p2p8s.table.sessions` — the local crypto sessions of the round (nonces, keys,
  shuffles run by themselves);
- :mod:`~p2p8s.table.deal` — the dealer (R-DEALER), the batched deal (R-DEALORDER) and
  the starter search (R-STARTER), then the engine round over a
  :class:`~p2p8s.table.deck.TableDeck`;
- :mod:`~p2p8s.table.log` — the action log: records in index order, checked against the
  log and the engine, their draws' crypto, then applied;
- :mod:`~p2p8s.table.seats` and :mod:`~p2p8s.table.keys` — who runs which seat, gone
  nodes and the takeover through the escrow or keys handed over;
- :mod:`~p2p8s.table.clock` — the turn timer and away players (R-TIMER);
- :mod:`~p2p8s.table.choices` — a returning person's signed choices;
- :mod:`~p2p8s.table.computer` — the computer seats, the stand-in, the takeover bot;
- :mod:`~p2p8s.table.inbox`, :mod:`~p2p8s.table.intake` and :mod:`~p2p8s.table.resync`
  — the intake of crypto payloads (each once, in its seat's order, after what its echo
  counts; copies dropped, equivocation named), and the records a restarted node is
  rebuilt from;
- :mod:`~p2p8s.table.roundend` — keys revealed, the audit (R-AUDIT), the score;
- :mod:`~p2p8s.table.stops` — stopping on a fault, and a peer's ``stop``;
- :mod:`~p2p8s.table.flow` — the steps of a round through its phases, between them.

Anything a peer got wrong is a :class:`~p2p8s.errors.RemoteError` naming it (the
table's own checks: :class:`~p2p8s.table.errors.TableError`, a broken rule of the game:
:class:`~p2p8s.table.errors.RuleBroken`); the table then stops with a
:class:`~p2p8s.table.events.Fault` and tells the others (``stop``). Events carry codes
and data, never sentences (``p2p8s.cli.words.table`` says them).
:meth:`Table.get_timer` is the earliest timer of the machines.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from p2p8s.bots.base import View, view_of
from p2p8s.crypto.derive import KEY_SEED_BYTES
from p2p8s.crypto.group import Rand
from p2p8s.engine import Action, Round, parse_action
from p2p8s.errors import IllegalAction, LocalError, MalformedInput, RemoteError
from p2p8s.match import Match
from p2p8s.table import events as tev
from p2p8s.table import resume
from p2p8s.table.actions import (
    CHOICE,
    CRYPTO,
    LEAVE,
    OWNKEY,
    RESTARTED,
    RESYNC,
    SETUP,
    STOP,
    WELCOME,
    action_text,
    decode_records,
    decode_round,
    encode_round,
)
from p2p8s.table.botaudit import BOT_TAG
from p2p8s.table.choices import Choices
from p2p8s.table.clock import AWAY_GRACE_S, Stall, TurnClock
from p2p8s.table.computer import STAND_IN, TAKEOVER_TAG, Computers
from p2p8s.table.config import TableConfig
from p2p8s.table.context import MAX_AHEAD, MAX_FUTURE, OBSERVER, Ctx, Outgoing, Output, Phase
from p2p8s.table.deal import DEALER_TAG, Deal, deal_order, first_dealer, forbidden_starter
from p2p8s.table.decoding import BadPayload
from p2p8s.table.errors import TableCode, TableError
from p2p8s.table.events import InfoCode
from p2p8s.table.flow import RoundFlow
from p2p8s.table.inbox import Inbox, Missing
from p2p8s.table.intake import Copies
from p2p8s.table.keys import OwnKeys
from p2p8s.table.log import ActionLog
from p2p8s.table.resync import Resync
from p2p8s.table.roundend import TRANSCRIPT_TAG, RoundEnd
from p2p8s.table.seats import TAKEOVER_GRACE_S, Seats
from p2p8s.table.sessions import LocalSessions
from p2p8s.table.stops import Stops

__all__ = ["AWAY_GRACE_S", "BOT_TAG", "DEALER_TAG", "MAX_AHEAD", "MAX_FUTURE", "OBSERVER",
           "STAND_IN", "TAKEOVER_GRACE_S", "TAKEOVER_TAG", "TRANSCRIPT_TAG",
           "Outgoing", "Output", "Phase", "Table", "deal_order", "first_dealer",
           "forbidden_starter"]


class Table:
    """One node's replicated table (see the module docstring).

    ``config`` is the final roster and rules, ``me`` this node's seat, ``rand(n)`` the
    source of secret randomness (``os.urandom`` in production), ``seed`` seeds the
    computer players this node runs (deterministic in tests). ``sign(data)`` returns the
    64-byte Ed25519 signature of ``data`` by this node's identity key (the key of
    ``config.seats[me]``): with it, the person plays its seat again from its next turn
    when it was taken over and the node is back (signed choices); without it the
    computer plays the seat until the next round. ``key_secret`` (32 bytes, kept by the
    runner for this table and seat): the round keys of the seats this node runs derive
    from it (:func:`~p2p8s.crypto.derive.round_key`), so after a restart
    (:meth:`restore` with the same secret) the node sends them back and its seats go on
    as after an escrow recovery — also with two people. ``me=OBSERVER`` makes a
    passive table that plays no seat and sends nothing: it checks every message and
    action it is given and audits each round (:mod:`p2p8s.table.logverify`).
    Raises MalformedInput if ``me`` is not a human seat.
    """

    def __init__(self, config: TableConfig, *, me: int, rand: Rand, seed: bytes = b"",
                 sign: Callable[[bytes], bytes] | None = None,
                 key_secret: bytes | None = None) -> None:
        self.observing = me == OBSERVER
        if key_secret is not None and len(key_secret) != KEY_SEED_BYTES:
            raise MalformedInput(TableCode.KEY_SECRET_SIZE, n=KEY_SEED_BYTES)
        if not self.observing and (not 0 <= me < config.players or config.computer(me)):
            raise MalformedInput(TableCode.NOT_HUMAN_SEAT, seat=me)
        self.config = config
        self.me = me
        self._ctx = ctx = Ctx(config, me=me, rand=rand, seed=seed, sign=sign,
                              key_secret=key_secret)
        self._sessions = sessions = LocalSessions(
            ctx, lambda ev: self._flow.on_crypto_event(ev))
        self._seats = seats = Seats(ctx, sessions)
        self._log = log = ActionLog(ctx, sessions, seats,
                                    vet=lambda *a: self._computer.vet(*a))
        seats.turn = lambda: None if log.round is None else log.round.turn
        self._deal = Deal(ctx, sessions)
        self._clock = clock = TurnClock(
            ctx, seats, log, local_turn=lambda: self.my_turn and not self._choices.choosing(),
            sessions=sessions, missing=lambda: _seat_of(self._inbox.missing()))
        self._choices = choices = Choices(ctx, seats, log, clock)
        self._computer = Computers(ctx, seats, log, clock, choices)
        self._keys = OwnKeys(ctx, sessions, seats)
        self._inbox = inbox = Inbox(ctx, sessions, seats)
        seats.settled = lambda: not inbox.ready()
        self._copies = Copies()
        self._resync = Resync(ctx)
        self._end = RoundEnd(ctx, sessions, log, self._deal, seats,
                             bot_moves=lambda: self._computer.moves.get(ctx.number, {}))
        self._flow = RoundFlow(ctx, sessions=sessions, seats=seats, deal=self._deal, log=log,
                               clock=clock, choices=choices, computer=self._computer,
                               keys=self._keys, inbox=self._inbox, end=self._end)
        self._stops = Stops(ctx, sessions)
        self._started = False
        #: restored, it took its own seats back (hand hidden; :meth:`restore` ``own``)
        self.resumed = False
        #: what each payload kind (protocol/table.md, "Carrying") is handed to
        self._handlers: dict[int, Callable[[int, bytes], None]] = {
            CRYPTO: self._inbox.on_crypto,
            SETUP: self._on_setup,
            STOP: self._stops.on_stop,
            LEAVE: self._on_leave,
            WELCOME: lambda sender, body: seats.on_welcome(sender, _round(sender, body)),
            RESTARTED: lambda sender, body: seats.on_restarted(sender, _round(sender, body)),
            CHOICE: choices.on_choice,
            OWNKEY: self._keys.on_ownkey,
        }

    # ------------------------------------------------------------------ public state

    @property
    def match(self) -> Match:
        """The match: totals, dealer rotation, results (R-WIN-TABLE, R-TARGET-*)."""
        return self._ctx.match

    @property
    def failed(self) -> tev.Fault | None:
        """The fault that stopped the table, if one did."""
        return self._ctx.failed

    @property
    def void(self) -> bool:
        """True once messages of a seat beyond its cut went in here (its key was rebuilt
        from escrow shares whose echoes count fewer of its messages: those are void on
        every node; protocol/table.md "The cut"). Only the seat's own node (or an
        observer of its log) sees it; no fault: the table stops, the runner rebuilds it
        from the others' log."""
        return self._ctx.void

    @property
    def void_reader(self) -> int | None:
        """Once :attr:`void`: the node whose escrow share stated the cut (its log holds
        the seat's messages up to the cut: rebuild from it); None otherwise."""
        return self._ctx.void_reader

    @property
    def names(self) -> tuple[str, ...]:
        """Player names by seat."""
        return self.config.names

    @property
    def round(self) -> Round | None:
        """The engine round as this node sees it, once dealt: other seats' cards are
        ``None`` — except, on the host's node, the computer seats' cards (it runs them).
        Render the local seat with :meth:`view`."""
        return self._log.round if self._ctx.number else None

    @property
    def round_number(self) -> int:
        """The number of the round being played (0 before :meth:`start`)."""
        return self._ctx.number

    @property
    def phase(self) -> Phase:
        """Where the table is."""
        ctx = self._ctx
        if ctx.failed is not None:
            return Phase.FAILED
        if ctx.match.over:
            return Phase.DONE
        return ctx.phase if ctx.number else Phase.CRYPTO

    @property
    def catching_up(self) -> bool:
        """True from :meth:`restore` until the next round begins here: while a
        ``resync`` payload (a peer's log) is still taken in; False otherwise."""
        return self._ctx.catching_up

    @property
    def finished(self) -> bool:
        """True once the match is over (every round audited)."""
        return self._ctx.match.over

    @property
    def deadline(self) -> float | None:
        """When the turn of the seat on turn runs out (``None``: no human turn running)."""
        ctx = self._ctx
        return self._clock.deadline if ctx.number and ctx.phase is Phase.PLAY else None

    @property
    def my_turn(self) -> bool:
        """True when :meth:`act` may be called now."""
        ctx, me = self._ctx, self.me
        return (ctx.number != 0 and self._log.ready_to_author(me) and not ctx.leaving
                and me in self._sessions.by_seat and me not in self._seats.bots
                ) or self._choices.choosing()

    @property
    def choosing(self) -> bool:
        """True when :attr:`my_turn` is a turn of this node's seat while it is taken
        over: :meth:`act` then sends a signed choice that the node sending the seat's
        actions carries out (protocol/table.md, "Coming back")."""
        return self._choices.choosing()

    @property
    def taken_over(self) -> frozenset[int]:
        """Seats the deterministic computer plays now (their node is gone, or was)."""
        return frozenset(self._seats.bots) if self._ctx.number else frozenset()

    @property
    def away_turns(self) -> int:
        """Turns the computer played this round for this node's seat that its person
        has not been told of yet (R-TIMER's "you were away": a restored table counts
        only those after the person's last own move in the log); 0 once told."""
        return self._clock.away_turns + self._clock.bot_turns

    @property
    def paused(self) -> frozenset[int]:
        """Nodes (human seats) the game waits for: gone, and no way to take their seats
        over this round (no escrow, no key given up) — or every gone node once every
        seat's key is recovered (nobody is left to author for the seats taken over, as
        after the last other person left a node that rejoined); empty while the game
        goes on."""
        if not self._ctx.number:
            return frozenset()
        seats = self._seats
        if self._ctx.going and seats.proxy() is None:
            return frozenset(seats.paused | seats.gone)
        return frozenset(seats.paused)

    @property
    def stranded(self) -> frozenset[int]:
        """Nodes (human seats) whose process restarted and lost their secret keys of the
        current round (a ``restarted`` payload; this node itself after :meth:`restore`)
        while a seat they run has no escrow to rebuild its key (no holders — fewer than
        three live nodes — or its key not announced yet): nobody can finish the round,
        so the match cannot go on. Empty otherwise, once the match is over, and once the
        node sent its keys back (``ownkey``: restored with its key secret after its
        ``KeyAnnounce``)."""
        return self._seats.stranded(self._resync.keys_lost)

    @property
    def gone(self) -> frozenset[int]:
        """Seats whose node this node believes gone (:meth:`peer_lost`, ``leave``)."""
        return frozenset(self._seats.gone)

    @property
    def transcript(self) -> bytes:
        """The chain hash over the config, every applied action and every audited round's
        message chains (32 bytes): equal on every honest node at the same point."""
        return self._end.transcript.head

    @property
    def transcript_index(self) -> int:
        """How many entries :attr:`transcript` covers."""
        return self._end.transcript.entries

    def view(self) -> View | None:
        """What the local seat sees, for rendering (``None`` before the first deal)."""
        rnd = self.round
        return view_of(rnd, self.me, self.match) if rnd is not None else None

    def legal_actions(self) -> list[Action]:
        """The local seat's legal actions now (empty when it may not act)."""
        rnd = self.round
        return rnd.legal_actions() if rnd is not None and self.my_turn else []

    def get_timer(self) -> float | None:
        """When :meth:`handle_timer` must be called next: the earliest timer of the
        machines (a gone node's takeover grace, the local turn's deadline, the deadline
        of a returning person's choice, when another node's turn stalls: :attr:`stall`)."""
        times = [t for t in (self._seats.get_timer(), self._clock.get_timer(),
                             self._choices.get_timer(), self._clock.stall_timer()) if t is not None]
        return min(times, default=None)

    @property
    def holding(self) -> bool:
        """True while this node keeps payloads it would send (cut off from most of the
        table, or not knowing yet whether its seat was taken over meanwhile: a recovery
        of its key begun and not finished); the actions among them are applied here
        and nowhere else until they go out. The runner rebuilds such a node from the log
        when it holds while every other node is reached (protocol/table.md, "Held")."""
        return bool(self._seats.held) and self._seats.holding()

    @property
    def held_for_good(self) -> bool:
        """True while this node holds what it sends because a recovery of its own key
        was begun that can never finish (a holder of its key lost its share: its seat
        was taken over, or its node restarted, this round): waiting for every node to
        be reached again changes nothing, so the runner rebuilds it from a peer's log
        at once (its key then goes to the others through ``ownkey``)."""
        return self._seats.recovery_stuck()

    def missing(self) -> Missing | None:
        """A message of the current round that waiting messages need and that never came
        (:meth:`Inbox.missing`); the offline audit's "the log lacks …"."""
        return self._inbox.missing()

    @property
    def stall(self) -> Stall | None:
        """The turn running now if another node must send its next action (R-TIMER, the
        others' clocks): that node and when the turn counts as stalled (``at``, this
        node's clock; :attr:`get_timer` includes it while it is ahead). The runner acts
        on it (protocol/table.md, "Timer"); the table itself does nothing then."""
        return self._clock.stall()

    # ------------------------------------------------------------------ inputs

    def start(self, now: float) -> Output:
        """Begin the match: send this node's setup and start round 1's crypto."""
        if self._started:
            raise MalformedInput(TableCode.STARTED)
        self._started = True
        self._ctx.now = now
        if not self.observing:
            self._ctx.send(SETUP, self.config.to_bytes())
        self._guarded(self._flow.begin_round)
        return self._flush()

    def receive(self, sender: int, payload: bytes, now: float) -> Output:
        """A payload from the node of seat ``sender`` (authenticated by the wire layer).

        Resends and relays are absorbed (protocol/table.md, "Intake"): an identical copy
        of a payload this sender's node sent before is dropped, a crypto message waits
        until its seat's earlier messages and what its echo counts are in; two different
        crypto messages of one sender for one slot are a fault (equivocation).

        A ``resync`` payload (:meth:`resync_payload` of a peer) is taken by a table being
        restored or catching up (:meth:`restore`): its records are replayed, copies of
        what this node already has skipped; other tables ignore it."""
        ctx = self._ctx
        ctx.now = max(ctx.now, now)
        if ctx.going and not ctx.leaving:
            if payload[:1] == bytes([RESYNC]):
                if ctx.catching_up:
                    self._guarded(lambda: self._replay(_records(sender, payload[1:])))
            else:
                self._resync.took(sender, payload)
                self._guarded(lambda: self._receive(sender, payload))
        return self._flush()

    def resync_payload(self) -> bytes:
        """A ``resync`` payload for a node that comes back: every payload this node took
        in or sent so far, with its sender, in order (:meth:`restore`). Send it to that
        node only (``Outgoing(seat, payload)``)."""
        return self._resync.payload()

    @classmethod
    def restore(cls, config: TableConfig, *, me: int, records: bytes | Sequence[
                    tuple[int, bytes]], rand: Rand, seed: bytes = b"",
                now: float = 0.0, sign: Callable[[bytes], bytes] | None = None,
                key_secret: bytes | None = None,
                own: Sequence[tuple[int, bytes]] | None = None) -> Table:
        """Rebuild a node whose process restarted (its secret keys are lost) from a peer's
        log: ``records`` is that peer's :meth:`resync_payload` (or its records). Every
        payload is replayed and checked as by an observer — every message, proof, action
        and audit — so the state is the match's, not the peer's word. The restored node
        plays no seat until the round after the current one, when the lowest live seat
        welcomes it back (its seat stays taken over until then); with ``sign`` (as for
        the constructor) its person plays the seat again from its next turn through
        signed choices. Its events so far come with its next call.

        With ``key_secret`` (the one the node ran the round with) it recomputes the round
        keys of the seats it runs this round, checks them against their ``Y`` and sends
        them (an ``ownkey`` payload): every node then takes those seats over as after an
        escrow recovery, at once and with any number of people (no ``restarted``, not
        :attr:`stranded`). Seats whose key was not announced yet (or does not derive
        from ``key_secret``) are left to the escrow (``restarted``).

        ``own``: the records of this node's own log (its every message reached it
        before any socket), or None when it has none that reads. With ``own`` and
        ``key_secret``, its own messages the peer lacked are replayed after the peer's
        records and — unless a seat it runs was taken over meanwhile (its key rebuilt,
        handed over or its recovery begun), or a message of it waits — the node takes
        its seats back (:func:`~p2p8s.table.resume.take_back`): it sends its round's
        messages again (copies are dropped), goes on at the next slot of its chains
        and its person plays on, hand hidden; no ``ownkey``, no ``restarted``. Raises
        MalformedInput for a ``key_secret`` not of 32 bytes, or records that are not a
        resync payload; :class:`~p2p8s.table.decoding.BadPayload` (a RemoteError: the
        records come from a log or a peer) for records that do not decode."""
        if isinstance(records, bytes):
            if records[:1] != bytes([RESYNC]):
                raise MalformedInput(TableCode.NOT_RESYNC)
            records = decode_records(records[1:])
        table = cls(config, me=me, rand=rand, seed=seed, sign=sign, key_secret=key_secret)
        ctx = table._ctx
        ctx.restoring = ctx.catching_up = table._started = True
        ctx.now = now
        table._seats.back_at[me] = now
        table._guarded(table._flow.begin_round)
        table._guarded(lambda: table._replay(records))
        mine = None if own is None else resume.own_crypto(me, own)
        replayed = bool(mine) and resume.seats_to_resume(
            ctx, table._sessions, table._seats, table._log) is not None
        if replayed:
            table._guarded(lambda: table._replay(mine or ()))  # what the peer lacked
        ctx.restoring = False
        ctx.out.clear()
        number = ctx.number
        if mine is not None and table._take_back():
            table.resumed = True
            return table
        if replayed:  # every peer gets what this table holds of its seats
            resume.send_again(ctx, table._resync.records, [me])
        if number and table._seats.cands.get(me) == {me} and not ctx.match.over:
            # its keys of this round are lost: the others must take its seats over
            table._resync.keys_lost = number
            if not table._own_keys():
                ctx.send(RESTARTED, encode_round(number))
        return table

    def act(self, action: Action, now: float) -> Output:
        """The local player's action. Raises IllegalAction (nothing changes) when it is
        not this seat's turn, or the action breaks a rule (the message names the rule).

        While the seat is taken over (:attr:`choosing`) the action goes out as a signed
        ``choice`` payload (``sign``, protocol/table.md "Coming back"): the node sending
        the seat's actions carries it out if it arrives before its deadline (R-TIMER)."""
        ctx = self._ctx
        ctx.now = max(ctx.now, now)
        rnd = self._log.round
        if ctx.number == 0 or rnd is None or not self.my_turn:
            raise IllegalAction(TableCode.NOT_YOUR_TURN)
        choosing = self._choices.choosing()  # its open hand is in the engine (ready)
        rnd.check(action)
        if choosing:
            action = rnd.canonical(action)
            try:
                action = parse_action(action_text(action))
            except MalformedInput as e:
                raise IllegalAction(TableCode.UNSENDABLE, text=action_text(action),
                                    cause=e) from None
        positions = () if choosing else self._log.positions_for(self.me, action, self.me)
        self._clock.acted()
        chosen = action
        if choosing:
            self._guarded(lambda: self._choices.choose(chosen))
        else:
            self._guarded(lambda: self._log.author(self.me, chosen, positions, self.me))
        return self._flush()

    def present(self, now: float) -> Output:
        """The local person typed something (a command, even a mistake): they are back
        (R-TIMER). An away player's short grace ends: the turn on now, if it is theirs,
        gets the full turn timer from ``now``, and so do their next turns."""
        self._ctx.now = max(self._ctx.now, now)
        self._clock.present(now, my_turn=lambda: self.my_turn)
        return self._flush()

    def peer_lost(self, seat: int, now: float) -> Output:
        """The runner's heartbeats to ``seat``'s node failed: take its seats over.

        With 3+ live nodes every node publishes its escrow shares of the keys of the
        seats that node runs; once rebuilt (checked against ``Y``) their hands are open
        and the deterministic computer plays them, sent by the lowest live seat and
        checked by every node — this round and the next ones, until it is back. With no
        escrow (2 live nodes) the game pauses (:class:`~p2p8s.table.events.SeatAway`
        with ``paused``) until :meth:`peer_back`. Idempotent; raises MalformedInput for
        a seat that has no other node."""
        ctx, seats = self._ctx, self._seats
        ctx.now = max(ctx.now, now)
        seats.check_peer(seat)
        if seat not in seats.gone:
            seats.gone.add(seat)
            seats.lost_at[seat] = now + TAKEOVER_GRACE_S
            if ctx.going:
                self._guarded(lambda: seats.lost(seat))
        return self._flush()

    def peer_restarted(self, seat: int, now: float) -> Output:
        """``seat``'s node restarted and is back (its ``restarted`` sync reached the
        runner), whether or not this node had counted it gone: a turn it must send gets
        the full turn timer from ``now`` on this node's clock too (R-TIMER: from the
        later of the turn start and its return), as the restarted node gives its person
        a fresh timer — so the others' clocks do not count a turn stalled, and take the
        seat over (its hand opened), while its person is still within their time
        (protocol/table.md, "Timer"). Then as :meth:`peer_back`. Raises MalformedInput
        for a seat that has no other node.

        This node the adopter, a welcome it sent that node this round goes to it again
        while no message of its seats came from it this round: its table was rebuilt, and
        a welcome it took in before is lost with the old one (protocol/table.md, "Coming
        back")."""
        ctx, seats = self._ctx, self._seats
        ctx.now = max(ctx.now, now)
        seats.check_peer(seat)
        seats.back_at[seat] = now
        if ctx.going:
            self._guarded(lambda: seats.welcome_again(seat, self._inbox.heard))
        return self.peer_back(seat, now)

    def peer_back(self, seat: int, now: float) -> Output:
        """``seat``'s node is reachable again (same identity key). A paused game goes on;
        a seat that was taken over is played by its person again from its next turn
        (signed choices, the node sending its actions waits for them until the R-TIMER
        deadline) and dealt in again from the next round this node starts as its adopter
        (a ``welcome``). The runner must make sure the node has every payload it missed
        (its own table survived) or restored its table from the log (:meth:`restore`)."""
        ctx, seats = self._ctx, self._seats
        ctx.now = max(ctx.now, now)
        seats.check_peer(seat)
        if seat in seats.gone:
            seats.back(seat, now)
            self._clock.back(seat)
            if ctx.number:
                self._clock.refresh_deadline()
            ctx.tell(tev.SeatBack(InfoCode.SEAT_BACK, {"seat": seat}, seat=seat))
        return self._flush()

    def leave(self, now: float) -> Output:
        """The local player quits: tell the others (a ``leave`` payload: they take the
        seat over as for a dropped node, at once). The table does nothing afterwards."""
        ctx = self._ctx
        ctx.now = max(ctx.now, now)
        if not ctx.leaving and not self.observing:
            ctx.leaving = True
            if ctx.number and ctx.going:
                # its keys go first (``ownkey``): the others play its seats at once, hand
                # open, with or without an escrow (two people)
                self._keys.give_up()
            ctx.send(LEAVE, encode_round(self.round_number))
        return self._flush()

    def handle_timer(self, now: float) -> Output:
        """Let the clock run to ``now``: past the local deadline the computer plays."""
        ctx = self._ctx
        ctx.now = max(ctx.now, now)
        if ctx.going and not ctx.leaving:
            self._guarded(self._flow.advance)
        return self._flush()

    # ------------------------------------------------------------------ plumbing

    def _flush(self) -> Output:
        ctx = self._ctx
        try:
            self._choices.ready()
        except RemoteError as e:
            self._stops.stop(tev.Fault.of(e, e.seat))
        messages, ctx.out = ctx.out, []
        messages = self._seats.release(messages)
        self._resync.sent(messages)
        out = Output(messages, ctx.events)
        ctx.events = []
        return out

    def _guarded(self, fn: Callable[[], object]) -> None:
        """Run ``fn`` and every step it enables; a detected fault stops the table."""
        try:
            fn()
            self._advance()
        except RemoteError as e:
            self._stops.stop(tev.Fault.of(e, e.seat))
        except LocalError as e:  # never expected: stop the table rather than the runner
            self._stops.stop(tev.Fault(None, TableCode.STUCK, {"cause": e}))

    def _replay(self, records: Sequence[tuple[int, bytes]]) -> None:
        """Take in a peer's records (restore / resync), skipping what is not for us."""
        self._resync.replay(records, self._receive, self._advance)

    def _advance(self) -> None:
        """Take every step possible now, then each crypto message that waited and can go
        now, one at a time with every step it enables in between (as if each came alone)."""
        flow, inbox = self._flow, self._inbox
        flow.advance()
        while inbox.release():
            flow.advance()

    def _take_back(self) -> bool:
        """Restored with its own log and key secret: take its seats back (hand hidden)
        if nothing of them was taken over; True if it did."""
        done: list[bool] = []
        self._guarded(lambda: done.append(resume.take_back(
            self._ctx, self._sessions, self._log, self._seats, self._resync.records)))
        return bool(done) and done[0]

    def _own_keys(self) -> bool:
        """Restored with a key secret: send the round keys of the seats this node runs
        whose key nobody knows yet and take them in here. True when no seat it runs is
        left without a key (else the escrow must rebuild the rest: ``restarted``)."""
        if self._ctx.key_secret is None or self._ctx.failed is not None:
            return False
        keys, complete = self._keys.own_keys(self._resync.records)
        for seat, secret in keys:
            self._guarded(functools.partial(self._keys.learn, seat, secret))
        return complete and self._ctx.failed is None

    # ------------------------------------------------------------------ payloads

    def _receive(self, sender: int, payload: bytes) -> None:
        """Hand a payload to the machine of its kind; raises TableError naming the
        sender for one that is not a payload of the table."""
        config, ctx = self.config, self._ctx
        if (not 0 <= sender < config.players or config.computer(sender)
                or (sender == self.me and not ctx.restoring)):
            raise TableError(TableCode.NO_OTHER_NODE, seat=None, sender=sender)
        if not payload:
            raise TableError(TableCode.EMPTY_PAYLOAD, seat=sender, peer=sender)
        handler = self._handlers.get(payload[0])
        if handler is None:
            raise TableError(TableCode.UNKNOWN_KIND, seat=sender, peer=sender,
                             kind=payload[0])
        if payload[0] != CRYPTO and self._copies.again(sender, payload):
            return  # an identical copy (resent, relayed): taken in already
        handler(sender, payload[1:])

    def _on_leave(self, sender: int, body: bytes) -> None:
        _round(sender, body)
        self._seats.on_leave(sender)

    def _on_setup(self, sender: int, body: bytes) -> None:
        if body != self.config.to_bytes():
            raise TableError(TableCode.OTHER_SETUP, seat=sender, peer=sender)


def _seat_of(lack: Missing | None) -> int | None:
    """The seat of the message held messages wait for, if any."""
    return lack.seat if lack is not None else None


def _round(sender: int, body: bytes) -> int:
    """The round of a ``leave``, ``welcome`` or ``restarted`` body from ``sender``."""
    try:
        return decode_round(body)
    except BadPayload as e:
        raise TableError(TableCode.MALFORMED, seat=sender, peer=sender, cause=e) from None


def _records(sender: int, body: bytes) -> list[tuple[int, bytes]]:
    """The records of a ``resync`` body from ``sender``."""
    try:
        return decode_records(body)
    except BadPayload as e:
        raise TableError(TableCode.MALFORMED, seat=sender, peer=sender, cause=e) from None
