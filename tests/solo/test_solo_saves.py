"""Saves: atomic writes, corrupt or unknown-version files moved aside with a clear
message, tampered actions caught by the digest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from net.said import raises_saying

from p2p8s.cli.words import PLAIN
from p2p8s.rules import Ruleset
from p2p8s.solo import Phase, SoloSession, SoloSettings
from p2p8s.store import saves
from p2p8s.store.paths import atomic_write, solo_save_path
from p2p8s.store.settings import PlaySettings, load_settings

from .conftest import Home


def _played(seed: int = 8, moves: int = 40) -> SoloSession:
    s = SoloSession.new(SoloSettings(opponents=2, rules=Ruleset()), seed)
    bots = {0: s.bots()[1], **s.bots()}
    for _ in range(moves):
        if s.phase is Phase.ROUND_OVER:
            s.next_round()
        elif s.phase is Phase.TURN:
            s.apply(s.choose(bots[s.round.turn]))
    return s


def _aside(save: Path) -> list[Path]:
    return sorted(p for p in save.parent.iterdir() if p.name.startswith("match.unusable-"))


def test_save_and_load_round_trip(home: Home) -> None:
    s = _played()
    path = saves.save_match(s, {"coach_seen": ["eight"]})
    assert path == solo_save_path() == home.save
    loaded = saves.load_match()
    assert loaded is not None
    assert loaded.session.digest() == s.digest()
    assert loaded.session.state() == s.state()
    assert loaded.ui == {"coach_seen": ["eight"]}
    assert [p.name for p in path.parent.iterdir()] == ["match.json"]  # no temp file left


def test_atomic_write_replaces_whole_files(tmp_path: Path) -> None:
    target = tmp_path / "a" / "f.json"
    atomic_write(target, "one")
    atomic_write(target, "two")
    assert target.read_text() == "two"
    assert [p.name for p in target.parent.iterdir()] == ["f.json"]


@pytest.mark.parametrize(("content", "says"), [
    ("{not json", "the saved match is damaged (not valid JSON)"),
    (json.dumps({"format": "p2p8s-solo-save", "version": 99}),
     "the saved match has format version 99; this p2p8s reads version 1"),
    (json.dumps({"format": "something else"}), "not a p2p8s solo save"),
    (json.dumps({"format": "p2p8s-solo-save", "version": 1, "seed": 3}),
     "the saved match is damaged: the save is incomplete"),
])
def test_unusable_save_is_moved_aside_and_a_new_match_starts(
        home: Home, content: str, says: str) -> None:
    home.save.parent.mkdir(parents=True)
    home.save.write_text(content)
    proc = home.run("--seed", "2", stdin="")
    assert proc.returncode == 0, proc.stderr
    assert says in proc.stdout
    assert "starting a new match" in proc.stdout
    assert "Welcome to p2p8s" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr
    moved = _aside(home.save)
    assert len(moved) == 1 and moved[0].read_text() == content  # kept, not overwritten
    assert f"It was moved to {moved[0]}" in proc.stdout
    loaded = saves.load_match()  # the new match was saved normally
    assert loaded is not None and loaded.session.seed == 2


def test_a_tampered_action_is_caught(home: Home) -> None:
    s = _played(moves=30)
    saves.save_match(s)
    doc = json.loads(home.save.read_text())
    first = doc["rounds"][0]
    first[0], first[1] = first[1], first[0]  # two moves swapped: illegal or a new state
    home.save.write_text(json.dumps(doc))
    with raises_saying(saves.CorruptSave, "damaged"):
        saves.load_match()


def test_a_wrong_digest_is_caught(home: Home) -> None:
    saves.save_match(_played())
    doc = json.loads(home.save.read_text())
    doc["digest"] = "0" * 64
    home.save.write_text(json.dumps(doc))
    with raises_saying(saves.CorruptSave, "digest"):
        saves.load_match()


def test_two_bad_saves_in_a_row_are_both_kept(home: Home) -> None:
    for text in ("junk 1", "junk 2"):
        home.save.parent.mkdir(parents=True, exist_ok=True)
        home.save.write_text(text)
        home.run(stdin="")
    assert sorted(p.read_text() for p in _aside(home.save)) == ["junk 1", "junk 2"]


def test_new_starts_over(home: Home) -> None:
    home.run("--seed", "2", stdin="")
    first = json.loads(home.save.read_text())["seed"]
    proc = home.run("--new", "--seed", "9", stdin="")
    assert "Welcome to p2p8s" in proc.stdout
    assert json.loads(home.save.read_text())["seed"] == 9 != first


def test_damaged_settings_file_is_moved_aside(home: Home) -> None:
    home.settings.parent.mkdir(parents=True)
    home.settings.write_text("[1, 2")
    loaded = load_settings()
    assert loaded.play == PlaySettings()
    assert loaded.notice and "damaged" in PLAIN.error(loaded.notice)
    said = PLAIN.error(loaded.notice)  # where, in words (not the JSON decoder's)
    assert "(it stops being valid JSON at line 1, column 6); using the defaults" in said
    assert "Expecting" not in said and "char" not in said
    assert not home.settings.exists()
    assert any(p.name.startswith("settings.damaged-") for p in home.settings.parent.iterdir())


def test_settings_keep_unknown_keys(home: Home) -> None:
    home.settings.parent.mkdir(parents=True)
    home.settings.write_text(json.dumps({"version": 1, "identity": {"name": "Ada"},
                                         "play": {"opponents": 9, "classic": "yes"}}))
    loaded = load_settings()
    assert loaded.play == PlaySettings()  # invalid values fall back to defaults
    loaded.coached = True
    loaded.save()
    doc = json.loads(home.settings.read_text())
    assert doc["identity"] == {"name": "Ada"} and doc["profile"]["coached"] is True


def test_an_unwritable_home_is_a_clean_error(home: Home) -> None:
    data = home.root / "data"
    data.mkdir()
    (data / "p2p8s").write_text("a file where a directory should be")
    proc = home.run("--seed", "2", stdin="")
    assert proc.returncode == 1
    assert proc.stderr.startswith("p2p8s: cannot save the match to ")
    assert "Traceback" not in proc.stderr + proc.stdout


def test_mangled_saves_only_ever_raise_corrupt_save(home: Home) -> None:
    import random

    saves.save_match(_played(moves=25))
    good = home.save.read_text()
    rng = random.Random(0)
    for _ in range(300):
        chars = list(good)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(chars))
            chars[i] = rng.choice('{}[]",:0123456789abcdefxyzQSHDC/ ')
        home.save.write_text("".join(chars))
        try:
            loaded = saves.load_match()
        except saves.CorruptSave:
            continue
        assert loaded is not None  # a harmless change (e.g. inside the ui object)
