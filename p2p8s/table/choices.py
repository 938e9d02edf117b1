"""Signed choices: a person plays its seat again while it is still taken over (sans-IO).

A returning player (protocol/table.md, "Coming back") plays its seat again from its next
turn: while the seat is still run by the takeover computer, its own node offers the turn
(:meth:`Choices.choosing`) and sends the person's action as a ``choice`` payload signed
with the node's identity key (:meth:`Choices.choose`). The node sending the seat's
actions carries the choice out inside the action record (:meth:`Choices.choice_for`), or
plays the computer's move at the R-TIMER deadline (:meth:`Choices.get_timer`); every
node checks an embedded choice's signature, place in the log and legality
(:meth:`Choices.check`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from p2p8s.crypto.deck import Position
from p2p8s.engine import Action
from p2p8s.errors import IllegalAction, LocalError
from p2p8s.table import events as tev
from p2p8s.table.actions import CHOICE, ActRecord, Choice
from p2p8s.table.clock import TurnClock
from p2p8s.table.context import MAX_AHEAD, Ctx, Phase
from p2p8s.table.decoding import BadPayload
from p2p8s.table.errors import RuleBroken, TableCode, TableError
from p2p8s.table.events import InfoCode
from p2p8s.table.log import ActionLog
from p2p8s.table.seats import Seats


class Choices:
    """The signed choices of people whose seat is taken over (see the module docstring)."""

    def __init__(self, ctx: Ctx, seats: Seats, log: ActionLog, clock: TurnClock) -> None:
        self._ctx = ctx
        self._seats = seats
        self._log = log
        self._clock = clock
        self.begin()

    def begin(self) -> None:
        """A new round: no choice made."""
        #: signed choices of people whose seat is taken over, by log index (the first
        #: one for an index counts); ``chose``: the last index this node's person chose
        #: for; ``told``: the person was told it plays its seat again
        self.by_index: dict[int, Choice] = {}
        self.chose = -1
        self.told = False

    def get_timer(self) -> float | None:
        """The deadline this node waits for a person's choice until (it sends the
        actions of the seat on turn, taken over), or ``None``."""
        ctx, log, seats = self._ctx, self._log, self._seats
        rnd = log.round
        if ctx.number == 0 or rnd is None or ctx.leaving or ctx.phase is not Phase.PLAY:
            return None
        seat = rnd.turn
        if (seat not in seats.bots or not log.ready_to_author(seat)
                or seats.author_for(seat) is None or log.applied in self.by_index):
            return None
        return self._clock.choice_deadline(seat)

    def choosing(self) -> bool:
        """This node's seat is taken over, on turn, and its person may choose now."""
        ctx, log, seats = self._ctx, self._log, self._seats
        return (ctx.number != 0 and not ctx.restoring and ctx.me in seats.bots
                and self.chose < log.applied and log.ready_to_author(ctx.me)
                and seats.home_back(ctx.me))

    def choose(self, action: Action) -> None:
        """Send the local person's signed choice for its seat taken over (kind 8)."""
        ctx, log = self._ctx, self._log
        assert ctx.sign is not None
        choice = Choice(round_no=ctx.number, index=log.applied, prev=log.chain, seat=ctx.me,
                        action=action)
        signature = ctx.sign(choice.signed_bytes(ctx.config.table))
        if len(signature) != 64:
            raise LocalError(TableCode.NO_SIGNATURE)
        choice = dataclasses.replace(choice, signature=signature)
        self.chose = log.applied
        self.by_index.setdefault(log.applied, choice)
        ctx.send(CHOICE, choice.encode())

    def ready(self) -> None:
        """When the local person may choose for its seat taken over: open its hand in
        the engine (for ``view`` / ``legal_actions``) and tell it once a round. Raises
        TableError when its open hand does not fit the game."""
        ctx = self._ctx
        if ctx.failed is not None or ctx.number == 0 or not self.choosing():
            return
        self._log.open_hand(ctx.me, ())
        if not self.told:
            self.told = True
            ctx.tell(tev.Info(InfoCode.PLAYS_AGAIN))

    def applied(self) -> None:
        """An action was applied: choices for places of the log now past are stale."""
        applied = self._log.applied
        self.by_index = {i: c for i, c in self.by_index.items() if i >= applied}

    def on_choice(self, sender: int, body: bytes) -> None:
        """A person's signed choice for its seat taken over: kept for its log index
        (the node sending the seat's actions carries it out); a choice for a place of the
        log already past, or another round, is stale and ignored. Raises TableError
        naming ``sender`` for one that is not its own or not signed by its key."""
        ctx, log = self._ctx, self._log
        try:
            choice = Choice.decode(body)
        except BadPayload as e:
            raise TableError(TableCode.MALFORMED, seat=sender, peer=sender, cause=e) from None
        seat, config = choice.seat, ctx.config
        if (seat >= config.players or config.computer(seat)
                or config.node_of(seat) != sender):
            raise TableError(TableCode.CHOICE_NOT_OWN, seat=sender, peer=sender, claimed=seat)
        if not choice.verify(config.table, config.seats[seat].key):
            raise TableError(TableCode.CHOICE_UNSIGNED, seat=sender, peer=sender)
        if (ctx.number == 0 or choice.round_no != ctx.number or choice.index < log.applied
                or choice.index <= log.authored):
            return  # stale: that place of the log is taken (by the computer's move)
        if choice.index > log.applied + MAX_AHEAD or len(self.by_index) >= MAX_AHEAD:
            return  # far ahead of this node's log: it cannot be the one sending it
        self.by_index.setdefault(choice.index, choice)
        if sender == ctx.me:  # restoring: this node's person chose there already
            self.chose = max(self.chose, choice.index)

    def choice_for(self, seat: int) -> Choice | None:
        """The choice of ``seat``'s person for the next place of the log, checked
        against the log and the engine (a wrong one: TableError naming its node)."""
        ctx, log = self._ctx, self._log
        choice = self.by_index.get(log.applied)
        if choice is None:
            return None
        rnd = log.round
        assert rnd is not None
        home = ctx.config.node_of(choice.seat)
        if choice.seat != seat:
            raise TableError(TableCode.CHOICE_PLACE, seat=home, peer=home, index=choice.index,
                             player=seat)
        if choice.prev != log.chain:
            raise TableError(TableCode.CHOICE_NOT_FOLLOWING, seat=home, peer=home)
        log.open_hand(seat, ())
        try:
            rnd.check(choice.action)
        except IllegalAction as e:
            raise RuleBroken(TableCode.ILLEGAL_CHOICE, seat=home, rule=e.rule, peer=home,
                             action=choice.action, cause=e) from None
        return choice

    def check(self, record: ActRecord, author: int, shown: Sequence[Position]) -> None:
        """An action for a seat taken over that carries its person's choice: the choice
        must be signed by the seat's key and name exactly this record (round, index,
        prev, seat, action); TableError names the node that sent it. The engine check
        of the action follows in the log."""
        ctx = self._ctx
        choice = record.choice
        assert choice is not None
        seat = record.seat
        if seat not in self._seats.bots or ctx.config.computer(seat):
            raise TableError(TableCode.CHOICE_NOT_TAKEN, seat=author, peer=author, player=seat)
        if ((choice.round_no, choice.index, choice.prev, choice.seat, choice.action)
                != (record.round_no, record.index, record.prev, seat, record.action)):
            raise TableError(TableCode.CHOICE_OTHER, seat=author, peer=author, player=seat,
                             action=record.action)
        if not choice.verify(ctx.config.table, ctx.config.seats[seat].key):
            raise TableError(TableCode.CHOICE_FORGED, seat=author, peer=author, player=seat,
                             action=record.action)
        self._log.open_hand(seat, shown)
