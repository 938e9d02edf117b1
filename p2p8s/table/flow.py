"""The flow of a round through its phases, step by step (sans-IO).

:class:`RoundFlow` ties the machines together (DESIGN.md, "the replicated table"): at
each round start it asks :mod:`~p2p8s.table.seats` who runs which seat, creates this
node's sessions and takes in what came early; then :meth:`RoundFlow.advance` takes every
step possible now — the takeover's escrow shares, adopted keys revealed, keys handed
over, then by phase: the deal (``CRYPTO``), the action log and the computers (``PLAY``),
the audit (``END``) — and routes the primary session's crypto events to the machine
they concern. What it passes between them: the dealt round (:class:`~p2p8s.table.deal.Dealt`)
to the log, each applied action (:class:`~p2p8s.table.log.Applied`) to the choices, the
clock and the transcript, the round end to the next round.
"""

from __future__ import annotations

from p2p8s.crypto.events import (
    Accused,
    Announced,
    CardsPlayed,
    Disputed,
    KeyRecovered,
    Verdict,
)
from p2p8s.engine import Draw
from p2p8s.table import events as tev
from p2p8s.table.choices import Choices
from p2p8s.table.clock import TurnClock
from p2p8s.table.computer import Computers
from p2p8s.table.context import OBSERVER, Ctx, Phase
from p2p8s.table.deal import Deal, DealStep
from p2p8s.table.inbox import Inbox
from p2p8s.table.keys import OwnKeys
from p2p8s.table.log import ActionLog, Applied
from p2p8s.table.roundend import EndStep, RoundEnd
from p2p8s.table.seats import Seats
from p2p8s.table.sessions import LocalSessions


class RoundFlow:
    """The steps of this node's rounds (see the module docstring). No timer of its own:
    the machines it steps have theirs."""

    def __init__(self, ctx: Ctx, *, sessions: LocalSessions, seats: Seats, deal: Deal,
                 log: ActionLog, clock: TurnClock, choices: Choices, computer: Computers,
                 keys: OwnKeys, inbox: Inbox, end: RoundEnd) -> None:
        self._ctx = ctx
        self._sessions = sessions
        self._seats = seats
        self._deal = deal
        self._log = log
        self._clock = clock
        self._choices = choices
        self._computer = computer
        self._keys = keys
        self._inbox = inbox
        self._end = end

    def get_timer(self) -> float | None:
        """The flow steps when messages or timers of its machines arrive."""
        return None

    def on_crypto_event(self, ev: object) -> None:
        """A crypto event of the primary session, for the machine it concerns."""
        ctx = self._ctx
        if ctx.number == 0:
            return
        if isinstance(ev, KeyRecovered):
            self._seats.on_key_recovered(ev)
        elif isinstance(ev, CardsPlayed):
            self._log.on_played(ev.seat, ev.by, [p for p, _, _ in ev.items])
        elif isinstance(ev, Announced):
            self._log.take_act(ev.seat, ev.data)
        elif isinstance(ev, Disputed) and ctx.phase in (Phase.CRYPTO, Phase.PLAY):
            # a card that decodes to nothing: end the round at once; the audit names
            # the cheater (a bad strip, or a false dispute)
            ctx.phase = Phase.END
        elif isinstance(ev, Accused):
            ctx.tell(tev.Info(tev.InfoCode.ACCUSED, {"seat": ev.accuser, "dealer": ev.dealer}))
        elif isinstance(ev, Verdict):  # an accusation settled: stop naming who lied
            raise ev.error

    def begin_round(self) -> None:
        """Start the next round's crypto: who runs which seat, the escrow holders, and
        this node's sessions (protocol/table.md, "Dropped nodes")."""
        ctx, sessions, seats = self._ctx, self._sessions, self._seats
        if not ctx.restoring and not ctx.replaying:
            ctx.catching_up = False
        ctx.number, ctx.phase = ctx.match.round_number, Phase.CRYPTO
        seats.begin_round()
        sessions.begin(ctx.number, seats.holders)
        for machine in (self._deal, self._log, self._clock, self._choices, self._keys,
                        self._inbox, self._end):
            machine.begin()
        if seats.plays_no_seat():
            sessions.primary_seat = OBSERVER
            sessions.by_seat[OBSERVER] = sessions.create(OBSERVER)
        else:
            sessions.primary_seat = ctx.me
            for seat in seats.local_seats():
                sessions.by_seat[seat] = sessions.create(seat)
        sessions.start()
        seats.adopt_taken()
        self._inbox.take_future()
        for early in self._keys.take_future():
            if ctx.failed is not None:
                return
            self._keys.on_ownkey(early.sender, early.body)

    def advance(self) -> None:
        """Take every step that is possible now."""
        ctx, sessions, seats = self._ctx, self._sessions, self._seats
        progress = True
        while progress and ctx.failed is None and not ctx.void and ctx.number:
            if sessions.rebuild:
                sessions.rebuild_observer()
            if seats.recover_gone() or seats.reveal_adopted() or self._keys.step():
                continue
            if ctx.phase is Phase.CRYPTO:
                progress = self._deal_step()
            elif ctx.phase is Phase.PLAY:
                progress = self._play_step() or self._computer.step()
            elif ctx.phase is Phase.END:
                progress = self._end_step()
            else:
                progress = False
        self._clock.crypto_moved()

    def _deal_step(self) -> bool:
        step = self._deal.step()
        if step is DealStep.DISPUTED:
            self._ctx.phase = Phase.END
        elif step is DealStep.DEALT:
            dealt = self._deal.dealt
            assert dealt is not None
            self._log.start(dealt.round, dealt.deck, dealt.round_id)
            self._ctx.phase = Phase.PLAY
            self._ctx.tell(tev.RoundStarted(self._ctx.number, self._deal.dealer))
            self._clock.start_turn(dealt.round.turn)
        return step is not DealStep.WAIT

    def _play_step(self) -> bool:
        result = self._log.step()
        if isinstance(result, Applied):
            self._applied(result)
            return True
        return result

    def _applied(self, a: Applied) -> None:
        """An action was applied: the machines that follow the log hear of it."""
        ctx, rnd = self._ctx, self._log.round
        assert rnd is not None
        self._choices.applied()
        self._clock.after_action(a.seat, a.record, told=self._choices.told)
        self._end.transcript.note(ctx.number.to_bytes(4, "big") + a.data)
        ctx.tell(tev.Applied(a.event, out=a.over))
        if a.over:
            ctx.phase = Phase.END
            self._clock.end_round()
        elif not isinstance(a.event.action, Draw):
            self._clock.start_turn(rnd.turn)

    def _end_step(self) -> bool:
        step = self._end.step()
        if step is EndStep.NEXT:
            self.begin_round()
        return step is not EndStep.WAIT
