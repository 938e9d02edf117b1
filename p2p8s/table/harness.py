"""An in-memory network of :class:`~p2p8s.table.Table` nodes (tests, benchmarks, demos).

Each human seat gets a node; payloads go over FIFO links, optionally altered by a
``tamper`` hook (to play a cheating node). A ``driver`` plays each human seat the way a
person at the keyboard would: when its node says ``my_turn``, it asks a bot and calls
:meth:`~p2p8s.table.Table.act`; seats in ``idle`` never act, so their turn timer runs
out and the node's own computer plays. Time is simulated: when nothing is in flight the
clock jumps to the earliest timer.

Each node signs its choices (a returning player's moves for its seat taken over) with
its seat's key of ``keys`` — or of the default :func:`make_keys` when the config holds
those keys (:attr:`TableNet.signers`). With ``keys`` every payload is also wrapped in a
signed wire frame (``p2p8s.wire`` ``game`` envelope) and appended to the sender's and the
receiver's ``frames`` — the log a runner writes, for :mod:`p2p8s.table.logverify`.
"""

from __future__ import annotations

import hashlib
import random
from collections import deque
from collections.abc import Callable, Sequence
from typing import TypeVar

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p8s import wire
from p2p8s.bots.registry import get_bot
from p2p8s.crypto.rand import seeded
from p2p8s.rules import Ruleset
from p2p8s.table import events as tev
from p2p8s.table.config import SeatInfo, TableConfig
from p2p8s.table.core import Output, Table

E = TypeVar("E", bound=tev.Event)

#: ``tamper(sender, recipient, payload) -> payload`` (None drops the copy).
Tamper = Callable[[int, int, bytes], bytes | None]


class LoopCapReached(AssertionError):
    """:meth:`TableNet.run` hit its step cap (a livelock)."""


def make_keys(players: int, seed: bytes = b"keys") -> list[Ed25519PrivateKey]:
    """Deterministic Ed25519 identity keys, one per seat."""
    return [Ed25519PrivateKey.from_private_bytes(hashlib.sha256(seed + bytes([s])).digest())
            for s in range(players)]


def make_config(players: int, *, rules: Ruleset | None = None, target: int = 100,
                computers: Sequence[int] = (), table: bytes = b"TABLE001",
                keys: Sequence[Ed25519PrivateKey] | None = None,
                turn_timeout_s: float = 30.0, escrow: bool = True) -> TableConfig:
    """A config with seats named Ann, Bea, Cem, …; ``computers`` are computer seats;
    ``escrow=False``: the host's ``--no-escrow``."""
    names = ["Ann", "Bea", "Cem", "Dag", "Eli", "Fay", "Gus"]
    bots = ["Hanna", "Karl", "Vera", "Max"]
    ks = keys if keys is not None else make_keys(players)
    host_key = wire.public_key_bytes(ks[0])
    seats = tuple(
        SeatInfo(s, bots[s % 4] if s in computers else names[s],
                 host_key if s in computers else wire.public_key_bytes(ks[s]),
                 bots[s % 4] if s in computers else None)
        for s in range(players))
    return TableConfig(table=table, rules=rules or Ruleset(), target=target, seats=seats,
                       turn_timeout_s=turn_timeout_s, escrow=escrow)


