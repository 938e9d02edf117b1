"""The controller shared by the solo game and the table client, driven by a real solo
session: what it posts to a screen (lines of a kind, the table as a view model) and what
typed lines come to. (The line-mode output is tested through the real processes.)"""

from __future__ import annotations

from collections.abc import Sequence

from p2p8s.bots.hints import Hint, HintCode
from p2p8s.cards import Rank, Suit
from p2p8s.cli.controller import Act, AskHint, Board, Controller, Kind, Leave, Redraw
from p2p8s.cli.play_cmd import SoloSource
from p2p8s.cli.view import HELP_LINES, Look, action_keys, numbered_hand
from p2p8s.engine import DRAW, Play
from p2p8s.errors import Note
from p2p8s.solo import HUMAN, SoloSession, SoloSettings


class Recorder:
    """A screen that keeps what it is given (the port a full-screen front end fills)."""

    def __init__(self) -> None:
        self.posted: list[tuple[Kind, tuple[str, ...]] | Board] = []

    def said(self, kind: Kind, lines: Sequence[str]) -> None:
        self.posted.append((kind, tuple(lines)))

    def board(self, board: Board) -> None:
        self.posted.append(board)

    def take(self) -> list[tuple[Kind, tuple[str, ...]] | Board]:
        out, self.posted = self.posted, []
        return out


def _game(seed: int, opponents: int = 1) -> tuple[SoloSession, Controller, Recorder]:
    s = SoloSession.new(SoloSettings(opponents=opponents), seed)
    screen = Recorder()
    return s, Controller(SoloSource(s), screen, Look()), screen


def _to_human(s: SoloSession) -> None:
    bots = s.bots()
    while s.round.turn != HUMAN:
        list(s.computer_turn(bots[s.round.turn]))


def test_a_new_decision_posts_the_narration_then_the_board() -> None:
    s, ctl, screen = _game(2)  # seed 2, one opponent: you start and hold A♠ (card 7)
    _to_human(s)
    ctl.refresh()
    first = screen.take()
    assert isinstance(first[0], Board) and first[0].why is Redraw.TURN
    ctl.refresh()
    assert screen.take() == []  # nothing changed: nothing is shown again
    ace = next(a for a in s.legal() if isinstance(a, Play) and a.cards[0].rank == Rank.ACE)
    intent = ctl.typed(action_keys(ace, numbered_hand(s.view().hand)))
    assert intent == Act(ace)
    s.apply(ace)
    ctl.refresh()  # two players: the ace gives you the turn again
    told, board = screen.take()
    assert told == (Kind.NARRATION, ("You played A♠ — you play again.",))
    assert isinstance(board, Board) and board.why is Redraw.TURN
    assert board.view.hand == s.view().hand and len(board.view.hand) == 6
    assert board.playable == {a.cards[0] for a in s.legal() if isinstance(a, Play)}


def test_a_draw_posts_only_the_drawn_card_and_the_hand() -> None:
    s, ctl, screen = _game(27)  # seed 27, one opponent: nothing fits at your first turn
    _to_human(s)
    ctl.refresh()
    screen.take()
    assert ctl.typed("d") == Act(DRAW)
    event = s.apply(DRAW)
    ctl.refresh()
    posted = screen.take()
    assert len(posted) == 1 and isinstance(posted[0], Board)
    assert posted[0].why is Redraw.DREW and posted[0].drew == (event,)


def test_commands_prompts_and_the_suit() -> None:
    s, ctl, screen = _game(1)  # seed 1, one opponent: at your first turn card 1 is 8♣
    _to_human(s)
    ctl.refresh()
    screen.take()
    assert ctl.prompt() is not None and not ctl.prompt().suit  # type: ignore[union-attr]
    assert ctl.typed("help") is None and screen.take() == [(Kind.ANSWER, HELP_LINES)]
    assert ctl.typed("quit") == Leave()
    asked = ctl.typed("hint")
    assert isinstance(asked, AskHint) and asked.asked == (1, len(s.round.log))
    ctl.hint_ready(Hint(action=asked.legal[0], reason=Note.of(HintCode.DRAW)), asked.asked)
    (kind, (line,)), = screen.take()
    assert kind is Kind.HINT and line.startswith("Hint: ")
    assert line.endswith("— Draw: nothing in your hand fits.")
    assert ctl.typed("zz") is None
    assert screen.take() == [(Kind.REFUSAL, (
        "'zz' is not a card number or a command (type help for the list).",))]
    assert ctl.typed("1") is None  # an 8: the suit is asked for
    prompt = ctl.prompt()
    assert prompt is not None and prompt.suit and prompt.text.startswith("Declare a suit")
    assert ctl.typed("x") is None
    assert screen.take() == [(Kind.REFUSAL, ("'x' is not a suit (c, d, h, s; or cancel).",))]
    intent = ctl.typed("h")
    assert isinstance(intent, Act) and intent.action.suit is Suit.HEARTS  # type: ignore[union-attr]
    assert not ctl.prompt().suit  # type: ignore[union-attr]


def test_an_empty_line_shows_the_board_and_says_what_to_type() -> None:
    s, ctl, screen = _game(11, opponents=2)
    _to_human(s)
    ctl.refresh()
    screen.take()
    assert ctl.typed("") is None
    board, said = screen.take()
    assert isinstance(board, Board) and board.why is Redraw.ASKED
    assert said == (Kind.REFUSAL, ("Type a card number, d to draw, hint, or help.",))


def test_a_hint_for_a_decision_that_is_over_comes_too_late() -> None:
    s, ctl, screen = _game(2)
    _to_human(s)
    asked = ctl.typed("hint")
    assert isinstance(asked, AskHint)
    s.apply(asked.legal[0])
    screen.take()
    ctl.hint_ready(Hint(action=asked.legal[0], reason=Note.of(HintCode.PASS)), asked.asked)
    assert screen.take() == [(Kind.NOTICE, ("The hint came too late: that decision is over.",))]
