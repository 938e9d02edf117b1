"""A node restored rounds ago, cut off again, comes back after the others finished.

Wi-Fi soak (seed 61, match 4): Cat's node was restored in round 3 (it asked every peer
for its log), cut off for 60 s in round 5 while the others ended the match, and reached
all three again. Each sent it its log (the match is over there), but Cat's link still
counted them as the answers to its restore of round 3 and handed them to its table,
which had long stopped catching up and dropped them: Cat sat there and exited 1 ("the
end of round 5 never reached this computer"). A log is the answer to a restore only
while the table still catches up; after that it is a peer's whose match is over, and
the node rebuilds from it and learns the result."""

from __future__ import annotations

from linknet import LinkNet

from p2p8s.table.linkout import LinkCode


def _rounds_to_end(target: int) -> int:
    """The rounds the seeded match of :class:`LinkNet` plays to ``target``."""
    net = LinkNet(3, target=target)
    net.start()
    net.run(lambda: net.nodes[0].table.finished, 100_000)
    return net.nodes[0].table.match.round_number


def test_a_node_restored_rounds_ago_learns_the_result_from_the_logs_of_a_match_over(
        ) -> None:
    target = 150
    assert _rounds_to_end(target) >= 4  # restored in round 1, cut off in round 3
    net = LinkNet(3, target=target)
    net.start()
    net.run(lambda: net.applied(0) >= 3)
    net.cut_off(2)
    net.restore(2, 0, net.rejoined(2))
    cat = net.nodes[2]
    cat.auto = True
    # in round 2 it was welcomed back; in round 3 its key is in escrow again (its seat
    # can be taken over)
    net.run(lambda: cat.table.round_number >= 3 and net.applied(2) >= 2, 100_000)
    assert not cat.table.catching_up  # rounds of its own began there
    net.cut_off(2)  # once every payload of its got through: no sync asks it to rebuild
    net.run(lambda: all(net.nodes[s].link.done is not None for s in (0, 1)), 200_000)
    assert all(net.nodes[s].table.finished for s in (0, 1))
    for seat in (0, 1):
        net.connect(2, seat)
    net.run(lambda: cat.link.done is not None or cat.link.rebuild is not None, 100_000)
    assert cat.link.rebuild is not None  # before: None, and it waited for good
    assert cat.link.rebuild.why.code is LinkCode.REBUILD_OVER
    net.rebuild(2)
    net.run(lambda: net.nodes[2].link.done is not None, 100_000)
    assert net.nodes[2].table.finished
    assert len(net.transcripts()) == 1