class TableNet:
    """Nodes for every human seat of ``config``, on in-memory links."""

    def __init__(self, config: TableConfig, *, seed: bytes = b"net", tamper: Tamper | None = None,
                 idle: Sequence[int] = (), driver: str = "Karl",
                 keys: Sequence[Ed25519PrivateKey] | None = None,
                 order_seed: bytes | None = None) -> None:
        self.config = config
        self.humans = [s.seat for s in config.seats if s.computer is None]
        signers = keys if keys is not None else make_keys(config.players)
        #: each seat's signer of choices (protocol/table.md "Coming back"), when the
        #: config holds the key of ``keys`` (or of the default :func:`make_keys`)
        self.signers: dict[int, Callable[[bytes], bytes]] = {
            s: signers[s].sign for s in self.humans
            if s < len(signers) and wire.public_key_bytes(signers[s]) == config.seats[s].key}
        self.nodes = {s: Table(config, me=s, rand=seeded(seed + b"/rand/" + bytes([s])),
                               seed=seed + bytes([s]), sign=self.signers.get(s))
                      for s in self.humans}
        self.tamper = tamper
        self.idle = set(idle)
        self.driver = get_bot(driver)
        self.keys = keys
        self.frames: dict[int, list[bytes]] = {s: [] for s in self.humans}
        self._seq = dict.fromkeys(self.humans, 0)
        self.links: dict[tuple[int, int], deque[bytes]] = {
            (a, b): deque() for a in self.humans for b in self.humans if a != b}
        self.events: dict[int, list[tev.Event]] = {s: [] for s in self.humans}
        self.now = 0.0
        self.delivered = 0
        self.actions = 0
        self._order = order_seed
        self._counter = 0
        self._rng = random.Random(seed)
        #: nodes that crashed (every payload to them is lost) and nodes cut off by a
        #: network drop (payloads to and from them wait on the links)
        self.dead: set[int] = set()
        self.cut: set[int] = set()

    # ------------------------------------------------------------------ driving

    def start(self) -> None:
        """Start every node."""
        for s, node in self.nodes.items():
            self._post(s, node.start(self.now))

    @property
    def live(self) -> list[int]:
        """The human seats whose node runs and is connected."""
        return [s for s in self.humans if s not in self.dead and s not in self.cut]

    def crash(self, seat: int, *, notify: bool = True) -> None:
        """``seat``'s node stops for good: what it sent is still delivered, what is sent
        to it is lost; with ``notify`` every live node is told (``peer_lost``)."""
        self.dead.add(seat)
        for (_, b), q in self.links.items():
            if b == seat:
                q.clear()
        if notify:
            self.notify_lost(seat)

    def cut_off(self, seat: int, *, notify: bool = True) -> None:
        """A network drop: ``seat``'s node keeps its state; what it sent is delivered,
        what is sent to it waits until :meth:`reconnect`. With ``notify`` both sides are
        told (``peer_lost``), as their heartbeats would."""
        self.cut.add(seat)
        if notify:
            self.notify_lost(seat)
            node = self.nodes[seat]
            for s in self.live:
                self._post(seat, node.peer_lost(s, self.now))

    def notify_lost(self, seat: int) -> None:
        """Tell every live node that ``seat``'s node is gone."""
        for s in self.live:
            if s != seat:
                self._post(s, self.nodes[s].peer_lost(seat, self.now))

    def reconnect(self, seat: int) -> None:
        """End a network drop: the node first gets every payload it missed (what a
        runner's resend does), then both sides are told (``peer_back``)."""
        self.cut.discard(seat)
        while True:
            pending = [k for k, q in self.links.items() if q and k[1] == seat]
            if not pending:
                break
            self._deliver_on(min(pending, key=self._age))
        for s in self.live:
            if s != seat:
                self._post(s, self.nodes[s].peer_back(seat, self.now))
                self._post(seat, self.nodes[seat].peer_back(s, self.now))

    def replace(self, seat: int, node: Table) -> None:
        """Put a restored node in the place of ``seat``'s crashed node."""
        self.nodes[seat] = node
        self.dead.discard(seat)
        self.cut.discard(seat)

    def leave(self, seat: int) -> None:
        """``seat``'s player quits: its node sends ``leave`` and stops."""
        self._post(seat, self.nodes[seat].leave(self.now))
        self.dead.add(seat)

    def step(self) -> bool:
        """Deliver one payload, or let one human who is not idle act, or run the clock."""
        if self.deliver():
            return True
        for s in self.live:
            node = self.nodes[s]
            if s not in self.idle and node.my_turn:
                view = node.view()
                assert view is not None
                action = self.driver.choose(view, node.legal_actions(), self._rng)
                self.actions += 1
                self._post(s, node.act(action, self.now))
                return True
        timers = [t for t in (self.nodes[s].get_timer() for s in self.live) if t is not None]
        if timers:
            self.now = max(self.now, min(timers))
            for s in self.live:
                self._post(s, self.nodes[s].handle_timer(self.now))
            return True
        return False

    def deliver_all(self, max_steps: int = 500_000) -> int:
        """Deliver payloads until none is in flight (nobody acts, the clock stands)."""
        for count in range(max_steps):
            if not self.deliver():
                return count
        raise LoopCapReached(f"still delivering after {max_steps} payloads")

    def inject(self, seat: int, fn: Callable[[Table], object]) -> None:
        """Run ``fn`` on ``seat``'s node (to play a cheating node through its internals)
        and send whatever it produced."""
        node = self.nodes[seat]
        result: list[object] = []
        node._guarded(lambda: result.append(fn(node)))
        if result and isinstance(result[0], Output):
            self._post(seat, result[0])
        self._post(seat, node._flush())

    def send_raw(self, sender: int, recipient: int, payload: bytes) -> None:
        """Put ``payload`` on the link from ``sender`` to ``recipient`` (a replay)."""
        self._counter += 1
        self.links[(sender, recipient)].append(self._counter.to_bytes(8, "big") + payload)

    def deliver(self) -> bool:
        """Deliver one payload; False if none is in flight."""
        pending = [k for k, q in self.links.items()
                   if q and k[1] not in self.dead and k[1] not in self.cut]
        if pending:
            if self._order is None:
                link = pending[0] if len(pending) == 1 else min(pending, key=self._age)
            else:
                self._counter += 1
                h = hashlib.sha256(self._order + self._counter.to_bytes(8, "big")).digest()
                link = pending[int.from_bytes(h[:8], "big") % len(pending)]
            self._deliver_on(link)
            return True
        return False

    def _deliver_on(self, link: tuple[int, int]) -> None:
        """Deliver the oldest payload on ``link``."""
        data = self.links[link].popleft()[8:]
        sender, recipient = link
        self.delivered += 1
        node = self.nodes[recipient]
        if self.keys is not None:
            self.frames[recipient].append(data)
            received = wire.decode_body(data[wire.PREFIX_LENGTH:])
            body = received.message.body
            assert isinstance(body, wire.Game)
            payload = body.payload
        else:
            payload = data
        self._post(recipient, node.receive(sender, payload, self.now))

    def run(self, max_steps: int = 500_000) -> int:
        """Step until nothing moves; returns the number of steps."""
        for count in range(max_steps):
            if not self.step():
                return count
        raise LoopCapReached(f"still running after {max_steps} steps")

    # ------------------------------------------------------------------ internals

    def _age(self, link: tuple[int, int]) -> int:
        return int.from_bytes(self.links[link][0][:8], "big")

    def _post(self, seat: int, out: Output) -> None:
        self.events[seat].extend(out.events)
        for msg in out.messages:
            targets = [t for t in self.humans if t != seat] if msg.to is None else [msg.to]
            targets = [t for t in targets if t not in self.dead]
            if self.keys is not None:
                self._seq[seat] += 1
                frame = wire.encode(wire.Message(
                    table=self.config.table, seat=seat, seq=self._seq[seat],
                    body=wire.Game(to=msg.to, payload=msg.payload)), self.keys[seat])
                self.frames[seat].append(frame)
            for t in targets:
                copy: bytes | None = msg.payload
                if self.tamper is not None:
                    copy = self.tamper(seat, t, msg.payload)
                if copy is None:
                    continue
                if self.keys is not None:
                    copy = wire.encode(wire.Message(
                        table=self.config.table, seat=seat, seq=self._seq[seat],
                        body=wire.Game(to=msg.to, payload=copy)), self.keys[seat])
                self._counter += 1
                self.links[(seat, t)].append(self._counter.to_bytes(8, "big") + copy)

    # ------------------------------------------------------------------ results

    def faults(self) -> dict[int, tev.Fault]:
        """The fault each node stopped on."""
        return {s: n.failed for s, n in self.nodes.items() if n.failed is not None}

    def of(self, seat: int, kind: type[E]) -> list[E]:
        """``seat``'s events of one kind."""
        return [e for e in self.events[seat] if isinstance(e, kind)]
