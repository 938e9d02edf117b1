"""A seat whose person left is run by the lowest live seat from the next round on
("adopted"): the deterministic computer's move its runner sends is the move every node
checks, 8s and their declared suit included.

The fault this pins (found behind the flaky LAN test of a two-person table where one
quits): an adopted seat's own crypto session is run by the adopting node, so the cards
its play shows are recorded as shown "by the seat itself" (``owner_shown``); the check of
its ``Act`` then takes them for the cards of a node that went between showing and acting
(``ActionLog.orphans``) and asks the computer again with only the plays of exactly those
cards as legal. For an 8 that is a different list (one play per declared suit) than the
author chose from with the same seeded RNG: the checking node computes another suit and
stops the table, blaming the honest author (``ILLEGAL_CLAIM``). Orphans are cards shown by the
seat's own node before it went, so an adopted seat's shown cards are not recorded as
such (``ActionLog.on_played``); a recovered seat's still are (the soak kills nodes
between showing and acting).
"""

from __future__ import annotations

import pytest
from table_helpers import until

from p2p8s.cards import Rank
from p2p8s.engine import Play
from p2p8s.table import events as tev
from p2p8s.table.harness import TableNet, make_config


@pytest.mark.parametrize("seed", [b"adopt23", b"adopt2"])
def test_an_adopted_seat_plays_its_eights_the_same_on_every_node(seed: bytes) -> None:
    net = TableNet(make_config(2, target=300), seed=seed)
    net.start()
    until(net, lambda: net.nodes[1].round is not None and net.nodes[1].round.turn != 1)
    net.leave(1)
    net.run()
    assert net.faults() == {}
    node = net.nodes[0]
    assert node.finished and node.failed is None
    number, eights = 0, 0
    for event in net.events[0]:
        if isinstance(event, tev.RoundStarted):
            number = event.number
        elif (isinstance(event, tev.Applied) and event.seat == 1 and number >= 2
              and isinstance(event.action, Play)):
            eights += any(c.rank is Rank.EIGHT for c in event.action.cards)
    assert eights > 0  # the seat was adopted and played an 8 after round 1
