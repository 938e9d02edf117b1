"""The one narration (p2p8s.cli.words.narration): read from the effect the engine
recorded, said the same by the solo game and the friends' table."""

from __future__ import annotations

import doctest

import pytest

import p2p8s.cli.words.narration
from p2p8s.cli import words
from p2p8s.cli.table_view import applied_line
from p2p8s.cli.view import Look
from p2p8s.cli.words import Speaker, narration
from p2p8s.rules import Ruleset
from p2p8s.table import events as tev

from .conftest import engine_event


def test_doctests() -> None:
    result = doctest.testmod(p2p8s.cli.words.narration)
    assert result.failed == 0 and result.attempted > 0


def test_every_piece_has_words() -> None:
    assert words.missing(narration.Said) == []


@pytest.mark.parametrize(("players", "seat", "play", "told"), [
    # issue #10: Bea's Q♠ Q♥ against Ann gives Ann the turn (R-NEXT: three steps); the
    # table's sentence said "you miss a turn"
    (2, 1, "QS QH", "Bea played Q♠ Q♥ — two skips go round the table: you play next."),
    (2, 0, "QS QH", "You played Q♠ Q♥ — two skips go round the table: Bea plays next."),
    (2, 1, "AS AH AD", "Bea played A♠ A♥ A♦ — three skips go round the table: Bea plays "
                       "again."),
    (2, 1, "QS", "Bea played Q♠ — Bea plays again."),
    (3, 1, "QS QH", "Bea played Q♠ Q♥ — Cem and you miss a turn: Bea plays again."),
    (3, 2, "QS QH QD", "Cem played Q♠ Q♥ Q♦ — three skips go round the table: you play "
                       "next."),
    (3, 0, "AS", "You played A♠ — reverse: play now goes counter-clockwise."),
    (3, 0, "AS AH", "You played A♠ A♥ — reversed twice, same direction."),
    (3, 1, "2S 2H", "Bea played 2♠ 2♥ — draw penalty 4 for Cem."),
])
def test_the_table_and_the_solo_game_say_what_the_engine_did(players: int, seat: int,
                                                            play: str, told: str) -> None:
    names = ("Ann", "Bea", "Cem")[:players]
    event = engine_event(players, seat, play)
    assert narration.turn_line([event], Speaker(names, 0, Look()), rules=Ruleset()) == told
    applied = applied_line(tev.Applied(event, out=False), Speaker(names, 0, Look()), Ruleset())
    assert applied == told  # the table client says the same sentence


def test_a_reverse_says_the_direction_it_leaves() -> None:
    event = engine_event(3, 0, "AS", direction=-1)
    assert event.direction == 1
    assert narration.turn_line([event], Speaker(("Ann", "Bea", "Cem"), 0, Look()),
                               rules=Ruleset()).endswith("play now goes clockwise.")
