"""The table client's own lines (the rest is the solo client's rendering, tested there)."""

from __future__ import annotations

import io
from typing import cast

import pytest

from p2p8s.bots.base import View
from p2p8s.cards import Card, Rank, Suit
from p2p8s.cli.moves import NeedSuit
from p2p8s.cli.table_view import AUDIT_OK, TableScreen, audit_line, seats_line
from p2p8s.cli.terminal import ASCII_PUNCTUATION, Terminal
from p2p8s.cli.view import Look, action_keys, numbered_hand, playable_cards, render_hand
from p2p8s.cli.words import Speaker, narration
from p2p8s.engine import Action, Draw, Pass, Play, Take
from p2p8s.net.node import NetCode, Reason
from p2p8s.table import Table
from p2p8s.table.harness import TableNet, make_config
from p2p8s.table.linkout import LinkCode, note


def test_the_audit_line_names_the_cheater_or_checks_every_card() -> None:
    assert audit_line(True, "audit passed: ...") == AUDIT_OK == "audit: every card checked ✓"
    assert (audit_line(False, "audit failed: Bob (seat 1) showed a card it never held")
            == "audit FAILED — Bob (seat 1) showed a card it never held")


def test_the_seats_line_says_who_is_connected() -> None:
    line = seats_line(["Ann", "Bob", "Cat", "Vera"], 1, computers={3: "Vera"},
                      gone={2: "connection closed"}, host="Ann")
    assert line == ("Seats: Ann (connected) · Bob (you) · Cat (gone) · "
                    "Vera (computer, on Ann's node)")


class _NoTable:
    """A table between deals: no view, not this seat's turn."""

    my_turn = False
    round = None

    def view(self) -> None:
        return None


def _screen() -> tuple[TableScreen, io.StringIO]:
    out = io.StringIO()
    return TableScreen(Terminal(out, io.StringIO()), me=0), out


def test_a_bad_suit_is_said_and_asked_again() -> None:
    screen, out = _screen()
    screen.ctl.asking = NeedSuit((Card.parse("8S"),))
    table = cast(Table, _NoTable())
    assert screen.typed(table, "x", 0.0) is None
    assert "'x' is not a suit (c, d, h, s; or cancel)." in out.getvalue()
    assert out.getvalue().rstrip().endswith("or cancel):")  # asked again
    assert screen.typed(table, "h", 0.0) == Play((Card.parse("8S"),), Suit.HEARTS)


def test_long_typed_lines_are_not_echoed_whole() -> None:
    screen, out = _screen()
    screen.typed(cast(Table, _NoTable()), "q" * 100_000, 0.0)
    assert max(len(line) for line in out.getvalue().splitlines()) < 100


def test_ascii_mode_writes_no_tick_and_a_lost_player_line_says_the_reason_once() -> None:
    out = io.StringIO()
    screen = TableScreen(Terminal(out, io.StringIO(), ascii=True), me=0)
    screen.say(AUDIT_OK)
    screen.presence(1, "Bob", connected=False, reason=note(LinkCode.GONE_LEFT))
    screen.presence(2, "Cat", connected=False,
                    reason=note(LinkCode.GONE_LOST, reason=Reason(NetCode.CONNECTION_CLOSED)))
    text = out.getvalue()
    assert "audit: every card checked ok" in text and "✓" not in text
    assert "Bob (seat 1) left the table." in text
    assert "Lost the connection to Cat (seat 2): connection closed." in text
    screen.presence(2, "Cat", connected=True, reason=note(LinkCode.BACK, moved=None))
    assert "Cat (seat 2) is back (reconnected)." in out.getvalue()


def test_the_seats_line_says_who_the_computer_plays_for() -> None:
    line = seats_line(["Ann", "Bob", "Cat"], 0, computers={}, gone={1: "closed"}, host="Ann",
                      taken=frozenset({1, 2}), back=frozenset({2}))
    assert line == ("Seats: Ann (you) · Bob (gone; the computer plays, hand open) · "
                    "Cat (back; plays again, hand open)")
    # a seat taken over whose node this screen never saw come back: it left
    line = seats_line(["Ann", "Bob"], 0, computers={}, gone={}, host="Ann",
                      taken=frozenset({1}))
    assert line == "Seats: Ann (you) · Bob (left; the computer plays, hand open)"


