"""One controller for the person at a game, solo or at the friends' table.

The solo game (:class:`~p2p8s.cli.play_cmd.SoloGame`) and the table client
(:class:`~p2p8s.cli.table_view.TableScreen`) differ in where the game lives (a
:class:`~p2p8s.solo.SoloSession` in this process; a replicated
:class:`~p2p8s.table.Table` driven by the runner) and in how input arrives (a blocking
prompt; lines handed over by the runner). Everything between is here, once:

- reading what is typed (:meth:`Controller.typed`): card numbers or names, several
  cards, a suit, ``d``/``p``/``t``, the commands ``hint rules score log help quit``, the
  suit prompt, and an empty line (it redraws the table);
- telling what happened (:meth:`Controller.refresh`, :meth:`Controller.narrate`): one
  sentence per completed turn (:mod:`p2p8s.cli.words.narration`), the coach's remarks,
  and the table again whenever the decision changed — so every change of state is on
  screen before the next prompt and the hand's numbers are the ones a typed number
  picks;
- the prompt to show (:meth:`Controller.prompt`).

The controller reads the game through a :class:`Source` and writes to a
:class:`Screen` as data — kinds of lines (:class:`Kind`) and :class:`Board` view models
— that the line-mode fronts render (:func:`board_lines`) and a full-screen front end
would show in its widgets. What the person decided comes back as an :data:`Intent`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from p2p8s.bots.base import View
from p2p8s.bots.hints import Hint
from p2p8s.cards import Card, Suit
from p2p8s.cli import view as v
from p2p8s.cli.look import Look
from p2p8s.cli.moves import (
    CANCEL,
    NOTHING_TO_DECIDE,
    SUIT_PROMPT,
    Command,
    NeedChoice,
    NeedSuit,
    card_message,
    choice_prompt,
    choice_retry,
    drew_line,
    hint_line,
    move_prompt,
    read_choice,
    read_move,
    read_suit,
    sentence,
    suit_retry,
    word_of,
)
from p2p8s.cli.words import Speaker
from p2p8s.cli.words import narration as nar
from p2p8s.coach import Coach
from p2p8s.engine import Action, Draw, Event, Play, Round
from p2p8s.errors import Error, IllegalAction, MalformedInput, Note
from p2p8s.match import Match
from p2p8s.ruletable import Declare

# --------------------------------------------------------------------------- data out


class Kind(StrEnum):
    """What a line said to the person is."""

    NARRATION = "narration"  #: a completed turn
    ANSWER = "answer"  #: the answer to a command (help, rules, score, log)
    REFUSAL = "refusal"  #: typed input that is not a legal move, and why
    HINT = "hint"  #: the expert's suggestion
    COACH = "coach"  #: the coach's remark (first round ever only)
    NOTICE = "notice"  #: anything else (wait for your turn, a hint came too late)


class Redraw(StrEnum):
    """Why the table is shown again."""

    TURN = "turn"  #: a new decision for the person (a new turn, or the turn again)
    DREW = "drew"  #: the person drew and the same turn goes on: the drawn cards and hand
    ASKED = "asked"  #: the person pressed Enter on an empty line
    START = "start"  #: a round starts and the computer plays the person's seat


@dataclass(frozen=True, slots=True, kw_only=True)
class Board:
    """The table as the person sees it now: ``view`` (hand, seats, top card, log), seat
    ``names``, the round's ``number``, the cards that may start a play (``playable``,
    empty when it is not the person's decision), ``why`` it is shown and, for
    :attr:`Redraw.DREW`, the person's draw events (``drew``) since it was last shown."""

    view: View
    names: tuple[str, ...]
    number: int
    playable: frozenset[Card]
    why: Redraw
    drew: tuple[Event, ...] = ()


@dataclass(frozen=True, slots=True)
class Prompt:
    """What the person is asked: ``text`` without the closing ``": "``; ``suit``: the
    suit prompt or the choice prompt of a declared choice (else the move prompt, to which
    a table adds the seconds left)."""

    text: str
    suit: bool = False


