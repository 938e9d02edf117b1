"""Failures the soak (benchmarks/soak.py) found, replayed between in-process runners.

A node killed in the middle of a broadcast: its last crypto message reached one peer and
not the other (the soak: Cat's strip for Dan's take reached Ann, then Cat was SIGKILLed
before it wrote to Bob and Dan). The peer that has it does not strip that layer again
when the seat is taken over, so the peer without it waited for it for good ("no move for
60 s"). Now each runner relays the lost node's last broadcasts to the others when it
loses it, and a peer that missed one takes it in before the seat is taken over.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from p2p8s.bots.registry import get_bot
from p2p8s.net.lobby import Mesh
from p2p8s.net.runner import Options, Result, play_table
from p2p8s.rules import Ruleset
from p2p8s.store.tablelog import read_log
from p2p8s.table import events as tev
from p2p8s.table.actions import CRYPTO
from p2p8s.table.logverify import verify

from .test_blackhole import Timed, _until, proxied_table


async def test_a_broadcast_cut_short_by_a_dying_node_reaches_every_peer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fronts = [Timed() for _ in range(3)]
    rules = Ruleset().with_changes(target=10_000)
    async with proxied_table(rules) as (_nodes, meshes, proxies):
        to0, to1, to2 = proxies  # seat 2's links: to seat 0 (to0), to seat 1 (to2, to1)
        options = [Options(auto=get_bot("max"), auto_delay_s=0.05, rounds=1,
                           turn_timeout_s=5.0, linger_s=0.5, log_dir=tmp_path / str(i))
                   for i in range(3)]  # (seat 2 is gone for good: not waited for long)
        tasks = [asyncio.ensure_future(play_table(m, f, options=o))
                 for m, f, o in zip(meshes, fronts, options, strict=True)]
        try:
            await _until(lambda: all(len(f.of(tev.Applied)) >= 3 for f in fronts), 20)
            honest = Mesh.post
            cut: list[float] = []
            loop = asyncio.get_running_loop()

            def post(self: Mesh, to: int | None, payload: bytes, *, prev: bytes = b""
                     ) -> tuple[bytes, bytes]:
                if self is meshes[2] and not cut and to is None and payload[:1] == bytes(
                        [CRYPTO]):
                    # seat 2 "dies" while broadcasting: seat 1 never gets this message,
                    # seat 0 does; then seat 2 is silent for good (no FIN, no RST)
                    cut.append(time.monotonic())
                    to1.blackhole()
                    to2.blackhole()
                    loop.call_later(0.3, to0.blackhole)
                return honest(self, to, payload, prev=prev)

            monkeypatch.setattr(Mesh, "post", post)
            await _until(lambda: bool(cut), 10)
            # both notice, take seat 2 over through the escrow and finish the round
            async with asyncio.timeout(60):
                results = await asyncio.gather(*tasks[:2], return_exceptions=True)
        finally:
            for task in tasks:
                task.cancel()
    assert all(isinstance(r, Result) and r.rounds == 1 for r in results), results
    assert all({e.seat for e in f.of(tev.SeatTakenOver)} == {2} for f in fronts[:2])
    # seat 1 took what it missed of seat 2 from seat 0's relay
    relayed = [r.extra.get("relayed", 0) for r in results]  # type: ignore[union-attr]
    assert relayed[0] == 0 and relayed[1] >= 1, relayed
    logs = [read_log(next((tmp_path / str(i)).glob("*.p2p8slog"))) for i in range(2)]
    assert logs[0].marks[-1]["transcript"] == logs[1].marks[-1]["transcript"]
    for log in logs:
        assert verify(log.frames).ok
