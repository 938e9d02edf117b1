"""A node waiting for a log that reaches nobody (issue #11, Wi-Fi soak: its own link down
for a minute) has no deadline meanwhile: it says so once, dials every seat it does not
reach, and rebuilds from the node that comes back, however long that takes; nodes that
are reached and stay silent still end the wait after the log timeout. A unit test of
:func:`p2p8s.net.catchup.restore` with a scripted mesh (events in, sends out) and a
scripted clock: a :class:`Gap` is a stretch of time with no event."""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest

from p2p8s.errors import Note
from p2p8s.net.catchup import restore
from p2p8s.net.errors import NetCode
from p2p8s.net.node import Connected, Incoming, Lost
from p2p8s.table.linkout import LinkCode, PeerLost, TableFailed
from p2p8s.table.sync import LOG_PART, log_parts
from p2p8s.wire import Game, Role

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "table"))
from linknet import LinkNet


@dataclass(frozen=True)
class Gap:
    """``seconds`` pass with no event."""

    seconds: float


class _Conn(SimpleNamespace):
    def set_seat(self, seat: int | None) -> None:
        self.seat = seat


def _conn(key: bytes, seat: int | None = None) -> _Conn:
    return _Conn(key=key, closed=False, hello=SimpleNamespace(role=Role.HOST), seat=seat)


class _Mesh:
    """What :func:`restore` uses of a :class:`~p2p8s.net.lobby.Mesh`: seat 0 of
    ``net``'s table, asking on ``peers``; ``events`` come in order (a gap longer than the
    wait asked for ends it with TimeoutError), then none."""

    def __init__(self, net: LinkNet, peers: dict[int, _Conn], events: list[object]) -> None:
        self.seat, self.digest, self.peers, self.early = 0, b"alone", peers, []
        self.events = events
        self.waited: list[float | None] = []
        keys = {s.key: s.seat for s in net.config.seats}
        self.roster = SimpleNamespace(seat_of=keys.get, seats=[
            SimpleNamespace(seat=s.seat, key=s.key) for s in net.config.seats])
        self.node = SimpleNamespace(send=lambda conn, game: None,
                                    identity=SimpleNamespace(sign=net.keys[0].sign))

    async def next_event(self, timeout_s: float | None = None) -> object:
        self.waited.append(timeout_s)
        if self.events and isinstance(gap := self.events[0], Gap):
            if timeout_s is not None and gap.seconds > timeout_s:
                self.events[0] = Gap(gap.seconds - timeout_s)
                raise TimeoutError
            self.events.pop(0)
        if not self.events:
            raise TimeoutError
        return self.events.pop(0)


class _Dialling:
    """What :func:`restore` does with its ``redial``, in order."""

    def __init__(self) -> None:
        self.did: list[tuple[str, int | None]] = []

    def start(self, seat: int) -> None:
        self.did.append(("start", seat))

    def stop(self, seat: int) -> None:
        self.did.append(("stop", seat))

    def note(self, seat: int, conn: object) -> None:
        self.did.append(("note", seat))

    def close(self) -> None:
        self.did.append(("close", None))


def _table() -> LinkNet:
    net = LinkNet(3)
    net.start()
    net.run(lambda: net.applied(1) >= 3, 5_000)
    return net


def _lost(conn: _Conn) -> Lost:
    return Lost(peer=conn, reason=Note(NetCode.NO_HEARTBEAT, {"timeout_s": 1}))  # type: ignore[arg-type]


def test_a_node_that_reaches_nobody_waits_past_the_log_timeout_and_rebuilds() -> None:
    net = _table()
    key = net.config.seats[1].key
    old, new = _conn(key, seat=1), _conn(key)
    answer = [Incoming(peer=new, received=SimpleNamespace(  # type: ignore[arg-type]
        message=SimpleNamespace(seat=1, body=Game(to=0, payload=part))))
        for part in log_parts(net.nodes[1].frames)]
    # its link goes down: the one asked is lost, and for 10 minutes nothing comes
    mesh = _Mesh(net, {1: old}, [_lost(old), Gap(600.0), Connected(peer=new), *answer])  # type: ignore[arg-type]
    told: list[Note] = []
    dialling = _Dialling()
    restored = asyncio.run(restore(mesh, net.config, [], timeout_s=1.0,  # type: ignore[arg-type]
                                   redial=dialling, tell=told.append))  # type: ignore[arg-type]
    assert restored.table.failed is None and restored.frames == net.nodes[1].frames
    assert mesh.peers[1] is new
    assert told == [Note(LinkCode.NOBODY_REACHABLE, {"restoring": True})]
    # the seat not reached at first is dialled at once, the lost one when it is lost;
    # the one that is back is no longer dialled; all dialling ends with the wait
    assert dialling.did == [("start", 2), ("start", 1), ("stop", 1), ("note", 1),
                            ("close", None)]
    # the log timeout while one is reached; no deadline once nobody is
    assert mesh.waited[0] == pytest.approx(1.0, abs=0.1) and mesh.waited[1] is None


def test_nodes_reached_that_never_answer_end_the_wait_after_the_log_timeout() -> None:
    net = _table()
    asked = _conn(net.config.seats[1].key, seat=1)
    mesh = _Mesh(net, {1: asked}, [Gap(600.0)])
    told: list[Note] = []
    dialling = _Dialling()
    with pytest.raises(PeerLost) as caught:
        asyncio.run(restore(mesh, net.config, [], timeout_s=1.0,  # type: ignore[arg-type]
                            redial=dialling, tell=told.append))  # type: ignore[arg-type]
    assert caught.value.code is LinkCode.NO_LOG
    assert told == []  # a node was reached all along
    assert dialling.did == [("start", 2), ("close", None)]


def test_a_node_whose_only_answer_fails_is_not_told_it_reaches_nobody() -> None:
    net = _table()
    asked = _conn(net.config.seats[1].key, seat=1)
    bad = Incoming(peer=asked, received=SimpleNamespace(  # type: ignore[arg-type]
        message=SimpleNamespace(seat=1, body=Game(to=0, payload=bytes([LOG_PART]) + b"?"))))
    mesh = _Mesh(net, {1: asked}, [bad, _lost(asked), Gap(600.0)])
    told: list[Note] = []
    with pytest.raises(TableFailed) as caught:
        asyncio.run(restore(mesh, net.config, [], timeout_s=1.0,  # type: ignore[arg-type]
                            redial=_Dialling(), tell=told.append))  # type: ignore[arg-type]
    assert caught.value.code is LinkCode.REBUILD_FAILED
    assert [f.seat for f in caught.value.params["failures"]] == [1]
    assert told == []  # it reached a node; that node's log does not check out
    assert mesh.waited[-1] is not None  # the log timeout still runs
