"""The lobby tells a joiner who sits where as people sit down, also those who sat down
while it looked at the table before answering; the lobby's seats get rejoin priority."""

from __future__ import annotations

import asyncio

from p2p8s.net.lobby import Seating, host_lobby, join_lobby
from p2p8s.rules import Ruleset
from p2p8s.wire import Roster, SeatEntry

from .test_mesh import Recorder, _node, _wait_for, _yes


async def test_who_sat_down_while_a_joiner_looked_at_the_table_is_said() -> None:
    async with _node("Ann") as ann, _node("Bob", tid=None) as bob, \
            _node("Cat", tid=None) as cat:
        seating = Seating(size=4, rules=Ruleset(), host=SeatEntry(
            seat=0, name="Ann", key=ann.key, addrs=("127.0.0.1",), port=ann.port))
        commands: asyncio.Queue[str] = asyncio.Queue()
        host = asyncio.ensure_future(host_lobby(ann, seating, view=Recorder(),
                                                commands=commands, mesh_timeout_s=5))
        answer: asyncio.Future[bool] = asyncio.Future()
        shown = asyncio.Event()

        async def bob_thinks(roster: Roster) -> bool:
            shown.set()
            return await answer

        bob_view = Recorder()
        bob_task = asyncio.ensure_future(join_lobby(
            bob, [("127.0.0.1", ann.port)], view=bob_view, confirm=bob_thinks,
            mesh_timeout_s=5))
        await asyncio.wait_for(shown.wait(), 5)
        cat_task = asyncio.ensure_future(join_lobby(
            cat, [("127.0.0.1", ann.port)], view=Recorder(), confirm=_yes,
            mesh_timeout_s=5))
        await _wait_for(lambda: len(seating.roster.seats) == 2)  # Cat sat down first
        answer.set_result(True)
        await _wait_for(lambda: len(seating.roster.seats) == 3)
        assert bob_view.seen == ["table 1/4", "sat Cat 1", "sat Bob 2"]
        # the host's node gives the lobby's seats rejoin priority
        assert ann.members == {ann.key, bob.key, cat.key}
        assert bob.members == {ann.key, bob.key, cat.key}
        commands.put_nowait("deal")
        async with asyncio.timeout(10):
            meshes = [await host, await bob_task, await cat_task]
        assert all(m is not None for m in meshes)
