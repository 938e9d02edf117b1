"""The words of a seat taken over, as a player at the table reads them: the node that now
sends the seat's moves is "you" when it is this one, and a computer seat whose node went
is no longer said to be on that node."""

from __future__ import annotations

from p2p8s.cli.table_view import seats_line
from p2p8s.cli.words import Speaker
from p2p8s.cli.words.table import said
from p2p8s.table import events as tev


def test_a_seat_taken_over_by_this_node_is_sent_by_you() -> None:
    bob, cat = (Speaker(names=("Ann", "Bob", "Cat"), me=m) for m in (1, 2))
    handed = tev.Info(tev.InfoCode.HANDED_OVER, {"seat": 0, "by": 1})
    assert said(handed, bob).endswith("the computer plays it; its moves are sent by you")
    assert said(handed, cat).endswith("the computer plays it; its moves are sent by Bob's "
                                      "node")
    adopted = tev.Info(tev.InfoCode.ADOPTED, {"seat": 0, "by": 1})
    assert said(adopted, bob) == ("the computer plays Ann this round (hand open); its moves "
                                  "are sent by you")
    assert said(adopted, cat) == ("the computer plays Ann this round (hand open); its moves "
                                  "are sent by Bob's node")


def test_a_computer_seat_taken_over_is_not_on_the_host_node_any_more() -> None:
    line = seats_line(["Ann", "Bob", "Hanna"], 1, computers={2: "Hanna"}, gone={},
                      host="Ann", taken=frozenset({0, 2}))
    assert line == ("Seats: Ann (left; the computer plays, hand open) · Bob (you) · "
                    "Hanna (computer, hand open)")
    line = seats_line(["Ann", "Bob", "Hanna"], 1, computers={2: "Hanna"}, gone={},
                      host="Ann")
    assert line.endswith("Hanna (computer, on Ann's node)")
