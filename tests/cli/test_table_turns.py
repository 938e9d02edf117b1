"""A person at a table sees whose turn it is as turns pass (issue 14: a joiner without
--auto saw only "Round 1: … deals." until its own turn)."""

from __future__ import annotations

import io
import itertools

from p2p8s.cli.table_view import TableScreen
from p2p8s.cli.terminal import Terminal
from p2p8s.table.harness import TableNet, make_config


def test_whose_turn_is_said_once_each_time_it_passes_to_another_seat() -> None:
    net = TableNet(make_config(3, target=1), seed=b"turns", idle=())
    net.start()
    net.deliver_all()
    out = io.StringIO()
    screen = TableScreen(Terminal(out, io.StringIO(), ascii=True), me=0)
    node = net.nodes[0]
    screen.started(node, net.config, log=None, auto=None)
    seen = 0
    for _ in range(400):
        events = net.events[0][seen:]
        seen += len(events)
        if events:
            screen.show(node, events, net.now)
        if node.round is not None and node.round.over:
            break
        if not net.step():
            break
    lines = out.getvalue().splitlines()
    said = [line for line in lines if line.endswith("'s turn...")]
    assert said, out.getvalue()
    assert {line.removesuffix("'s turn...") for line in said} <= {"Bea", "Cem"}
    assert "You's turn..." not in said  # this seat's own turn is its prompt
    for before, after in itertools.pairwise(lines):  # never twice in a row
        assert not (before in said and after == before), out.getvalue()
