"""The words of ``p2p8s join`` around finding and entering a table: the tables found,
none proving the code, a table turned the attempt away, the key already at the table."""

from __future__ import annotations

import pytest

from p2p8s.cli.net_cmd import wrong_code
from p2p8s.cli.words import PLAIN
from p2p8s.cli.words.net import Line
from p2p8s.net.channel import SessionCode
from p2p8s.net.connecting import busy_wait
from p2p8s.net.errors import NetCode, Unreachable


def test_found_tables_in_the_right_number() -> None:
    assert PLAIN.say(Line.FOUND, tables=(("192.0.2.5:4242, [fd00::5]:4242",),)) == (
        "Found a table at 192.0.2.5:4242, [fd00::5]:4242; trying it for this code")
    assert PLAIN.say(Line.FOUND, tables=(("192.0.2.5:4242",), ("192.0.2.6:4000",))) == (
        "Found 2 tables, at 192.0.2.5:4242; 192.0.2.6:4000; trying each for this code")
    # two adverts of one table id (one may be a fake): each keeps its own addresses
    assert PLAIN.say(Line.FOUND, tables=(("10.214.0.1:35021", "10.214.0.3:4242"),)) == (
        "Found a table at 10.214.0.1:35021 or 10.214.0.3:4242 (2 adverts of one table "
        "id); trying it for this code")


def test_no_table_answered_is_one_block_one_line_per_table() -> None:
    tables = (("192.0.2.5:4242, [fd00::5]:4242",), ("192.0.2.6:4000",))
    said = PLAIN.say(Line.NO_TABLE_ANSWERED, code="QZ7K2M", tables=tables, answered=True)
    assert said == (
        "no table here answered to code QZ7K2M; tried 2 tables, none proved this code "
        "(a wrong code, or the table is not among them):\n"
        "  - 192.0.2.5:4242, [fd00::5]:4242\n"
        "  - 192.0.2.6:4000\n"
        "  Check the code with the host, or type the line its screen shows: p2p8s join "
        "QZ7K2M@HOST:PORT")
    assert "could not join there" not in said
    # a table answered: mDNS works, the code was wrong; no "why this network hides"
    assert "doctor" not in said
    # found by mDNS, yet no connection got through: doctor can check the way there
    unreached = PLAIN.say(Line.NO_TABLE_ANSWERED, code="QZ7K2M", tables=tables,
                          answered=False)
    assert unreached.endswith("\n  To see why the table cannot be reached, run: p2p8s "
                              "doctor HOST:PORT")


def test_a_busy_table_is_waited_for_in_fixed_words() -> None:
    busy = Unreachable(SessionCode.BUSY, where="192.0.2.5:4242", retry_s=4)
    other = Unreachable(SessionCode.NOT_THERE, where="192.0.2.6:4000", wrong_code=True)
    assert busy_wait(busy) == 4
    assert busy_wait(Unreachable(NetCode.NONE_REACHED, failures=(other, busy))) == 4
    assert busy_wait(Unreachable(NetCode.NONE_REACHED, failures=(other,))) is None
    assert PLAIN.say(Line.BUSY_RETRY, wait_s=4) == (
        "The table is busy or slowing down new attempts from this address; trying again "
        "in 4 s.")


def test_a_key_already_at_the_table_is_told_so() -> None:
    assert PLAIN.say(Line.ALREADY_HERE, fingerprint="XAD1-Y64K-SWDR-4CW1") == (
        "you are already at this table from another terminal (your key "
        "XAD1-Y64K-SWDR-4CW1 is connected there); play there, or leave it first")


def test_a_wrong_code_is_told_from_no_answer() -> None:
    wrong = Unreachable(SessionCode.NOT_THERE, where="192.0.2.5:4242", wrong_code=True)
    silent = Unreachable(SessionCode.NOT_THERE, where="192.0.2.6:4000", wrong_code=False)
    assert wrong_code(Unreachable(NetCode.NONE_REACHED, failures=(silent, wrong)))
    assert not wrong_code(Unreachable(NetCode.NONE_REACHED, failures=(silent,)))
    assert wrong_code(wrong) and not wrong_code(silent)


def test_auto_before_the_invite_does_not_swallow_it() -> None:
    import click

    from p2p8s.cli.net_cmd import _invite_and_auto

    assert _invite_and_auto(None, "k7ek2h@192.0.2.5:4242") == ("k7ek2h@192.0.2.5:4242", "")
    assert _invite_and_auto(None, "QZ7K2M") == ("QZ7K2M", "")
    assert _invite_and_auto("QZ7K2M", "expert") == ("QZ7K2M", "expert")
    assert _invite_and_auto("QZ7K2M", None) == ("QZ7K2M", None)
    with pytest.raises(click.UsageError) as info:
        _invite_and_auto(None, "Expert")  # a personality, and no invite
    assert info.value.message == PLAIN.say(Line.INVITE_MISSING)
    with pytest.raises(click.UsageError):
        _invite_and_auto(None, None)


def test_an_address_without_its_code_says_the_code_is_missing() -> None:
    from p2p8s.cli.net_cmd import _parse_join
    from p2p8s.errors import MalformedInput

    for text in (":35021", "192.0.2.5:4242"):
        with pytest.raises(MalformedInput) as info:
            _parse_join(text)
        assert PLAIN.error(info.value) == (
            f"the table code is missing in {text!r}: type the whole line on the host's "
            "screen, CODE@HOST:PORT (like 7KQ4MX@192.168.1.20:4242)")
    assert _parse_join("QZ7K2M@192.0.2.5:4242").port == 4242
    assert _parse_join("p2p8s://QZ7K2M@192.0.2.5:4242").host == "192.0.2.5"


def test_ctrl_c_says_what_it_stopped(capsys: pytest.CaptureFixture[str]) -> None:
    from p2p8s.cli.net_cmd import Stage, _interrupted

    for line, said in ((Line.STOPPED_LOOKING, "Stopped before joining any table."),
                       (Line.DID_NOT_SIT, "You did not sit down."),
                       (Line.LEFT_TABLE, "Left the table.")):
        with pytest.raises(SystemExit) as info:
            _interrupted(Stage(line), 130)
        assert info.value.code == 130
        assert capsys.readouterr().err == said + "\n"


def test_lobby_lines_are_wrapped_like_game_lines() -> None:
    from p2p8s.cli.lines import fit

    said = PLAIN.say(Line.SEATS, size=4, taken=1, free=3)
    assert fit(said, None) == said  # piped: as it is
    lines = fit(said, 60).split("\n")
    assert len(lines) == 2 and all(len(line) <= 60 for line in lines)
    assert " ".join(part.strip() for part in lines) == said
    block = fit("first line\n" + said, 60).split("\n")
    assert block[0] == "first line" and len(block) == 3
