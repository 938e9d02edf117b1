"""A node waiting for a log to rebuild from, whose peers all close the connections it
asked on (issue #11, soak seed 7: it did not run for 27 s, so they counted it lost): it
asks the node that connects again meanwhile, and rebuilds from its answer, instead of
giving up at once ("no player of the table sent its log in time", exit 1). A unit test
of :func:`p2p8s.net.catchup.restore` with a scripted mesh (events in, sends out)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from types import SimpleNamespace

from p2p8s.errors import Note
from p2p8s.net.catchup import restore
from p2p8s.net.errors import NetCode
from p2p8s.net.node import Connected, Incoming, Lost
from p2p8s.table.sync import Sync, log_parts
from p2p8s.wire import Game, Role

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "table"))
from linknet import LinkNet


class _Conn(SimpleNamespace):
    def set_seat(self, seat: int | None) -> None:
        self.seat = seat


def _conn(key: bytes) -> _Conn:
    return _Conn(key=key, closed=False, hello=SimpleNamespace(role=Role.HOST), seat=None)


class _Mesh:
    """What :func:`restore` uses of a :class:`~p2p8s.net.lobby.Mesh`: seat 0 of
    ``net``'s table, asking on ``peers``; ``events`` come in order, then none."""

    def __init__(self, net: LinkNet, peers: dict[int, _Conn], events: list[object]) -> None:
        self.seat, self.digest, self.peers, self.early = 0, b"anew", peers, []
        self.events = events
        self.sent: list[tuple[_Conn, Game]] = []
        keys = {s.key: s.seat for s in net.config.seats}
        self.roster = SimpleNamespace(seat_of=keys.get)
        self.node = SimpleNamespace(send=lambda conn, game: self.sent.append((conn, game)),
                                    identity=SimpleNamespace(sign=net.keys[0].sign))

    async def next_event(self, timeout_s: float | None = None) -> object:
        if not self.events:
            raise TimeoutError
        return self.events.pop(0)


def test_a_peer_that_connects_again_while_every_asked_one_is_lost_is_asked() -> None:
    net = LinkNet(3)
    net.start()
    net.run(lambda: net.applied(1) >= 3, 5_000)
    key = net.config.seats[1].key
    old, new = _conn(key), _conn(key)
    old.seat = 1  # the connection asked on, of seat 1 (the lobby set its seat)
    answer = [Incoming(peer=new, received=SimpleNamespace(  # type: ignore[arg-type]
        message=SimpleNamespace(seat=1, body=Game(to=0, payload=part))))
        for part in log_parts(net.nodes[1].frames)]
    mesh = _Mesh(net, {1: old}, [
        Lost(peer=old, reason=Note(NetCode.NO_HEARTBEAT, {"timeout_s": 5})),  # type: ignore[arg-type]
        Connected(peer=new),  # type: ignore[arg-type]
        *answer])
    restored = asyncio.run(restore(mesh, net.config, [], timeout_s=60.0))  # type: ignore[arg-type]
    asked = Sync(received=0, posted=0, restarted=True).payload()
    assert [(c, g.payload) for c, g in mesh.sent] == [(old, asked), (new, asked)]
    assert mesh.peers[1] is new and new.seat == 1
    assert restored.table.failed is None and restored.frames == net.nodes[1].frames
    assert restored.table.round_number == 1
