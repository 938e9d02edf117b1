"""A node back at a new address while its old sockets still look open (issue #11).

Three in-process nodes on 127.0.0.1; every connection of seat 2 runs through a
:class:`~net.faultproxy.FaultProxy`. Seats 0 and 1 notice a silent peer only after 30 s,
seat 2 after 1 s. Just as seat 2 posts a move, its proxies swallow every byte (its old
address is gone: the move sits in sockets that look open to the others). Seat 2 dials
again through new proxies (its new address); seats 0 and 1 take the new connection in
place of the old one at once — no ``duplicate`` refusal, no takeover — the ``sync``
resends the move, and the round ends alike everywhere, every log auditing ok.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest
from net.faultproxy import FaultProxy

from p2p8s.bots.registry import get_bot
from p2p8s.net.runner import Options, Result, play_table
from p2p8s.rules import Ruleset
from p2p8s.store.tablelog import read_log
from p2p8s.table import events as tev
from p2p8s.table.logverify import verify

from .test_blackhole import Timed, _cut_while_sending, _route, _until, proxied_table


@pytest.mark.wall_clock
async def test_a_node_back_at_a_new_address_replaces_its_open_looking_sockets(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fronts = [Timed() for _ in range(3)]
    rules = Ruleset().with_changes(target=10_000)
    async with (proxied_table(rules, dead_after_s=(30.0, 30.0, 1.0)) as (nodes, meshes,
                                                                         proxies),
                contextlib.AsyncExitStack() as stack):
        new = [await stack.enter_async_context(FaultProxy("127.0.0.1", n.port))
               for n in nodes[:2]]
        options = [Options(auto=get_bot("max"), auto_delay_s=0.05, rounds=1,
                           turn_timeout_s=20.0, log_dir=tmp_path / str(i)) for i in range(3)]
        tasks = [asyncio.ensure_future(play_table(m, f, options=o))
                 for m, f, o in zip(meshes, fronts, options, strict=True)]
        try:
            await _until(lambda: all(len(f.of(tev.Applied)) >= 3 for f in fronts), 20)
            _route(nodes[2], {nodes[0].port: new[0].port, nodes[1].port: new[1].port})
            await _cut_while_sending(meshes[2], proxies, monkeypatch)
            # seat 2 notices (1 s) and dials again from its new address; the others still
            # hold the old sockets (their deadline is 30 s) and take the new ones instead
            await _until(lambda: new[0].accepted >= 1 and new[1].accepted >= 1, 10)
            async with asyncio.timeout(25):  # well before the others' 30 s deadline
                results = await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            for task in tasks:
                task.cancel()
    assert all(isinstance(r, Result) and r.rounds == 1 for r in results), results
    assert sum(p.dropped for p in proxies) > 0  # the move went into the dead sockets
    assert results[2].extra.get("resent", 0) >= 1  # type: ignore[union-attr]
    for front in fronts[:2]:  # to them seat 2 never left: no loss, no takeover
        assert not any(s == 2 for _, s, _ in front.at), front.at
        assert not front.of(tev.SeatTakenOver)
    logs = [read_log(next((tmp_path / str(i)).glob("*.p2p8slog"))) for i in range(3)]
    marks = [[(m["transcript"], m["totals"]) for m in log.marks] for log in logs]
    assert marks[0] == marks[1] == marks[2] and len(marks[0]) == 1
    for log in logs:
        assert verify(log.frames).ok
