"""``p2p8s simulate`` end to end: through click's CliRunner and the console script."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from p2p8s.cli.main import cli
from p2p8s.cli.simulate_cmd import wilson


def test_tiny_tournament_through_clirunner() -> None:
    result = CliRunner().invoke(cli, ["simulate", "--games", "4", "--players", "3",
                                      "--bots", "hanna,karl,random", "--seed", "3"])
    assert result.exit_code == 0, result.output
    out = result.output
    for name in ("Hanna", "Karl", "Random", "95% CI", "pts/round", "4 matches"):
        assert name in out
    again = CliRunner().invoke(cli, ["simulate", "--games", "4", "--players", "3",
                                     "--bots", "hanna,karl,random", "--seed", "3"])
    assert again.output == out


def test_rule_options_and_errors() -> None:
    runner = CliRunner()
    res = runner.invoke(cli, ["simulate", "-n", "2", "--bots", "max,vera", "--classic",
                              "--no-multi", "--draw-limit", "1", "--target", "40"])
    assert res.exit_code == 0, res.output
    assert "classic, one card a turn, draw limit 1, target 40" in res.output
    res = runner.invoke(cli, ["simulate", "-n", "1", "--bots", "max,vera", "--countdown"])
    assert res.exit_code == 0 and "countdown" in res.output
    res = runner.invoke(cli, ["simulate", "-n", "1", "--bots", "max,bob"])
    assert res.exit_code == 2 and "known: Hanna" in res.output


def test_wilson_interval() -> None:
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and 0.27 < hi < 0.28
    lo, hi = wilson(70, 100)
    assert 0.6 < lo < 0.7 < hi < 0.8


def test_console_script() -> None:
    script = shutil.which("p2p8s") or str(Path(sys.executable).parent / "p2p8s")
    proc = subprocess.run([script, "simulate", "-n", "4", "--bots", "hanna,random",
                           "--jobs", "2", "--target", "30"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "Hanna" in proc.stdout and "Random" in proc.stdout


def test_one_match_is_singular_and_the_header_is_printed_once() -> None:
    result = CliRunner().invoke(cli, ["simulate", "-n", "1", "--bots", "max,vera",
                                      "--seed", "2"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("1 match (") and "1 matches" not in result.output
    # the rules description appears once: in the report's first line, not also as the
    # progress bar's label (CliRunner's stderr is no terminal: no bar at all)
    described = [line for line in lines if "table rules, multi-play, draw limit 3" in line]
    assert described == [lines[0]], lines
    assert result.stderr == ""
    many = CliRunner().invoke(cli, ["simulate", "-n", "2", "--bots", "max,vera"])
    assert many.output.startswith("2 matches (") and " rounds), " in many.output


@pytest.mark.parametrize("args, message", [
    (["--countdown", "--target", "5"], "--target means nothing in countdown"),
    (["--rules", "countdown", "--target", "5"], "--target means nothing in countdown"),
    (["--rules", "countdown", "--classic"],
     "--rules countdown and --classic contradict each other"),
    (["--countdown", "--classic"], "--classic and --countdown contradict each other"),
    (["--rules", "classic", "--countdown"],
     "--rules classic and --countdown contradict each other"),
    (["--rules", "table", "--classic"], "--rules table and --classic contradict each other"),
])
def test_contradictory_rule_options_are_usage_errors(args: list[str], message: str) -> None:
    result = CliRunner().invoke(cli, ["simulate", "-n", "1", "--bots", "max,vera", *args])
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "Usage: " in result.stderr
    assert result.stdout == ""  # nothing was played


@pytest.mark.parametrize("args, described", [
    (["--rules", "countdown", "--countdown"], "countdown, multi-play"),
    (["--rules", "classic", "--classic", "--target", "30"], "classic, multi-play"),
    (["--rules", "table"], "table rules, multi-play"),
])
def test_agreeing_rule_options_are_fine(args: list[str], described: str) -> None:
    result = CliRunner().invoke(cli, ["simulate", "-n", "1", "--bots", "max,vera", *args])
    assert result.exit_code == 0, result.output
    assert described in result.output.splitlines()[0]
