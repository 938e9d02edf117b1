"""A blackholed link (issue #6): one node's connections run through fault proxies.

Three in-process nodes on 127.0.0.1 with the short heartbeat of the mesh tests (0.1 s,
dead after 1 s). Every connection of seat 2 — the higher seat, so the one that dials
again — goes through a :class:`~net.faultproxy.FaultProxy`: its dials to seats 0 and 1,
and seat 1's dial to it. Mid-round the proxies swallow every byte (a pulled cable: no
FIN, no RST): the others notice within the heartbeat deadline, take seat 2 over through
the escrow and play on; healed, seat 2 dials again on its own (backoff), the runners
resend what the other missed, it is back and plays its seat from its next turn (a signed
choice). Every node ends with the same transcript and every log audits ok. The reset
variant (RST instead of silence) is noticed at once and heals by itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from net.faultproxy import FaultProxy
from net.test_mesh import Recorder as LobbyRecorder
from net.test_mesh import _node, _wait_for, _yes

from p2p8s.bots.registry import get_bot
from p2p8s.cli.main import cli
from p2p8s.cli.words import Speaker
from p2p8s.cli.words.table import said
from p2p8s.net.lobby import Mesh, Seating, host_lobby, join_lobby
from p2p8s.net.node import Connection, Node
from p2p8s.net.runner import Options, Result, play_table
from p2p8s.rules import Ruleset
from p2p8s.store.tablelog import read_log
from p2p8s.table import events as tev
from p2p8s.table.actions import CHOICE
from p2p8s.table.logverify import verify
from p2p8s.wire import Game, Role, SeatEntry, decode_body

from .test_runner import Recorder

#: The mesh tests' heartbeat: a silent peer is declared dead after this many seconds.
DEAD_AFTER_S = 1.0


class Timed(Recorder):
    """A recorder that also notes when each presence change was reported."""

    def __init__(self) -> None:
        super().__init__()
        self.at: list[tuple[float, int, bool]] = []

    def presence(self, seat: int, name: str, *, connected: bool, reason: str) -> None:
        super().presence(seat, name, connected=connected, reason=reason)
        self.at.append((time.monotonic(), seat, connected))


def _route(node: Node, via: dict[int, int]) -> None:
    """Make ``node`` dial ``127.0.0.1:via[port]`` whenever it dials a port in ``via``."""
    honest = node.connect

    async def connect(host: str, port: int, *, role: Role, **kwargs: Any) -> Connection:
        if port in via:
            host, port = "127.0.0.1", via[port]
        return await honest(host, port, role=role, **kwargs)

    node.connect = connect  # type: ignore[method-assign]


@contextlib.asynccontextmanager
async def proxied_table(rules: Ruleset, *, dead_after_s: Sequence[float] = (DEAD_AFTER_S,) * 3
                        ) -> AsyncIterator[tuple[list[Node], list[Mesh], list[FaultProxy]]]:
    """A dealt table of 3 nodes where every connection of seat 2 runs through a proxy
    (one per peer it dials, one for the peer that dials it); yields nodes, meshes and
    the proxies. ``dead_after_s``: each node's heartbeat deadline."""
    async with contextlib.AsyncExitStack() as stack:
        nodes = [await stack.enter_async_context(_node(f"P{i}", dead_after_s=dead_after_s[i]))
                 for i in range(3)]
        to0, to1, to2 = [await stack.enter_async_context(FaultProxy("127.0.0.1", n.port))
                         for n in nodes]
        _route(nodes[2], {nodes[0].port: to0.port, nodes[1].port: to1.port})
        for node in nodes[:2]:
            _route(node, {nodes[2].port: to2.port})
        host = nodes[0]
        seating = Seating(size=3, rules=rules, host=SeatEntry(
            seat=0, name="P0", key=host.key, addrs=("127.0.0.1",), port=host.port))
        commands: asyncio.Queue[str] = asyncio.Queue()
        host_task = asyncio.ensure_future(host_lobby(host, seating, view=LobbyRecorder(),
                                                     commands=commands, mesh_timeout_s=10))
        joins = []
        for i in (1, 2):  # one after another: seat i is P<i>
            joins.append(asyncio.ensure_future(join_lobby(
                nodes[i], [("127.0.0.1", host.port)], view=LobbyRecorder(), confirm=_yes,
                mesh_timeout_s=10)))
            await _wait_for(lambda i=i: len(seating.roster.seats) == i + 1)
        commands.put_nowait("deal")
        async with asyncio.timeout(15):
            meshes = [await host_task] + [await t for t in joins]
        assert all(m is not None for m in meshes)
        # seat 2's every connection really runs through the proxies
        assert to0.active == to2.active == 1 and to1.active == 0
        yield nodes, [m for m in meshes if m is not None], [to0, to1, to2]


