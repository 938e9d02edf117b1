"""The words of ``p2p8s join`` around finding and entering a table: the tables found,
none proving the code, a table turned the attempt away, the key already at the table."""

from __future__ import annotations

from p2p8s.cli.net_cmd import busy_wait
from p2p8s.cli.words import PLAIN
from p2p8s.cli.words.net import Line
from p2p8s.net.channel import SessionCode
from p2p8s.net.errors import NetCode, Unreachable


def test_found_tables_in_the_right_number() -> None:
    assert PLAIN.say(Line.FOUND, tables=(("192.0.2.5:4242", "[fd00::5]:4242"),)) == (
        "Found a table at 192.0.2.5:4242, [fd00::5]:4242; trying it for this code")
    assert PLAIN.say(Line.FOUND, tables=(("192.0.2.5:4242",), ("192.0.2.6:4000",))) == (
        "Found 2 tables, at 192.0.2.5:4242; 192.0.2.6:4000; trying each for this code")


def test_no_table_answered_is_one_block_one_line_per_table() -> None:
    said = PLAIN.say(Line.NO_TABLE_ANSWERED, code="QZ7K2M",
                     tables=(("192.0.2.5:4242", "[fd00::5]:4242"), ("192.0.2.6:4000",)))
    assert said == (
        "no table here answered to code QZ7K2M; tried 2 tables, none proved this code "
        "(a wrong code, or the table is not among them):\n"
        "  - 192.0.2.5:4242, [fd00::5]:4242\n"
        "  - 192.0.2.6:4000\n"
        "  Check the code with the host, or type the line its screen shows: p2p8s join "
        "QZ7K2M@HOST:PORT\n"
        "  To see why this network hides tables, run: p2p8s doctor")
    assert "could not join there" not in said


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
