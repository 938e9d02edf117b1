"""A restarted node whose own link goes down while it waits for the log to rebuild from
(issue #11, Wi-Fi soak: Bob's ``p2p8s join`` after a kill -9 asked Cat for the log when a
57 s link-down hit Bob's link; it exited after the 60 s log timeout, "no player of the
table sent its log in time"). While it reaches nobody it says so and keeps dialling, with
no deadline; once the link is back it is let in again, asks anew and rebuilds.

Three in-process nodes on 127.0.0.1 (heartbeat 0.1 s, dead after 1 s), every connection
of seat 2 through a :class:`~net.faultproxy.FaultProxy`; seat 2 crashes mid-round and
comes back as a new node with its identity and its files (``join_lobby`` →
``rejoined``); its proxies swallow every byte from the moment it asks for the log for
three times its (shortened) log timeout, then heal.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from net.test_mesh import CODE, _yes
from net.test_mesh import Recorder as LobbyRecorder

from p2p8s.bots.registry import get_bot
from p2p8s.cli.words import PLAIN
from p2p8s.net import runner
from p2p8s.net.lobby import join_lobby
from p2p8s.net.node import Node
from p2p8s.net.runner import Options, Result, play_table
from p2p8s.rules import Ruleset
from p2p8s.store.tablelog import read_log
from p2p8s.table import events as tev
from p2p8s.table.linkout import LinkCode, Note
from p2p8s.table.logverify import verify

from .test_blackhole import _route, _until, proxied_table
from .test_runner import Recorder

#: The restarted node's log timeout here (60 s in play): the blackhole lasts 3 × longer.
LOG_TIMEOUT_S = 1.0


@pytest.mark.wall_clock
async def test_a_restarted_node_that_reaches_nobody_keeps_trying_and_rebuilds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a crash keeps the table secret on disk (a cancelled run would forget it, as a quit)
    monkeypatch.setattr(runner, "forget_secret", lambda *_a, **_k: None)
    fronts = [Recorder() for _ in range(3)]
    back = Recorder()
    told: list[Note] = []
    rules = Ruleset().with_changes(target=10_000)  # the match goes on past round 1
    async with proxied_table(rules) as (nodes, meshes, proxies):
        options = [Options(auto=get_bot("max"), auto_delay_s=0.05, rounds=1,
                           turn_timeout_s=5.0, linger_s=30.0, log_dir=tmp_path / str(i))
                   for i in range(3)]
        tasks = [asyncio.ensure_future(play_table(m, f, options=o))
                 for m, f, o in zip(meshes, fronts, options, strict=True)]
        again: Node | None = None
        try:
            await _until(lambda: all(len(f.of(tev.Applied)) >= 3 for f in fronts), 20)
            for option in options:
                option.auto_delay_s = 0.3  # the round lasts while seat 2 is away
            nodes[2].abort()  # a kill -9: no bye, no leave, nothing more logged
            meshes[2].log = lambda frame: None
            tasks[2].cancel()
            await _until(lambda: all(any(s[0] == 2 and not s[2] for s in f.seen)
                                     for f in fronts[:2]), 10)
            again = Node(identity=nodes[2].identity, name="P2", code=CODE, table=None,
                         host="127.0.0.1", heartbeat_s=0.1, dead_after_s=1.0)
            await again.__aenter__()
            _route(again, {nodes[0].port: proxies[0].port, nodes[1].port: proxies[1].port})
            async with asyncio.timeout(15):
                mesh = await join_lobby(again, [("127.0.0.1", nodes[0].port)],
                                        view=LobbyRecorder(), confirm=_yes)
            assert mesh is not None and mesh.rejoined and mesh.seat == 2
            assert set(mesh.peers) == {0, 1}
            for proxy in proxies[:2]:
                proxy.blackhole()  # its ask for the log goes nowhere, nor its heartbeats
            dropped = sum(p.dropped for p in proxies)
            start = time.monotonic()
            options.append(Options(
                auto=get_bot("max"), auto_delay_s=0.05, rounds=1, turn_timeout_s=5.0,
                log_dir=tmp_path / "2", log_timeout_s=LOG_TIMEOUT_S, waiting=told.append))
            rejoined = asyncio.ensure_future(play_table(mesh, back, options=options[-1]))
            await _until(lambda: bool(told), 10)  # both lost by heartbeat: it says so
            await asyncio.sleep(start + 3 * LOG_TIMEOUT_S - time.monotonic())
            assert not rejoined.done()  # past its log timeout it still tries
            assert sum(p.dropped for p in proxies) > dropped
            for proxy in proxies[:2]:
                proxy.heal()
            healed = time.monotonic()
            await _until(lambda: any(n.code is LinkCode.GOT_LOG for n in back.of(Note)), 20)
            for option in options:
                option.auto_delay_s = 0.02  # rebuilt: the round may end now
            async with asyncio.timeout(60):
                results = await asyncio.gather(tasks[0], tasks[1], rejoined,
                                               return_exceptions=True)
        finally:
            for task in tasks:
                task.cancel()
            if again is not None:
                await again.__aexit__(None, None, None)
    assert healed - start >= 3 * LOG_TIMEOUT_S
    assert all(isinstance(r, Result) and r.rounds == 1 for r in results), results
    assert [n.code for n in told] == [LinkCode.NOBODY_REACHABLE]
    assert PLAIN.note(Note(told[0].code, {**told[0].params, "mdns": False})) == (
        "Cannot reach anyone at the table: still trying (the last known addresses) to get "
        "the log of the table — Ctrl-C to leave")
    got = [n for n in back.of(Note) if n.code is LinkCode.GOT_LOG]
    assert len(got) == 1 and got[0].params["seat"] in (0, 1)
    assert sum(p.accepted for p in proxies[:2]) >= 4  # it dialled again through them
    paths = [sorted((tmp_path / str(i)).glob("*.p2p8slog")) for i in range(3)]
    assert [len(p) for p in paths] == [1, 1, 1]  # seat 2 continued its own file
    logs = [read_log(each[0]) for each in paths]
    marks = [[(m["transcript"], m["totals"]) for m in log.marks if "round_over" in m]
             for log in logs]
    assert marks[0] == marks[1] == marks[2] and len(marks[0]) == 1
    for log in logs:
        assert verify(log.frames).ok
