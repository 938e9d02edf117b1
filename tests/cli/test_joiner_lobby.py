"""A joiner seated in the lobby is told what it can do, and quit leaves cleanly
(issue 14: help and quit were silently ignored there), over real loopback sockets."""

from __future__ import annotations

import asyncio

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p8s.cli.table_play import LobbyEnd, LobbyLines, seated_lobby
from p2p8s.net.lobby import Seating, host_lobby, join_lobby
from p2p8s.net.node import Node, Reason
from p2p8s.net.runner import EOF_MARK
from p2p8s.rules import Ruleset
from p2p8s.wire import Roster, SeatEntry

CODE = "7KQ4MX"


def _node(name: str, tid: bytes | None) -> Node:
    return Node(identity=Ed25519PrivateKey.generate(), name=name, code=CODE, table=tid,
                host="127.0.0.1", heartbeat_s=0.1, dead_after_s=1.0)


class _HostView:
    def __init__(self) -> None:
        self.gone: list[str] = []

    def table(self, roster: Roster) -> None:
        pass

    def sat_down(self, entry: SeatEntry) -> None:
        pass

    def left(self, entry: SeatEntry, reason: Reason) -> None:
        self.gone.append(entry.name)

    def away(self, entry: SeatEntry, reason: Reason, grace_s: float) -> None:
        pass

    def back(self, entry: SeatEntry) -> None:
        pass

    def reconnecting(self, reason: Reason, grace_s: float) -> None:
        pass

    def reconnected(self, entry: SeatEntry) -> None:
        pass

    def dealing(self, roster: Roster) -> None:
        pass


async def _yes(roster: Roster) -> bool:
    return True


async def _in_lobby(typed: list[str]) -> tuple[object, _HostView, int]:
    """Bob joins Ann's table and types ``typed``; what seated_lobby returned, the
    host's view, and the seats taken at the end."""
    async with _node("Ann", bytes.fromhex("5a1e0c7d2b9f4e01")) as ann, \
            _node("Bob", None) as bob:
        seating = Seating(size=3, rules=Ruleset(), host=SeatEntry(
            seat=0, name="Ann", key=ann.key, addrs=("127.0.0.1",), port=ann.port))
        view = _HostView()
        commands: asyncio.Queue[str] = asyncio.Queue()
        host = asyncio.ensure_future(host_lobby(ann, seating, view=view, commands=commands,
                                                mesh_timeout_s=5))
        lines: asyncio.Queue[str] = asyncio.Queue()
        for line in typed:
            lines.put_nowait(line)
        try:
            async with asyncio.timeout(5):
                got = await _run(bob, ann, lines)
                await bob.aclose()  # as join does once its lobby ends
                while not view.gone:
                    await asyncio.sleep(0.01)
            return got, view, len(seating.roster.seats)
        finally:
            host.cancel()


async def _run(bob: Node, ann: Node, lines: asyncio.Queue[str]) -> object:
    view = LobbyLines(me=bob.key)
    return await seated_lobby(join_lobby(bob, [("127.0.0.1", ann.port)], view=view,
                                         confirm=_yes), view, lines)


async def test_a_seated_joiner_is_told_how_to_leave_and_quit_leaves(
        capsys: pytest.CaptureFixture[str]) -> None:
    got, view, seats = await _in_lobby(["help\n", "\n", "deal\n", "quit\n"])
    assert got is LobbyEnd.LEFT
    assert view.gone == ["Bob"] and seats == 1  # the host saw Bob leave
    out = capsys.readouterr().out
    tail = out[out.index("Waiting for the host to deal"):].splitlines()
    assert tail == [
        "Waiting for the host to deal. Type quit to leave.",
        "In the lobby: quit (or q) leaves the table; the host deals when everyone is "
        "there, then the game begins here.",
        "'deal' is not a lobby command: the host deals; type quit to leave.",
    ]


async def test_the_end_of_input_keeps_a_joiner_seated() -> None:
    lines: asyncio.Queue[str] = asyncio.Queue()
    lines.put_nowait(EOF_MARK)
    async with _node("Ann", bytes.fromhex("5a1e0c7d2b9f4e02")) as ann, \
            _node("Bob", None) as bob:
        seating = Seating(size=2, rules=Ruleset(), host=SeatEntry(
            seat=0, name="Ann", key=ann.key, addrs=("127.0.0.1",), port=ann.port))
        commands: asyncio.Queue[str] = asyncio.Queue()
        host = asyncio.ensure_future(host_lobby(ann, seating, view=_HostView(),
                                                commands=commands, mesh_timeout_s=5))
        async with asyncio.timeout(5):
            joined = asyncio.ensure_future(_run(bob, ann, lines))
            while len(seating.roster.seats) < 2:
                await asyncio.sleep(0.01)
            commands.put_nowait("deal")
            mesh, _ = await joined, await host
        assert mesh is not None and mesh is not LobbyEnd.LEFT
        assert lines.get_nowait() == EOF_MARK  # left for the table's reader
