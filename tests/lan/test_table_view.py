"""The table client's own lines (the rest is the solo client's rendering, tested there)."""

from __future__ import annotations

import io
from typing import cast

from p2p8s.cards import Card, Suit
from p2p8s.cli.table_view import AUDIT_OK, TableScreen, audit_line, seats_line
from p2p8s.cli.terminal import Terminal
from p2p8s.engine import Play
from p2p8s.table import Table
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

    def view(self) -> None:
        return None


def _screen() -> tuple[TableScreen, io.StringIO]:
    out = io.StringIO()
    return TableScreen(Terminal(out, io.StringIO()), me=0), out


def test_a_bad_suit_is_said_and_asked_again() -> None:
    screen, out = _screen()
    screen._suit_for = [Card.parse("8S")]
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
                    reason=note(LinkCode.GONE_LOST, reason="connection closed"))
    text = out.getvalue()
    assert "audit: every card checked ok" in text and "✓" not in text
    assert "Bob (seat 1) left the table." in text
    assert "Lost the connection to Cat (seat 2) (connection closed)." in text
    screen.presence(2, "Cat", connected=True, reason=note(LinkCode.BACK, moved=None))
    assert "Cat (seat 2) is back (reconnected)." in out.getvalue()


def test_the_seats_line_says_who_the_computer_plays_for() -> None:
    line = seats_line(["Ann", "Bob", "Cat"], 0, computers={}, gone={1: "closed"}, host="Ann",
                      taken=frozenset({1, 2}))
    assert line == ("Seats: Ann (you) · Bob (gone; the computer plays, hand open) · "
                    "Cat (back; the computer plays, hand open)")
