"""No turn counts as stalled while the game waits for a node gone (R-TIMER, the others'
clocks; protocol/table.md "Stalled turn").

Newcomer QA, a table of three: Ann's seat was taken over in a round (her host slept),
then Cat's node was killed — and Cat's key could not be rebuilt that round (Ann, one of
its escrow holders, had lost her share with her seat), so the game waited for Cat. The
turn was on a seat whose move Bob's node had to send, and Bob's node could not move it
without Cat's cards: Ann's clock counted Bob's turn as stalled, dropped her connection
to Bob to catch up, then gave up on him — "Cannot reach anyone at the table" seven times
in five minutes, "Ann is back (reconnected)" as often on Bob's screen. While the game
waits (:attr:`Table.paused`), nothing is owed by the nodes still here (four seats here)."""

from __future__ import annotations

import pytest
from table_helpers import until

from p2p8s.table.harness import TableNet, make_config, make_keys


@pytest.mark.parametrize(("seed", "turn"), [(b"pz1", 1), (b"pz4", 0)])
def test_a_turn_the_nodes_here_cannot_move_while_the_game_waits_is_not_stalled(
        seed: bytes, turn: int) -> None:
    keys = make_keys(4)
    net = TableNet(make_config(4, target=10, keys=keys), seed=seed, keys=keys)
    net.start()
    until(net, lambda: net.nodes[1].round is not None
          and net.nodes[1].round.turn not in (None, 0))
    net.cut_off(0)  # Ann's seat is taken over this round: her shares of it are spent
    until(net, lambda: 0 in net.nodes[1].taken_over)
    net.reconnect(0)
    until(net, lambda: net.nodes[1].round is not None and net.nodes[1].round.turn == 0)
    net.cut_off(2)  # Cat's key cannot be rebuilt this round: the game waits for Cat
    net.run()
    live = (0, 1, 3)
    for s in live:
        node = net.nodes[s]
        assert node.paused == {2} and node.round is not None
        assert node.round.turn == turn  # a seat (its own, or Ann's) Bob's node sends
        assert node.stall is None, node.stall  # before: Bob's turn stalled, Bob lost
    net.reconnect(2)
    net.run()
    assert all(not net.nodes[s].paused for s in (*live, 2))
    assert len({net.nodes[s].transcript for s in (*live, 2)}) == 1
