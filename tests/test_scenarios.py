"""Scenario files (tests/scenarios/*.json) run through the runner; RULES.md §10 and one
case per rule id at least. Each file holds ``rule``, ``description`` and ``expect``:
``{"ok", "error": {subset}, "state": {subset}}``, or ``{"malformed": "text in the message"}``.
Hands are compared as multisets (the runner prints them sorted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from p2p8s.cards import Card
from p2p8s.cli.main import cli
from p2p8s.errors import MalformedInput
from p2p8s.scenario import run_scenario

HERE = Path(__file__).parent / "scenarios"
FILES = sorted(HERE.glob("*.json"))

RULE_IDS = ["R-DECK", "R-SEATS", "R-DEALER", "R-HAND", "R-DEALORDER", "R-STARTER", "R-FIRST",
            "R-MATCH", "R-EIGHT", "R-MULTI", "R-DRAW", "R-PASS", "R-RESHUFFLE", "R-OUT",
            "R-FINAL", "R-TWO", "R-COUNTER", "R-QUEEN", "R-ACE", "R-NEXT", "R-ACTION-OUT",
            "R-BLOCKED", "R-PTS-TABLE", "R-PTS-CLASSIC", "R-BLOCKED-CLASSIC", "R-COUNTDOWN"]
FIXED_CASES = [1, 2, 3, 4, 5, 6, 7, 9, 10, 11]  # case 8 is a match rule: tests/test_match.py


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _sorted_hands(hands: list[list[str]]) -> list[list[str]]:
    return [sorted(h, key=lambda t: int(Card.parse(t))) for h in hands]


def _compare(expect: dict[str, Any], got: dict[str, Any]) -> None:
    assert got["ok"] is expect["ok"], got["error"]
    if expect["ok"]:
        assert got["error"] is None
    for key, value in expect.get("error", {}).items():
        assert got["error"][key] == value, (key, got["error"])
    for key, value in expect.get("state", {}).items():
        have = got["state"][key]
        if key == "hands":
            value = _sorted_hands(value)
        assert have == value, f"state[{key!r}]: expected {value!r}, got {have!r}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_scenario_file(path: Path) -> None:
    data = _load(path)
    assert data.get("rule") and data.get("description"), "every file names its rule"
    expect = data["expect"]
    if "malformed" in expect:
        with pytest.raises(MalformedInput) as info:
            run_scenario(data)
        assert expect["malformed"] in str(info.value)
        return
    _compare(expect, run_scenario(data))


def test_every_rule_and_fixed_case_has_a_file() -> None:
    rules = {_load(p)["rule"] for p in FILES}
    assert not set(RULE_IDS) - rules
    stems = {p.stem for p in FILES}
    for n in FIXED_CASES:
        assert any(s.startswith(f"case{n:02d}") for s in stems), n


def _p2p8s(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("p2p8s")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "p2p8s.cli.main"]
    return subprocess.run([*cmd, *args], input=stdin, capture_output=True, text=True,
                          timeout=60)


@pytest.mark.parametrize("name, status", [("case03b-penalty-take", 0),
                                          ("case10b-no-fourth-draw", 1),
                                          ("r-countdown-wild", 1),
                                          ("x-incomplete", 2)])
def test_command(name: str, status: int) -> None:
    path = HERE / f"{name}.json"
    proc = _p2p8s("scenario", str(path))
    assert proc.returncode == status, proc.stderr
    assert "Traceback" not in proc.stderr
    expect = _load(path)["expect"]
    if status == 2:
        assert proc.stdout == ""
        assert expect["malformed"] in proc.stderr and str(path) in proc.stderr
    else:
        _compare(expect, json.loads(proc.stdout))


@pytest.mark.parametrize("text, message", [
    ("{", "not valid JSON"),
    ("[1, 2]", "a scenario is a JSON object"),
    ('{"players": 2}', "needs 'stock'"),
    ('{"players": 2, "stock": [], "bogus": 1}', "unknown key 'bogus'"),
])
def test_command_malformed(text: str, message: str) -> None:
    result = CliRunner().invoke(cli, ["scenario", "-"], input=text)
    assert result.exit_code == 2, result.output
    assert message in result.stderr and result.stdout == ""
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_command_missing_file(tmp_path: Path) -> None:
    proc = _p2p8s("scenario", str(tmp_path / "nope.json"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
