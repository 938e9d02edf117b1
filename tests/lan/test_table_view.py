"""The table client's own lines (the rest is the solo client's rendering, tested there)."""

from __future__ import annotations

from p2p8s.cli.table_view import AUDIT_OK, audit_line, seats_line


def test_the_audit_line_names_the_cheater_or_checks_every_card() -> None:
    assert audit_line(True, "audit passed: ...") == AUDIT_OK == "audit: every card checked ✓"
    assert (audit_line(False, "audit failed: Bob (seat 1) showed a card it never held")
            == "audit FAILED — Bob (seat 1) showed a card it never held")


def test_the_seats_line_says_who_is_connected() -> None:
    line = seats_line(["Ann", "Bob", "Cat", "Vera"], 1, computers={3: "Vera"},
                      gone={2: "connection closed"}, host="Ann")
    assert line == ("Seats: Ann (connected) · Bob (you) · Cat (gone) · "
                    "Vera (computer, on Ann's node)")
