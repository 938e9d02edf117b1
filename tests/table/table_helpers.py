"""Shared helpers of the table tests: run a net to a quiet point, find a moment."""

from __future__ import annotations

from collections.abc import Callable

from p2p8s.cli.table_view import applied_line
from p2p8s.cli.words import Speaker
from p2p8s.cli.words import table as words
from p2p8s.table import Table
from p2p8s.table import events as tev
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


def drop_on_turn(net: TableNet, gone: int, steps: int) -> None:
    """Start ``net``; once ``gone``'s node is on turn its network drops (both sides told)
    and the others play ``steps`` steps on: its seat is taken over."""
    net.start()
    until(net, lambda: net.nodes[gone].my_turn)
    net.cut_off(gone)
    for _ in range(steps):
        net.step()
    assert gone in net.nodes[0].taken_over


def on_turn(net: TableNet) -> int:
    """The seat on turn (as every node agrees) at a quiet point."""
    turns = {n.round.turn for n in net.nodes.values() if n.round is not None}
    assert len(turns) == 1
    return turns.pop()


def node_of_turn(net: TableNet) -> Table:
    """The node whose seat is on turn."""
    return net.nodes[on_turn(net)]


def said(event: object, net: TableNet | None = None, seat: int | None = None) -> str:
    """The words of a table event (an Info, a Fault, a RoundOver's audit) as the node of
    ``seat`` says them to its person (names from ``net``'s config)."""
    names = net.config.names if net is not None else ()
    return words.said(event, Speaker(names=names, me=seat))


def texts(net: TableNet, seat: int, kind: type[object] = tev.Info) -> list[str]:
    """The words of ``seat``'s events of ``kind`` (Info and its kinds by default)."""
    return [said(e, net, seat) for e in net.events[seat] if isinstance(e, kind)]


def applied_text(event: tev.Applied, net: TableNet, seat: int) -> str:
    """The sentence of an applied action as the node of ``seat`` narrates it."""
    return applied_line(event, Speaker(net.config.names, seat), net.config.rules)