# ---------------------------------------------------------------- a real table, in memory


class _Person:
    """The runner's side of one node, in memory: the screen is shown every event of
    seat ``me``'s node and asked for the turn when the decision changes, as the runner
    does (``decision_point``); a typed line's action is acted on the node."""

    def __init__(self, net: TableNet, me: int = 0) -> None:
        self.net, self.me = net, me
        self.node = net.nodes[me]
        self.out = io.StringIO()
        self.screen = TableScreen(Terminal(self.out, io.StringIO()), me=me)
        self.screen.started(self.node, net.config, log=None, auto=None)
        self.seen = 0
        self.decision: tuple[int, int, int, int] | None = None

    def feed(self) -> None:
        events = self.net.events[self.me][self.seen:]
        self.seen += len(events)
        if events:
            self.screen.show(self.node, events, self.net.now)
        view = self.node.view()
        if self.node.my_turn and view is not None:
            key = (self.node.round_number, len(view.log), view.drawn, view.pending_draw)
            if key != self.decision:
                self.decision = key
                self.screen.turn(self.node, self.net.now)

    def type(self, line: str) -> Action | None:
        answer = self.screen.typed(self.node, line, self.net.now)
        if isinstance(answer, (Play, Draw, Pass, Take)):
            self.net.inject(self.me, lambda node: node.act(answer, self.net.now))
            self.net.deliver_all()
            self.feed()
            return answer
        return None


def _again_play(view: View, legal: list[Action]) -> Play | None:
    """A legal play of queens or aces that does not go out (two players: you again)."""
    for a in legal:
        if (isinstance(a, Play) and a.cards[-1].rank in (Rank.QUEEN, Rank.ACE)
                and len(a.cards) < len(view.hand)):
            return a
    return None


def _table_until_again() -> tuple[_Person, Play]:
    """A two-person table (in memory, real crypto) played until seat 0 can play a Q or
    an A that gives it the turn again; seat 0 types its moves, seat 1's node plays."""
    for n in range(12):
        net = TableNet(make_config(2, target=1), seed=b"again%d" % n, idle=(0,))
        net.start()
        net.deliver_all()
        person = _Person(net)
        for _ in range(500):
            person.feed()
            node = person.node
            if node.round is None or node.round.over:
                break
            if not node.my_turn:
                net.step()
                continue
            view = node.view()
            assert view is not None
            legal = node.legal_actions()
            again = _again_play(view, legal)
            if again is not None:
                return person, again
            action = next((a for a in legal if not isinstance(a, Play) or a.suit is None),
                          legal[0])
            assert person.type(action_keys(action, numbered_hand(view.hand))) == action
    pytest.fail("no seed gave seat 0 a queen or an ace")


def test_a_play_that_gives_you_the_turn_again_redraws_the_table_screen() -> None:
    person, again = _table_until_again()
    view = person.node.view()
    assert view is not None
    keys = action_keys(again, numbered_hand(view.hand))
    person.out.seek(0)
    person.out.truncate()
    assert person.type(keys) == again
    node = person.node
    assert node.my_turn  # the engine gives seat 0 the turn again
    after = node.view()
    assert after is not None
    event = after.log[-1]
    text = person.out.getvalue()
    told = narration.turn_line([event], Speaker(person.screen.names, 0, Look(ascii=True)),
                               rules=after.rules).translate(ASCII_PUNCTUATION)
    assert "you play again" in told
    # told at once, then the table and the hand as it is now, then the prompt
    assert text.startswith(f"{keys}\n{told}\n\n")
    hand = render_hand(after.hand, playable_cards(after, node.legal_actions()),
                       Look(ascii=True))
    lines = [line.translate(ASCII_PUNCTUATION) for line in hand]
    assert "\n".join(lines) in text
    assert text.index("\n".join(lines)) < text.index("Your move (")
    assert text.count("Your move (") == 1


def test_an_empty_enter_redraws_the_table_screen() -> None:
    person, _ = _table_until_again()
    person.out.seek(0)
    person.out.truncate()
    assert person.type("") is None
    text = person.out.getvalue()
    assert text.startswith("\n\n-- Round 1 ") and "Seats: Ann (you) | Bea (connected)" in text
    assert text.index("Your hand (") < text.index("Type a card number, d to draw, hint, or help.")
    assert text.rstrip().endswith("s left]:")  # and the prompt again
