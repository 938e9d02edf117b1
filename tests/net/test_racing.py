"""The adverts of a table code are dialled at once: copies that accept and never answer
do not hold the join back, and the cancelled handshakes are no failed guesses on the
real table (real sockets on 127.0.0.1)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from p2p8s.net.errors import NetCode, Unreachable
from p2p8s.net.lobby import Seating, host_lobby, join_lobby
from p2p8s.net.racing import connect_first
from p2p8s.rules import Ruleset
from p2p8s.wire import Role, SeatEntry

from .test_mesh import Recorder, _node

#: Each address's handshake time in these tests: tried in turn, three silent copies
#: would hold a join for 3 × 30 s, far past the test's own deadline.
SLOW_DIAL_S = 30.0


class Silent:
    """A listener that accepts and never answers (a copy of a table's advert); it
    records what happens, in order, in the shared ``log``."""

    def __init__(self, name: str, log: list[str]) -> None:
        self.name, self.log = name, log
        self.server: asyncio.Server | None = None
        self.port = 0

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.log.append(f"{self.name} accepted")
        while await reader.read(4096):
            pass
        self.log.append(f"{self.name} closed")
        writer.close()


@asynccontextmanager
async def _silent(n: int, log: list[str]) -> AsyncIterator[list[Silent]]:
    fakes = [Silent(f"fake{i}", log) for i in range(n)]
    for fake in fakes:
        fake.server = await asyncio.start_server(fake._serve, "127.0.0.1", 0)
        fake.port = int(fake.server.sockets[0].getsockname()[1])
    try:
        yield fakes
    finally:
        for fake in fakes:
            assert fake.server is not None
            fake.server.close()


async def test_silent_copies_do_not_hold_the_join_back() -> None:
    log: list[str] = []
    async with _silent(3, log) as fakes, _node("Ann") as ann, _node("Bob", tid=None) as bob:
        seating = Seating(size=3, rules=Ruleset(), host=SeatEntry(
            seat=0, name="Ann", key=ann.key, addrs=("127.0.0.1",), port=ann.port))
        view = Recorder()
        host = asyncio.ensure_future(host_lobby(ann, seating, view=view,
                                                commands=asyncio.Queue(), mesh_timeout_s=5))
        slow: list[int] = []
        sat = asyncio.Event()

        async def sit(roster: object) -> bool:
            sat.set()
            return True
        # the copies are named first ("Aaa"): tried in turn, they came first
        groups = [[("127.0.0.1", f.port)] for f in fakes] + [[("127.0.0.1", ann.port)]]
        joining = asyncio.ensure_future(join_lobby(
            bob, [], view=Recorder(), confirm=sit, groups=groups,
            dial_timeout_s=SLOW_DIAL_S, slow=slow.append))
        try:
            await asyncio.wait_for(sat.wait(), 10)  # the real table showed its rules
            log.append("table shown")
            await asyncio.sleep(0.2)  # the cancelled copies see their connection close
        finally:
            joining.cancel()
            host.cancel()
            await asyncio.gather(joining, host, return_exceptions=True)
        # all four were dialled together; once the table proved the code the copies
        # were let go (no copy waited for its 30 s)
        assert sorted(log[:3]) == ["fake0 accepted", "fake1 accepted", "fake2 accepted"]
        assert {e for e in log if e.endswith("closed")} == {
            "fake0 closed", "fake1 closed", "fake2 closed"}, log
        assert slow == []  # it took less than SLOW_S
        # the cut handshakes counted as no wrong guess at the real table
        assert ann._door.admission._sources["127.0.0.1"].failures == 0


async def test_none_proves_the_code_lists_every_failure_in_order() -> None:
    log: list[str] = []
    async with _silent(2, log) as fakes, _node("Bob", tid=None) as bob:
        groups = [[("127.0.0.1", f.port)] for f in fakes]
        said: list[int] = []
        with pytest.raises(Unreachable) as caught:
            await connect_first(bob, groups, role=Role.JOIN, timeout_s=0.3,
                                slow=said.append)
    assert caught.value.code is NetCode.NONE_REACHED
    failures = caught.value.params["failures"]
    assert [f.params["where"] for f in failures] == [
        f"127.0.0.1:{f.port}" for f in fakes]
    assert all(f.code is NetCode.HANDSHAKE_TIMEOUT for f in failures)
    assert said == []


async def test_a_slow_join_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("p2p8s.net.racing.SLOW_S", 0.05)
    log: list[str] = []
    async with _silent(2, log) as fakes, _node("Bob", tid=None) as bob:
        said: list[int] = []
        with pytest.raises(Unreachable):
            await connect_first(bob, [[("127.0.0.1", f.port)] for f in fakes],
                                role=Role.JOIN, timeout_s=0.3, slow=said.append)
    assert said == [2]


async def test_at_once_bounds_the_dials_in_flight() -> None:
    log: list[str] = []
    async with _silent(3, log) as fakes, _node("Bob", tid=None) as bob:
        with pytest.raises(Unreachable):
            await connect_first(bob, [[("127.0.0.1", f.port)] for f in fakes],
                                role=Role.JOIN, timeout_s=0.3, at_once=1)
    # one at a time: each copy let go before the next was dialled (each handshake
    # that timed out tried again on a fresh connection, connecting.HANDSHAKE_ATTEMPTS)
    assert log == [f"fake{i} {what}" for i in range(3) for _ in range(3)
                   for what in ("accepted", "closed")]