@dataclass(frozen=True, slots=True)
class Act:
    """The person's action: legal now (checked against the engine)."""

    action: Action


@dataclass(frozen=True, slots=True)
class Leave:
    """The person typed quit."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AskHint:
    """The person asked for a hint on the decision ``asked``: think it out (at once, or
    off the event loop) from ``view`` and ``legal``, then :meth:`Controller.hint_ready`."""

    view: View
    legal: tuple[Action, ...]
    asked: tuple[int, int]


#: What a typed line comes to (None: it was answered on screen, nothing to do).
Intent = Act | Leave | AskHint | None


# --------------------------------------------------------------------------- ports


class Source(Protocol):
    """The game as the controller reads it, for the person at seat ``me``."""

    @property
    def names(self) -> Sequence[str]:
        """Seat names."""

    @property
    def me(self) -> int:
        """The person's seat."""

    @property
    def number(self) -> int:
        """The round being played (1-based)."""

    def view(self) -> View | None:
        """What the person sees now (None between deals)."""

    def round(self) -> Round | None:
        """The round, to check typed moves against (None between deals)."""

    def legal(self) -> list[Action]:
        """The person's legal actions now (empty when it is not their decision)."""

    def my_turn(self) -> bool:
        """True when the person decides now."""

    def match(self) -> Match | None:
        """The match so far."""

    def waiting(self) -> str:
        """Why typed moves are not taken now (only asked when it is not ``my_turn``)."""


class Screen(Protocol):
    """Where the controller's output goes (line mode prints it; a full-screen front end
    puts it in widgets)."""

    def said(self, kind: Kind, lines: Sequence[str]) -> None:
        """Lines for the person."""

    def board(self, board: Board) -> None:
        """Show the table."""


# --------------------------------------------------------------------------- rendering


def board_lines(board: Board, look: Look, *, extras: Sequence[str] = ()) -> list[str]:
    """A :class:`Board` in line mode: after a draw the drawn cards and the hand, else a
    blank line (not at a round's start), the table with ``extras`` under its heading
    (the friends' table: who sits where, open hands) and the hand."""
    view = board.view
    hand = v.render_hand(view.hand, set(board.playable), look)
    if board.why is Redraw.DREW:
        drew = [drew_line(e.drawn[0] if e.drawn else None, look, reshuffled=bool(e.reshuffled))
                for e in board.drew]
        return [*drew, *hand]
    head, *table = v.render_table(view, board.names, look, round_number=board.number)
    gap = [] if board.why is Redraw.START else [""]
    return [*gap, head, *extras, *table, *hand]


# --------------------------------------------------------------------------- the controller


