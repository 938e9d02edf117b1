"""Shared helpers of the table tests: run a net to a quiet point, find a moment."""

from __future__ import annotations

from collections.abc import Callable

from p2p8s.table import Table
from p2p8s.table.harness import TableNet


def quiet(net: TableNet) -> None:
    """Deliver everything in flight (nobody acts, the clock stands)."""
    net.deliver_all()


def until(net: TableNet, pred: Callable[[], bool], max_steps: int = 100_000) -> None:
    """Step the net (acting and timers included) until ``pred()`` holds."""
    for _ in range(max_steps):
        if pred():
            return
        if not net.step():
            break
    assert pred(), "the moment never came"


def on_turn(net: TableNet) -> int:
    """The seat on turn (as every node agrees) at a quiet point."""
    turns = {n.round.turn for n in net.nodes.values() if n.round is not None}
    assert len(turns) == 1
    return turns.pop()


def node_of_turn(net: TableNet) -> Table:
    """The node whose seat is on turn."""
    return net.nodes[on_turn(net)]
