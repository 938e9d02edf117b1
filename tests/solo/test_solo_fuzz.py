"""Random input never breaks the game loop: every answer gets a message or a move, and
the match stays consistent with its save."""

from __future__ import annotations

import io
import random

import pytest

from p2p8s.cli.play_cmd import Quit, SoloGame
from p2p8s.cli.terminal import InputClosed, Terminal
from p2p8s.rules import Ruleset
from p2p8s.solo import SoloSession, SoloSettings
from p2p8s.store import saves
from p2p8s.store.settings import PlaySettings, SettingsFile

from .conftest import Home

WORDS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "12", "0", "-1", "d", "p", "t", "h",
         "s", "c", "hint", "log", "score", "rules", "help", "", " ", "8s", "QH", "10c", "2 h",
         "1 2", "3 4 5", "1 d", "xyzzy", "cancel", "1,2", "♥", "draw", "pass", "take",
         "2 2", "ß", "\t"]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_answers(home: Home, seed: int) -> None:
    rng = random.Random(seed)
    answers = "\n".join(rng.choice(WORDS) for _ in range(600)) + "\n"
    out = io.StringIO()
    term = Terminal(out=out, inp=io.StringIO(answers), pace_s=0)
    session = SoloSession.new(SoloSettings(opponents=2, rules=Ruleset(target=40)), seed)
    game = SoloGame(term, session, SettingsFile(PlaySettings()))
    try:
        game.run()  # may finish the match before the answers run out
    except (InputClosed, Quit):
        loaded = saves.load_match()
        assert loaded is not None and loaded.session.digest() == session.digest()
    assert session.round_number > 1 or session.move_number > 0
    assert "Your move (" in out.getvalue()