class Controller:
    """Reads what the person types and tells them what happens, for ``source`` on
    ``screen`` in the ``look``'s style. ``coach`` (or None) remarks on the person's
    first round; the answer to ``help`` is :func:`~p2p8s.cli.view.help_lines` for the
    rules in play, its last line replaced by ``help_tail`` when given."""

    def __init__(self, source: Source, screen: Screen, look: Look, *,
                 coach: Coach | None = None, help_tail: Sequence[str] | None = None) -> None:
        self.source = source
        self.screen = screen
        self.look = look
        self.coach = coach
        self.help_tail = tuple(help_tail) if help_tail is not None else None
        self._explainer = Coach()
        #: a wild play waits for a suit, or a play for its declared choice (RULES.md §11)
        self.asking: NeedSuit | NeedChoice | None = None
        self._told = 0  # turns narrated this round
        self.told_events = 0  #: events of this round covered by the narration
        self._board_at: int | None = None  # log length when the board was last shown

    # ------------------------------------------------------------------ words

    @property
    def speaker(self) -> Speaker:
        """Who is spoken to: the seat names, the person's seat, the look."""
        return Speaker(tuple(self.source.names), self.source.me, self.look)

    def words(self, said: Error | Note | str) -> str:
        """The one place a text of the core (an error, a hint's reason, a coach's remark)
        becomes the words shown: an error as a sentence, every card in this look."""
        if isinstance(said, Error):
            return sentence(card_message(self.speaker.error(said), self.look.card))
        if isinstance(said, Note):
            return self.speaker.note(said)
        return card_message(said, self.look.card)

    def say(self, kind: Kind, *lines: str) -> None:
        """Lines for the person."""
        if lines:
            self.screen.said(kind, lines)

    # ------------------------------------------------------------------ the round

    def new_round(self) -> None:
        """A round was dealt: nothing of it is told or shown yet."""
        self._told = self.told_events = 0
        self._board_at = None
        self.asking = None

    def skip_narration(self) -> None:
        """Count the round's turns so far as told (they are in the table's "Last
        moves", e.g. when a match is resumed)."""
        view = self.source.view()
        log = view.log if view is not None else ()
        turns = nar.group_turns(log)
        self._told = nar.completed_turns(log)
        self.told_events = sum(len(t) for t in turns[:self._told])

    def narrate(self) -> None:
        """Tell the turns completed since the last call, one sentence each, and what the
        coach says about them (not about the play that ended the round)."""
        view = self.source.view()
        if view is None:
            return
        turns = nar.group_turns(view.log)
        done = nar.completed_turns(view.log)
        sp = self.speaker
        for i in range(self._told, done):
            self.say(Kind.NARRATION, nar.turn_line(turns[i], sp, rules=view.rules))
            ended = i == len(turns) - 1 and turns[i][-1].next_turn is None
            if self.coach is not None and not ended:
                remarks = self.coach.on_turns(view, [turns[i]])
                self.say(Kind.COACH, *(self.words(r) for r in remarks))
        if done > self._told:
            self._told = done
            self.told_events = sum(len(t) for t in turns[:done])

    def refresh(self) -> None:
        """Before a prompt: tell what happened, and when the person's decision is a new
        one, show the table again (only the drawn cards and the hand when the person's
        own draw is all that changed) and the coach's advice on it."""
        self.narrate()
        view = self.source.view()
        if view is None or not self.source.my_turn() or self.asking is not None:
            return
        at = len(view.log)
        if at == self._board_at:
            return
        new = view.log[self._board_at or 0:]
        own_draws = (self._board_at is not None and bool(new)
                     and all(e.seat == view.seat and isinstance(e.action, Draw) for e in new))
        self._show(view, Redraw.DREW if own_draws else Redraw.TURN,
                   drew=tuple(new) if own_draws else ())
        if self.coach is not None:
            lines = self.coach.before_move(view, self.source.legal())
            self.say(Kind.COACH, *(self.words(x) for x in lines))

    def show_board(self, why: Redraw = Redraw.ASKED) -> None:
        """Show the table now (if there is one)."""
        view = self.source.view()
        if view is not None:
            self._show(view, why)

    def _show(self, view: View, why: Redraw, *, drew: tuple[Event, ...] = ()) -> None:
        mine = self.source.my_turn()
        playable = frozenset(v.playable_cards(view, self.source.legal())) if mine else frozenset()
        self.screen.board(Board(view=view, names=tuple(self.source.names),
                                number=self.source.number, playable=playable, why=why,
                                drew=drew))
        if mine:
            self._board_at = len(view.log)

    def prompt(self) -> Prompt | None:
        """The prompt to show now (None: the person has nothing to answer)."""
        if isinstance(self.asking, NeedChoice):
            return Prompt(choice_prompt(self.asking.options), suit=True)
        if self.asking is not None:
            return Prompt(SUIT_PROMPT.removesuffix(": "), suit=True)
        view = self.source.view()
        if view is None or not self.source.my_turn():
            return None
        return Prompt(move_prompt(view, self.source.legal()))

    # ------------------------------------------------------------------ input

    def typed(self, line: str) -> Intent:
        """A line the person typed: an action to carry out, a wish to leave, a hint to
        think out, or None (answered on screen)."""
        if not line.strip():
            self.show_board()  # an empty Enter redraws the table; then, if a move or a
            if self.asking is None and not self.source.my_turn():  # suit is asked
                return None  # for, it is answered as the empty answer it is
        if isinstance(self.asking, NeedChoice):
            return self._choice_answer(line, self.asking)
        if self.asking is not None:
            return self._suit_answer(line)
        command = word_of(line)
        if isinstance(command, Command):
            return self.command(command)
        view = self.source.view()
        rnd = self.source.round()
        if view is None or rnd is None or not self.source.my_turn():
            self.say(Kind.NOTICE, self.source.waiting())
            return None
        try:
            move = read_move(line, rnd, view, coach=self.coach or self._explainer)
        except (MalformedInput, IllegalAction) as exc:
            self.say(Kind.REFUSAL, self.words(exc))
            return None
        if isinstance(move, Command):
            return self.command(move)
        if isinstance(move, NeedSuit | NeedChoice):
            self.asking = move
            return None
        return Act(move)

    def _choice_answer(self, line: str, asked: NeedChoice) -> Intent:
        choice = read_choice(line, asked.options)
        if choice is CANCEL:
            self.asking = None
            return None
        if choice is False:
            self.say(Kind.REFUSAL, choice_retry(line, asked.options))
            return None
        self.asking = None
        declare = choice if isinstance(choice, Declare) else None
        return self._checked(Play(asked.cards, asked.suit, declare))

    def _checked(self, play: Play) -> Intent:
        """``play`` once the engine accepts it (the state may have moved on)."""
        rnd = self.source.round()
        if rnd is not None:
            try:
                rnd.check(play)
            except IllegalAction as exc:
                self.say(Kind.REFUSAL, self.words(exc))
                return None
        return Act(play)

    def _suit_answer(self, line: str) -> Intent:
        assert isinstance(self.asking, NeedSuit)
        cards = self.asking.cards
        suit = read_suit(line)
        if suit is CANCEL:
            self.asking = None
            return None
        if not isinstance(suit, Suit):
            self.say(Kind.REFUSAL, suit_retry(line))
            return None
        self.asking = None
        return self._checked(Play(cards, suit))

    def command(self, cmd: Command) -> Intent:
        """Run a command that is not a move (``hint`` asks to think one out)."""
        src = self.source
        view = src.view()
        if cmd.name == "quit":
            return Leave()
        if cmd.name == "help":
            lines = v.help_lines(view.rules) if view is not None else v.HELP_LINES
            if self.help_tail is not None:
                lines = (*lines[:-1], *self.help_tail)
            self.say(Kind.ANSWER, *lines)
        elif cmd.name == "rules" and view is not None:
            self.say(Kind.ANSWER, *v.rules_lines(view.rules, view.players))
        elif cmd.name == "score":
            match = src.match()
            if match is not None:
                self.say(Kind.ANSWER, *v.render_scores(match, src.names, self.look))
        elif cmd.name == "log" and view is not None:
            self.say(Kind.ANSWER, *v.render_round_log(view, src.names, self.look,
                                                      number=src.number))
        elif cmd.name == "hint":
            legal = src.legal()
            if view is None or not legal or not src.my_turn():
                self.say(Kind.NOTICE, NOTHING_TO_DECIDE)
                return None
            return AskHint(view=view, legal=tuple(legal), asked=self.decision(view))
        return None

    def decision(self, view: View) -> tuple[int, int]:
        """What tells one decision from the next: the round and the actions applied in
        it so far (a hint is for one of them)."""
        return (self.source.number, len(view.log))

    def hint_ready(self, h: Hint, asked: tuple[int, int]) -> None:
        """Say the hint thought out for the decision ``asked``, if it still stands."""
        view = self.source.view()
        if view is not None and self.source.my_turn() and self.decision(view) == asked:
            self.say(Kind.HINT, hint_line(h, view.hand, self.look, names=self.source.names))
        else:
            self.say(Kind.NOTICE, "The hint came too late: that decision is over.")


__all__ = ["Act", "AskHint", "Board", "Controller", "Intent", "Kind", "Leave", "Prompt",
           "Redraw", "Screen", "Source", "board_lines"]
