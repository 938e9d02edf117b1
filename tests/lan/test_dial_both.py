"""Two nodes that dial each other at once keep the same connection (issue #11: the soak's
freeze, Cat and Dan losing each other within a second of every reconnect).

Three in-process nodes on 127.0.0.1 (:func:`~lan.test_blackhole.proxied_table`: seat 2's
connections run through fault proxies). Mid-round the link between seats 1 and 2 is
reset; seat 2 dials seat 1 again (the higher seat dials) and, at the same moment, seat 1
dials seat 2 (as a restarted node dials every seat; the test makes both dials). Both
handshakes finish, so each end holds two live connections to the other for a moment: both
keep the one the higher seat dialled and close the other, the pair ends with one stable
connection and the round ends alike everywhere, every log auditing ok.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from p2p8s.bots.registry import get_bot
from p2p8s.net.node import Connection, JoinRefused
from p2p8s.net.runner import Options, Result, play_table
from p2p8s.rules import Ruleset
from p2p8s.store.tablelog import read_log
from p2p8s.table import events as tev
from p2p8s.table.logverify import verify
from p2p8s.wire import Role

from .test_blackhole import Timed, _until, proxied_table


@pytest.mark.wall_clock
async def test_two_nodes_dialling_each_other_at_once_keep_one_connection(
        tmp_path: Path) -> None:
    fronts = [Timed() for _ in range(3)]
    rules = Ruleset().with_changes(target=10_000)
    async with proxied_table(rules) as (nodes, meshes, proxies):
        gate = asyncio.Event()
        routed = nodes[2].connect

        async def held(host: str, port: int, *, role: Role, **kwargs: Any) -> Connection:
            if port == nodes[1].port:  # seat 2's redial of seat 1 waits for the test's
                await gate.wait()      # dials
            return await routed(host, port, role=role, **kwargs)

        nodes[2].connect = held  # type: ignore[method-assign]
        options = [Options(auto=get_bot("max"), auto_delay_s=0.05, rounds=1,
                           log_dir=tmp_path / str(i)) for i in range(3)]
        tasks = [asyncio.ensure_future(play_table(m, f, options=o))
                 for m, f, o in zip(meshes, fronts, options, strict=True)]
        try:
            await _until(lambda: all(len(f.of(tev.Applied)) >= 3 for f in fronts), 20)
            for option in options:
                option.auto_delay_s = 0.3  # the round lasts while the pair reconnects
            dialled_1 = proxies[1].accepted
            proxies[2].reset()  # seat 1's connection to seat 2 (the mesh's dial)
            await _until(lambda: any(s == 2 and not c for _, s, c in fronts[1].at)
                         and any(s == 1 and not c for _, s, c in fronts[2].at), 5)
            # both dial at once (seat 2's redial waits meanwhile)
            dials = await asyncio.gather(
                nodes[1].connect("127.0.0.1", nodes[2].port, role=Role.PEER),
                routed("127.0.0.1", nodes[1].port, role=Role.PEER), return_exceptions=True)
            gate.set()
            # seat 2 kept its own dial, so seat 1's may have been refused (`duplicate`)
            assert isinstance(dials[1], Connection), dials
            assert isinstance(dials[0], Connection | JoinRefused), dials
            assert proxies[1].accepted > dialled_1 and proxies[2].accepted >= 2
            # the pair settles on seat 2's dial at both ends (an end may use its own dial
            # for a moment, until the other's handshake is taken in and it is retired)
            await _until(lambda: 2 in meshes[1].peers and 1 in meshes[2].peers
                         and not meshes[1].peers[2].dialled and meshes[2].peers[1].dialled, 10)
            kept = (meshes[1].peers[2], meshes[2].peers[1])
            for option in options:
                option.auto_delay_s = 0.05
            async with asyncio.timeout(60):
                results = await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            for task in tasks:
                task.cancel()
    assert all(isinstance(r, Result) and r.rounds == 1 for r in results), results
    # both ends kept seat 2's dial, and it lasted to the end: no loss after coming back
    assert not kept[0].dialled and kept[1].dialled
    for front, other in ((fronts[1], 2), (fronts[2], 1)):
        changes = [c for _, s, c in front.at if s == other]
        assert changes == [False, True], changes
    logs = [read_log(next((tmp_path / str(i)).glob("*.p2p8slog"))) for i in range(3)]
    marks = [[(m["transcript"], m["totals"]) for m in log.marks] for log in logs]
    assert marks[0] == marks[1] == marks[2] and len(marks[0]) == 1
    for log in logs:
        assert verify(log.frames).ok
