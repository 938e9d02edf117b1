"""``p2p8s rules`` prints the rules with the defaults, card values and interpretations."""

from __future__ import annotations

from click.testing import CliRunner

from p2p8s.cli.main import cli


def _run(*args: str) -> str:
    result = CliRunner().invoke(cli, ["rules", *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_table_rules() -> None:
    text = _run()
    assert "table rules" in text
    for needle in ["8 = 50", "2, Q, A = 20", "J, K = 10", "115", "draw limit 3",
                   "only the drawn card may start a play", "draw again",
                   "50 points per seat", "lowest total wins", "Countdown",
                   "only that suit or your own wild rank", "8, 2, Q or A"]:
        assert needle in text, needle
    assert all(len(line) <= 90 for line in text.splitlines())


def test_classic() -> None:
    text = _run("--classic")
    assert "classic" in text and "Action cards (table rules)" not in text
    for needle in ["J, Q, K = 10", "A = 1", "86", "both 12s collect 18", "reach 100",
                   "It may not be an 8:", "three or more players 5 each"]:
        assert needle in text, needle


def test_help() -> None:
    result = CliRunner().invoke(cli, ["rules", "--help"])
    assert result.exit_code == 0 and "--classic" in result.output
