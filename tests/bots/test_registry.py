"""The registry: names, descriptions, errors (the solo client's interface)."""

from __future__ import annotations

import pytest

from p2p8s.bots import REGULARS, describe, get_bot
from p2p8s.bots.arena import ArenaCode
from p2p8s.bots.registry import BotCode
from p2p8s.cli import words
from p2p8s.cli.words import PLAIN
from p2p8s.errors import MalformedInput


def test_at_least_four_regulars_with_descriptions() -> None:
    assert len(REGULARS) >= 4
    for name in (*REGULARS, "expert", "random"):
        bot = get_bot(name)
        assert bot.name.lower() == name.lower()
        line = PLAIN.say(describe(name))
        assert line and "\n" not in line


def test_names_are_case_insensitive() -> None:
    assert get_bot("HANNA").name == "Hanna"
    assert get_bot(" Expert ").name == "Expert"
    assert describe("vERA") == describe("Vera")


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(MalformedInput) as info:
        get_bot("bob")
    for name in (*REGULARS, "Expert", "Random"):
        assert name in PLAIN.error(info.value)
    with pytest.raises(MalformedInput):
        describe("bob")


def test_every_bot_code_has_words() -> None:
    assert words.missing(BotCode) == [] and words.missing(ArenaCode) == []
