"""The table card states the escrow's trade-off (issue #13), and the host may switch the
escrow off: ``p2p8s host --no-escrow`` reaches the roster every joiner sees."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from p2p8s import wire
from p2p8s.cli.main import cli
from p2p8s.cli.table_play import LobbyLines
from p2p8s.cli.words import PLAIN
from p2p8s.cli.words.net import Line
from p2p8s.rules import Ruleset
from p2p8s.table.harness import TableNet, make_config
from p2p8s.table.roster import table_config
from p2p8s.wire import Roster, RosterBody, SeatEntry

ANN = SeatEntry(seat=0, name="Ann", key=b"a" * 32, addrs=("127.0.0.1",), port=1)


#: The card's line with the escrow on and three seats or more: by people, not seats
#: (computer seats hold no share: with 2 people + 2 computers a drop-out pauses the game;
#: with 3 people + 1 computer the two others, not three, could open a hand).
BY_PEOPLE = ("With three or more people: if someone's connection drops, the others go on "
             "without seeing that hand, and open it for the computer only when that player "
             "must act; all the other people together could open a hand. With two people, "
             "a drop-out pauses the game.")


@pytest.mark.parametrize(("seats", "line"), [
    (3, BY_PEOPLE),
    (4, BY_PEOPLE),
    (7, BY_PEOPLE),
    (2, "With two at the table, if one drops out the game pauses until they are back."),
])
def test_with_escrow_the_card_says_who_could_open_a_hand(seats: int, line: str) -> None:
    assert PLAIN.say(Line.ESCROW, escrow=True, seats=seats) == line


@pytest.mark.parametrize(("people", "computers", "holders"), [
    (2, 2, 0),  # two people and two computers: nobody holds a share, the game pauses
    (3, 1, 2),  # three people and a computer: the two others hold a hand's shares
    (4, 0, 3),
])
def test_the_line_is_true_for_the_escrow_of_any_mix(people: int, computers: int,
                                                    holders: int) -> None:
    """The escrow the table deals (protocol/table.md "Dropped nodes") is what the line
    says: every other person holds a share (threshold: all of them), none with two."""
    net = TableNet(make_config(people + computers,
                               computers=range(people, people + computers)), seed=b"mix")
    net.start()
    while net.nodes[0].round is None:
        assert net.step(), "no round began"
    seats = net.nodes[0]._seats
    for seat in range(people):
        assert len(seats.holders[seat]) == holders
        assert seat not in seats.holders[seat]
    said_people = "With two people, a drop-out pauses the game." if holders == 0 else (
        "all the other people together could open a hand")
    assert said_people in PLAIN.say(Line.ESCROW, escrow=True, seats=people + computers)


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_without_escrow_the_card_says_the_game_pauses(seats: int) -> None:
    assert PLAIN.say(Line.ESCROW, escrow=False, seats=seats) == (
        "Escrow off: if someone drops out, the game pauses until they are back.")


@pytest.mark.parametrize(("escrow", "words"), [
    (True, "all the other people together could open a hand"),
    (False, "Escrow off: if someone drops out"),
])
def test_a_joiner_sees_the_trade_off_before_it_sits(
        escrow: bool, words: str, capsys: pytest.CaptureFixture[str]) -> None:
    LobbyLines(me=b"b" * 32).table(Roster(size=5, rules=Ruleset(), seats=(ANN,),
                                             escrow=escrow))
    lines = capsys.readouterr().out.splitlines()
    assert words in lines[1] and lines[2].startswith("Seats: 5")


@pytest.mark.parametrize("escrow", [True, False])
def test_the_roster_carries_the_setting_into_every_nodes_table(escrow: bool) -> None:
    roster = Roster(size=3, rules=Ruleset(), seats=(ANN,), open=False, escrow=escrow)
    sent = wire.Message(table=b"T" * 8, seat=0, seq=1, prev=b"", body=RosterBody(roster=roster))
    got = wire.decode_payload(wire.encode_payload(sent)).body
    assert isinstance(got, RosterBody) and got.roster.escrow is escrow
    assert table_config(got.roster, table=b"T" * 8, seed=bytes(32)).escrow is escrow
    assert wire.roster_digest(roster) != wire.roster_digest(
        Roster(size=3, rules=Ruleset(), seats=(ANN,), open=False, escrow=not escrow))


def test_host_help_offers_no_escrow() -> None:
    out = CliRunner().invoke(cli, ["host", "--help"]).output
    assert "--no-escrow" in out and "the game pauses until they are back" in " ".join(
        out.split())


@pytest.mark.parametrize(("people", "line"), [
    (2, "With two people, a drop-out pauses the game until they are back."),
    (3, "If someone's connection drops, the two others go on without seeing that hand; "
        "both together could open it."),
    (4, "If someone's connection drops, the three others go on without seeing that hand; "
        "all three together could open it."),
])
def test_at_the_deal_the_trade_off_counts_the_people_dealt_in(
        people: int, line: str, capsys: pytest.CaptureFixture[str]) -> None:
    """With 2 people and 2 computers the game pauses; with 3 people and 1 computer the
    two others (not three) could open a hand."""
    seats = tuple(SeatEntry(seat=s, name=n, key=bytes([65 + s]) * 32, addrs=("127.0.0.1",),
                            port=1) for s, n in enumerate(["Ann", "Bob", "Cat", "Dan"][:people]))
    LobbyLines(me=b"b" * 32).dealing(Roster(size=4, rules=Ruleset(), seats=seats, open=False))
    assert capsys.readouterr().out.splitlines()[1] == line


def test_at_the_deal_no_trade_off_is_said_without_escrow_or_alone(
        capsys: pytest.CaptureFixture[str]) -> None:
    LobbyLines(me=b"b" * 32).dealing(Roster(size=3, rules=Ruleset(), seats=(ANN,), open=False))
    two = (ANN, SeatEntry(seat=1, name="Bob", key=b"b" * 32, addrs=("127.0.0.1",), port=1))
    LobbyLines(me=b"b" * 32).dealing(Roster(size=3, rules=Ruleset(), seats=two, open=False,
                                            escrow=False))
    assert [line for line in capsys.readouterr().out.splitlines()
            if not line.startswith("Dealing for")] == []