async def _cut_while_sending(mesh: Mesh, proxies: Sequence[FaultProxy],
                             monkeypatch: pytest.MonkeyPatch) -> float:
    """Blackhole the proxies just as ``mesh``'s node posts its next game payload, so it
    is lost on the way (sent before the node can notice); returns when (monotonic)."""
    honest = Mesh.post
    cut: list[float] = []

    def post(self: Mesh, to: int | None, payload: bytes, *, prev: bytes = b""
             ) -> tuple[bytes, bytes]:
        if self is mesh and not cut:
            cut.append(time.monotonic())
            for proxy in proxies:
                proxy.blackhole()
        return honest(self, to, payload, prev=prev)

    monkeypatch.setattr(Mesh, "post", post)
    await _until(lambda: bool(cut), 10)
    return cut[0]


async def _until(predicate: Any, timeout_s: float) -> None:
    async with asyncio.timeout(timeout_s):
        while not predicate():
            await asyncio.sleep(0.01)


def _sent_kinds(frames: Sequence[bytes], seat: int) -> list[int]:
    """The game payload kinds ``seat`` signed, in log order."""
    out = []
    for frame in frames:
        message = decode_body(frame).message
        if message.seat == seat and isinstance(message.body, Game):
            out.append(message.body.payload[0])
    return out


def _texts(front: Recorder) -> list[str]:
    return [said(e, Speaker(names=front.names)) for e in front.of(tev.Info)]


