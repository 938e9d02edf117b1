"""Whole solo matches of every preset through the real ``p2p8s play --auto`` process,
house rules on top; the save records the ruleset and resumes it."""

from __future__ import annotations

import json

import pytest

from p2p8s.cli.words.rules import describe_rules
from p2p8s.rules import Ruleset
from p2p8s.solo import SoloSession, SoloSettings, get_bot
from p2p8s.store import saves

from .conftest import Home

CASES = [("table", [], {}), ("classic", ["--draw-limit", "1"], {"draw_limit": 1}),
         ("countdown", ["--no-multi"], {"multi_play": False}),
         ("wildcards", ["--multi", "--target", "60"], {"multi_play": True, "target": 60}),
         ("zimbabwe", ["--hand-size", "5", "--target", "80"], {"hand_size": 5, "target": 80})]


@pytest.mark.wall_clock
@pytest.mark.parametrize(("preset", "args", "singles"), CASES)
def test_a_whole_match_of_every_preset(home: Home, preset: str, args: list[str],
                                       singles: dict[str, object]) -> None:
    proc = home.run("--new", "--seed", "17", "--opponents", "2", "--rules", preset, *args,
                    "--auto", "karl", "--ascii", stdin=None, timeout=180)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    rules = Ruleset.for_preset(preset, **singles)
    assert f"Rules: {describe_rules(rules)}. Seed 17" in proc.stdout
    assert "wins the match" in proc.stdout or "You win the match!" in proc.stdout
    assert not home.save.exists()  # a finished match leaves no save
    remembered = json.loads(home.settings.read_text())["play"]
    assert remembered["preset"] == preset
    if preset == "zimbabwe":
        assert "jokers" in proc.stdout or "X" in proc.stdout


def test_a_remembered_preset_is_played_again_and_a_new_one_resets_its_rules(
        home: Home) -> None:
    home.run("--new", "--seed", "3", "--rules", "zimbabwe", "--draw-limit", "2", stdin="")
    again = home.run("--new", "--seed", "4", stdin="")
    assert "Rules: zimbabwe, multi-play, draw limit 2," in again.stdout
    other = home.run("--new", "--seed", "5", "--rules", "wildcards", stdin="")
    assert f"Rules: {describe_rules(Ruleset.for_preset('wildcards'))}." in other.stdout


@pytest.mark.parametrize("preset", ["wildcards", "zimbabwe"])
def test_a_save_records_the_ruleset_and_resumes_it(home: Home, preset: str) -> None:
    rules = Ruleset.for_preset(preset, hand_size=6, target=90)
    session = SoloSession.new(SoloSettings(opponents=3, rules=rules), seed=12)
    bots = {**session.bots(), 0: get_bot("vera")}
    for _ in range(30):
        if session.round.over:
            break
        session.apply(session.choose(bots[session.round.turn]))
    path = saves.save_match(session)
    stored = json.loads(path.read_text())
    assert stored["settings"]["rules"]["preset"] == preset
    loaded = saves.load_match(path)
    assert loaded is not None
    assert loaded.session.settings.rules == rules
    assert loaded.session.digest() == session.digest()
