"""Scenario files (tests/scenarios/*.json) run through the runner; RULES.md §10 and one
case per rule id at least. Each file holds ``rule``, ``description`` and ``expect``:
``{"ok", "error": {subset}, "state": {subset}}``, or ``{"malformed": "text in the message"}``.
Hands are compared as multisets (the runner prints them sorted)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from p2p8s.cards import Card, standard_deck
from p2p8s.cli.main import cli
from p2p8s.cli.words import PLAIN
from p2p8s.engine import EngineCode
from p2p8s.errors import MalformedInput
from p2p8s.scenario import ScenarioCode, load_scenario, run_scenario

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
        assert expect["malformed"] in PLAIN.error(info.value)
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


# --- malformed input that json.loads lets through or crashes on -----------------------

_HUGE = "1" + "0" * 5000  # 5001 digits: past Python's int/str conversion limit


@pytest.mark.parametrize("text, message", [
    ('{"players": 2, "dealer": ' + _HUGE + ', "stock": []}',
     "the number 100000000000… is too long (5001 digits)"),
    ('{"players": 2, "dealer": -' + _HUGE + ', "stock": []}', "too long (5001 digits)"),
    ("[" * 100_000 + "]" * 100_000, "nest more than 32 levels deep"),
    ('{"a": ' * 100_000 + "1" + "}" * 100_000, "nest more than 32 levels deep"),
    ('{"players": 2, "stock": [], "comment": ' + "[" * 40 + "]" * 40 + "}",
     "nest more than 32 levels deep"),
    ('{"players": 2, "players": 3, "stock": []}',
     "the key 'players' appears twice in one object"),
    ('{"players": 2, "stock": [], "actions": [{"seat": 0, "seat": 1, "draw": true}]}',
     "the key 'seat' appears twice"),
    ('{"players": 2, "rules": {"target": 50, "target": 60}, "stock": []}',
     "the key 'target' appears twice"),
    ('{"players": NaN, "stock": []}', "NaN is not a JSON number"),
])
def test_command_refuses_hostile_json(text: str, message: str) -> None:
    result = CliRunner().invoke(cli, ["scenario", "-"], input=text)
    assert result.exit_code == 2, (result.output, result.exception)
    assert result.stdout == ""
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)


@pytest.mark.parametrize("text, message", [
    ('{"players": 2, "dealer": ' + _HUGE + ', "stock": []}', "too long (5001 digits)"),
    ("[" * 100_000 + "]" * 100_000, "nest more than 32 levels deep"),
])
def test_command_hostile_json_subprocess(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "hostile.json"
    path.write_text(text, encoding="utf-8")
    proc = _p2p8s("scenario", str(path))
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and message in proc.stderr and str(path) in proc.stderr


def test_load_scenario_keeps_valid_files() -> None:
    for path in FILES:
        text = path.read_text(encoding="utf-8")
        assert load_scenario(text) == json.loads(text), path.name


def test_load_scenario_duplicate_key_names_it() -> None:
    text = '{"players": 2, "stock": [], "dealer": 0, "dealer": 1}'
    with pytest.raises(MalformedInput) as info:
        load_scenario(text)
    assert re.search("the key 'dealer' appears twice", PLAIN.error(info.value))
    assert json.loads(text)["dealer"] == 1  # what plain json.loads silently did


@pytest.mark.parametrize("key", ["players", "dealer", "hand_size"])
def test_run_scenario_huge_number_is_malformed(key: str) -> None:
    # from Python (no load_scenario): a number too large to print in a message
    deck = [str(c) for c in standard_deck()]
    data: dict[str, Any] = {"players": 2, "stock": deck, key: 10**5000}
    with pytest.raises(MalformedInput) as info:
        run_scenario(data)
    assert re.search(f"{key} is out of range: a number of about 5001", PLAIN.error(info.value))


# --- turn once the round is over (protocol/scenario.md, Output) -----------------------

def test_turn_after_the_round_ends() -> None:
    out = run_scenario(_load(HERE / "r-out-then-nothing.json"))["state"]
    assert (out["ended_by"], out["winner"], out["turn"]) == ("out", 2, 2)  # the winner
    # blocked: seat 1 passes, seat 0 makes the last pass, the turn moves on to seat 1
    blocked = run_scenario(_load(HERE / "case06-blocked-empty.json"))["state"]
    assert (blocked["ended_by"], blocked["turn"]) == ("blocked", 1)


def test_protocol_describes_turn_after_the_round_ends() -> None:
    doc = (Path(__file__).parents[1] / "protocol" / "scenario.md").read_text(encoding="utf-8")
    row = next(line for line in doc.splitlines() if line.startswith("| `turn` |"))
    assert "the seat that ended it" not in row  # untrue of a blocked round
    assert "the winner" in row and "after the one that made the last pass" in row


def test_protocol_lists_every_refusal_code() -> None:
    """protocol/scenario.md, "Error codes": every code it lists is a real one, and every
    refusal the scenario files reach is listed with the rule it names."""
    doc = (Path(__file__).parents[1] / "protocol" / "scenario.md").read_text(encoding="utf-8")
    section = doc[doc.index("### Error codes"):]
    rows = [line.split("|") for line in section.splitlines() if line.startswith("| `")]
    listed = {cells[1].strip().strip("`"): cells[2].strip() for cells in rows}
    real = {c.value for c in EngineCode} | {c.value for c in ScenarioCode}
    assert set(listed) <= real
    reached = 0
    for path in FILES:
        data = _load(path)
        if "malformed" in data["expect"]:
            continue
        error = run_scenario(data)["error"]
        if error is not None:
            reached += 1
            rules = [r.strip() for r in listed[error["code"]].split(",")]
            assert (error["rule"] or "null") in rules, path.name
    assert reached > 10