async def test_a_blackholed_node_is_taken_over_then_heals_and_plays_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fronts = [Timed() for _ in range(3)]
    rules = Ruleset().with_changes(target=10_000)  # the match goes on past round 1
    async with proxied_table(rules) as (_nodes, meshes, proxies):
        options = [Options(auto=get_bot("max"), auto_delay_s=0.05, rounds=2,
                           turn_timeout_s=5.0, log_dir=tmp_path / str(i)) for i in range(3)]
        tasks = [asyncio.ensure_future(play_table(m, f, options=o))
                 for m, f, o in zip(meshes, fronts, options, strict=True)]
        try:
            await _until(lambda: all(len(f.of(tev.Applied)) >= 3 for f in fronts), 20)
            for option in options:
                option.auto_delay_s = 0.4  # the round lasts while seat 2 is away
            cut = await _cut_while_sending(meshes[2], proxies, monkeypatch)
            # the others notice within the heartbeat deadline (no FIN, no RST comes)
            await _until(lambda: all(any(s == 2 and not c for _, s, c in f.at)
                                     for f in fronts[:2]), DEAD_AFTER_S + 2.0)
            for front in fronts[:2]:
                noticed = next(t for t, s, c in front.at if s == 2 and not c)
                assert noticed - cut < DEAD_AFTER_S + 1.0
            # seat 2 is taken over through the escrow and the game goes on without it
            await _until(lambda: all(f.of(tev.SeatTakenOver) for f in fronts[:2]), 10)
            assert all({e.seat for e in f.of(tev.SeatTakenOver)} == {2} for f in fronts[:2])
            moved = len(fronts[0].of(tev.Applied))
            await _until(lambda: len(fronts[0].of(tev.Applied)) >= moved + 2, 10)
            assert sum(p.dropped for p in proxies) > 0  # the heartbeats went nowhere
            assert not fronts[2].of(tev.RoundOver)
            for proxy in proxies:
                proxy.heal()
            # seat 2 dials again by itself and is back everywhere
            await _until(lambda: all(f.of(tev.SeatBack) for f in fronts[:2]), 25)
            for front in fronts[:2]:  # it rebuilt its table from their log
                assert any(s[0] == 2 and s[2] and s[3] == "reconnected; it gets the log"
                           for s in front.seen), front.seen
                assert front.of(tev.SeatBack)[-1].seat == 2
            await _until(lambda: any(t.startswith("you are back: you play your seat again")
                                     for t in _texts(fronts[2])), 20)
            for option in options:
                option.auto_delay_s = 0.02
            async with asyncio.timeout(60):
                results = await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            for task in tasks:
                task.cancel()
    assert all(isinstance(r, Result) and r.rounds == 2 for r in results), results
    # the payload lost on the way was void: seat 2 rebuilt its table from the log
    assert [r.extra.get("rebuilt", 0) for r in results] == [0, 0, 1]  # type: ignore[union-attr]
    assert proxies[0].accepted + proxies[1].accepted >= 3  # it dialled again
    paths = [sorted((tmp_path / str(i)).glob("*.p2p8slog")) for i in range(3)]
    assert [len(p) for p in paths] == [1, 1, 1]  # one file each: seat 2 continued its own
    logs = [read_log(each[0]) for each in paths]
    # seat 2's file names the frames of its void table in a rebuilt mark: they stay in
    # the file, are no frames of the table (the others never got them), each once
    [rebuilt] = [m for m in logs[2].marks if m.get("rebuilt")]
    assert rebuilt["rejoined"] is True and logs[2].void
    assert len(rebuilt["void"]) == len(logs[2].void)
    others = set(logs[0].frames) | set(logs[1].frames)
    assert not set(logs[2].void) & others and not set(logs[2].void) & set(logs[2].frames)
    assert len(set(logs[2].frames)) == len(logs[2].frames)  # no frame twice
    audit = CliRunner().invoke(cli, ["audit", str(paths[2][0])])
    assert audit.exit_code == 0, audit.output
    assert (f"; {len(logs[2].void)} more kept for the record, of a table this node rebuilt "
            "(void: not audited)") in audit.output
    # seat 2 played its seat again through a signed choice, which every node logged
    for log in logs:
        assert CHOICE in _sent_kinds(log.frames, 2)
    marks = [[(m["transcript"], m["totals"]) for m in log.marks if "round_over" in m]
             for log in logs]
    assert marks[0][-1] == marks[1][-1] == marks[2][-1] and len(marks[0]) == 2
    assert marks[0] == marks[1]
    for each in paths:
        for path in each:  # the log seat 2 left off at the cut audits too
            assert verify(read_log(path).frames).ok, path


async def test_a_reset_link_is_noticed_at_once_and_heals_by_itself(tmp_path: Path) -> None:
    fronts = [Timed() for _ in range(3)]
    rules = Ruleset().with_changes(target=10_000)
    async with proxied_table(rules) as (_nodes, meshes, proxies):
        options = [Options(auto=get_bot("max"), auto_delay_s=0.05, rounds=1,
                           log_dir=tmp_path / str(i)) for i in range(3)]
        tasks = [asyncio.ensure_future(play_table(m, f, options=o))
                 for m, f, o in zip(meshes, fronts, options, strict=True)]
        try:
            await _until(lambda: all(len(f.of(tev.Applied)) >= 3 for f in fronts), 20)
            cut = time.monotonic()
            for proxy in proxies:
                proxy.reset()
            await _until(lambda: all(any(s == 2 and not c for _, s, c in f.at)
                                     for f in fronts[:2]), 2.0)
            for front in fronts[:2]:  # an RST is noticed at once, not by heartbeats
                noticed = next(t for t, s, c in front.at if s == 2 and not c)
                assert noticed - cut < DEAD_AFTER_S / 2
            await _until(lambda: all(any(s[0] == 2 and s[2] for s in f.seen)
                                     for f in fronts[:2]), 15)
            async with asyncio.timeout(60):
                results = await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            for task in tasks:
                task.cancel()
    assert all(isinstance(r, Result) and r.rounds == 1 for r in results), results
    logs = [read_log(next((tmp_path / str(i)).glob("*.p2p8slog"))) for i in range(3)]
    marks = [[(m["transcript"], m["totals"]) for m in log.marks] for log in logs]
    assert marks[0] == marks[1] == marks[2] and len(marks[0]) == 1
    for log in logs:
        assert verify(log.frames).ok
