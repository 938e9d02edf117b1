"""The computer players a node runs, and the deterministic takeover computer (sans-IO).

Three kinds of computer play at a table (R-TIMER, protocol/table.md "Dropped nodes"):

- the computer seats, on the host's node: their personality acts as soon as the seat is
  on turn, seeded from the action chain (public: it starts at the joint round id), so
  that every node replays the move at round end (:mod:`p2p8s.table.botaudit`; the moves
  to replay are noted by :meth:`Computers.vet` in :attr:`Computers.moves`);
- the stand-in (``Max``) for the local person once its turn's deadline passed;
- the takeover computer for a seat taken over: the seat's own personality (``Max`` for a
  person), seeded from the action chain so that every node computes the same move from
  the same log; sent by the node that runs the seat and checked by every node
  (:meth:`Computers.vet`). Its person's signed choice, when one came, is played instead;
  while the person is back the move waits for the choice until the R-TIMER deadline.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence

from p2p8s.bots.base import view_of
from p2p8s.bots.registry import get_bot
from p2p8s.crypto.deck import Position
from p2p8s.engine import Action, Play
from p2p8s.table.actions import ActRecord, Choice
from p2p8s.table.botaudit import BotMove, bot_move, bot_seed
from p2p8s.table.choices import Choices
from p2p8s.table.clock import TurnClock
from p2p8s.table.context import Ctx
from p2p8s.table.errors import TableCode, TableError
from p2p8s.table.log import ActionLog
from p2p8s.table.seats import Seats

#: The computer player that plays for a human seat whose timer ran out (R-TIMER).
STAND_IN = "Max"
TAKEOVER_TAG = b"p2p8s/v1/takeover"
#: the stand-in's own seed: the local person's moves are its node's (not replayed)
STAND_IN_TAG = b"p2p8s/v1/bot"


class Computers:
    """The computer players of this node (see the module docstring). Its timer is the
    turn clock's and the choices' (it acts when they run out)."""

    def __init__(self, ctx: Ctx, seats: Seats, log: ActionLog, clock: TurnClock,
                 choices: Choices) -> None:
        self._ctx = ctx
        self._seats = seats
        self._log = log
        self._clock = clock
        self._choices = choices
        #: round number -> log place -> the computer seat's move to replay at round end
        self.moves: dict[int, dict[int, BotMove]] = {}

    def get_timer(self) -> float | None:
        """The computers act on the clock's and the choices' deadlines."""
        return None

    def step(self) -> bool:
        """Computer seats of this node act; so do seats taken over when this node sends
        for them (their person's signed choice, or the deterministic computer — at once
        while their node is gone, else at the R-TIMER deadline); past the deadline the
        computer plays for the local player. True if an action was sent."""
        ctx, log, seats, clock = self._ctx, self._log, self._seats, self._clock
        rnd = log.round
        assert rnd is not None
        seat = rnd.turn
        if ctx.leaving or not log.ready_to_author(seat):
            return False
        by = seats.author_for(seat)
        if by is None:
            return False
        choice: Choice | None = None
        if seat in seats.bots:
            choice = self._choices.choice_for(seat)
            if choice is not None:
                action = choice.action
            else:
                wait = clock.choice_deadline(seat)
                if wait is not None:
                    if ctx.now < wait:
                        return False  # its person is back: wait for its choice
                    clock.missed.add(seat)  # R-TIMER: the next turns get a short grace
                action = self.takeover_move(seat)
        else:
            if seat == ctx.me:
                if not clock.stand_in_due():
                    return False
                bot = get_bot(STAND_IN)
                action = bot.choose(view_of(rnd, seat, ctx.match), rnd.legal_actions(),
                                    self._stand_in_rng(seat))
            else:
                name = ctx.config.seats[seat].computer
                assert name is not None
                action = bot_move(rnd, seat, name, bot_seed(log.chain, ctx.number,
                                                            log.applied, seat), ctx.match)
        log.author(seat, action, log.positions_for(seat, action, by), by, choice)
        return True

    def takeover_move(self, seat: int, shown: Sequence[Position] = ()) -> Action:
        """The deterministic computer's move for a seat taken over: the seat's own
        computer personality (``Max`` for a person), seeded from the action chain, so
        every node computes the same move from the same log."""
        ctx, log = self._ctx, self._log
        rnd = log.round
        assert rnd is not None
        log.open_hand(seat, shown)
        bot = get_bot(ctx.config.seats[seat].computer or STAND_IN)
        data = (TAKEOVER_TAG + log.chain + ctx.number.to_bytes(4, "big")
                + log.applied.to_bytes(4, "big") + bytes([seat]))
        rng = random.Random(int.from_bytes(hashlib.sha256(data).digest(), "big"))
        legal = rnd.legal_actions()
        orphans = log.orphans(seat)
        if orphans:  # its node showed these cards and went before its Act: play them
            know = log.know
            cards = [know(p) for p in orphans]
            forced: list[Action] = [a for a in legal
                                    if isinstance(a, Play) and list(a.cards) == cards]
            if forced:
                legal = forced
        return bot.choose(view_of(rnd, seat, ctx.match), legal, rng)

    def vet(self, seat: int, record: ActRecord, author: int,
            shown: Sequence[Position]) -> None:
        """The takeover's checks of an action record for ``seat`` sent by ``author``'s
        node: a person's signed choice (:meth:`Choices.check`), or exactly the takeover
        computer's move for a seat taken over on turn; TableError names ``author``."""
        log = self._log
        rnd = log.round
        assert rnd is not None
        bot = self._ctx.config.seats[seat].computer
        if bot is not None and record.choice is None and seat not in self._seats.bots:
            self.moves = {n: m for n, m in self.moves.items() if n == record.round_no}
            self.moves.setdefault(record.round_no, {})[record.index] = BotMove(
                player=seat, bot=bot, index=record.index, prev=record.prev, host=author,
                action=record.action)
        if record.choice is not None:
            self._choices.check(record, author, shown)
        elif seat in self._seats.bots and rnd.turn == seat:
            expected = self.takeover_move(seat, shown)
            if record.action != expected:
                raise TableError(TableCode.TAKEOVER_MOVE, seat=author, peer=author,
                                 player=seat, action=record.action, expected=expected)

    def _stand_in_rng(self, seat: int) -> random.Random:
        ctx = self._ctx
        data = (STAND_IN_TAG + ctx.seed + ctx.number.to_bytes(4, "big")
                + self._log.applied.to_bytes(4, "big") + bytes([seat]))
        return random.Random(int.from_bytes(hashlib.sha256(data).digest(), "big"))
