"""A roster echo that comes after the deal (issue #11): a peer whose copy of this node's
echo was lost with a dropped connection is still completing its mesh, so a node in play
answers an ``echo {index 0}`` once per connection — and two nodes in play never echo
back and forth (protocol/wire.md, "Lobby and mesh" step 4)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from net.test_mesh import table as dealt_table

from p2p8s.bots.registry import get_bot
from p2p8s.net.node import Connection
from p2p8s.net.runner import Options, Result, play_table
from p2p8s.wire import Echo

from .test_runner import Recorder


def _echoes_sent(node: Any) -> list[tuple[Connection, Echo]]:
    """Record every echo ``node`` sends from now on (the real send still runs)."""
    sent: list[tuple[Connection, Echo]] = []
    real = node.send

    def send(conn: Connection, body: object) -> None:
        if isinstance(body, Echo):
            sent.append((conn, body))
        real(conn, body)

    node.send = send
    return sent


async def test_a_node_in_play_answers_a_late_roster_echo_once_per_connection(
        tmp_path: Path) -> None:
    async with dealt_table(2) as (_nodes, meshes, _views):
        host, guest = meshes
        by_host, by_guest = _echoes_sent(host.node), _echoes_sent(guest.node)
        games = [asyncio.ensure_future(play_table(m, Recorder(), options=Options(
            auto=get_bot("karl"), auto_delay_s=0.05, rounds=1, log_dir=tmp_path / str(i))))
            for i, m in enumerate(meshes)]
        conn = guest.peers[0]
        for _ in range(2):  # the guest's mesh echoes again (twice, as if on two drops)
            guest.node.send(conn, Echo(index=0, digest=guest.digest))
        async with asyncio.timeout(60):
            results = await asyncio.gather(*games)
    assert all(isinstance(r, Result) and r.rounds == 1 for r in results), results
    # the host answered once, with its own digest, on the connection the echoes came by
    assert [(c.key, e) for c, e in by_host] == [
        (guest.node.key, Echo(index=0, digest=host.digest))]
    # the guest, in play too, answered the host's answer once: nothing more went back
    assert [e for _, e in by_guest] == [Echo(index=0, digest=guest.digest)] * 3
