"""A :class:`~p2p8s.table.harness.TableNet` whose links behave like a bad Wi-Fi (tests).

What reconnects, resends and relays do to the payloads a node gets (issue #11): each
signed frame delivered may be delivered again later (a resend after a reconnect, a relay
of a lost node's last broadcasts); a crypto frame may overtake up to ``window - 1``
crypto frames sent before it on its link (a relay arriving ahead of the direct copy; it
never overtakes a payload of another kind); now and then an old frame of the link, of
any past round, arrives once more. Every frame delivered is logged by its receiver, as a
runner logs it. A node in ``holed`` sends into a black hole: its frames wait on its
links (a dead Wi-Fi before the heartbeats notice) until it leaves ``holed``.
"""

from __future__ import annotations

import random
from itertools import islice

from p2p8s import wire
from p2p8s.table.actions import CRYPTO
from p2p8s.table.harness import TableNet


def is_crypto(frame: bytes) -> bool:
    """True for a signed frame carrying a ``crypto`` table payload."""
    body = wire.decode_body(frame[wire.PREFIX_LENGTH:]).message.body
    return isinstance(body, wire.Game) and body.payload[:1] == bytes([CRYPTO])


class ChaosNet(TableNet):
    """A signed-frame net (``keys`` required) with copies, reordering and stale frames
    drawn from ``chaos`` (see the module docstring); counts what it did."""

    def __init__(self, *args: object, chaos: random.Random, window: int = 5,
                 copy_p: float = 0.15, stale_p: float = 0.03, **kw: object) -> None:
        super().__init__(*args, **kw)  # type: ignore[arg-type]
        assert self.keys is not None
        self.chaos = chaos
        self.window = window
        self.copy_p = copy_p
        self.stale_p = stale_p
        self.history: dict[tuple[int, int], list[bytes]] = {k: [] for k in self.links}
        self.copies = self.reordered = self.stale = 0
        self.holed: set[int] = set()

    def deliver(self) -> bool:
        """Deliver one payload (none from a node in ``holed``); False if none can go."""
        pending = [k for k, q in self.links.items() if q and k[0] not in self.holed
                   and k[1] not in self.dead and k[1] not in self.cut]
        if not pending:
            return False
        self._deliver_on(min(pending, key=self._age))
        return True

    def _deliver_on(self, link: tuple[int, int]) -> None:
        q, rng = self.links[link], self.chaos
        ahead = 0
        for item in islice(q, self.window):
            if not is_crypto(item[8:]):
                break
            ahead += 1
        pick = rng.randrange(ahead) if ahead > 1 else 0
        if pick:
            item = q[pick]
            del q[pick]
            q.appendleft(item)
            self.reordered += 1
        frame = q[0][8:]
        super()._deliver_on(link)
        self.history[link].append(frame)
        if rng.random() < self.copy_p:
            self._insert(link, frame, rng.randrange(len(q) + 1))
            self.copies += 1
        if rng.random() < self.stale_p:
            self._insert(link, rng.choice(self.history[link]), 0)
            self.stale += 1

    def _insert(self, link: tuple[int, int], frame: bytes, at: int) -> None:
        self._counter += 1
        self.links[link].insert(at, self._counter.to_bytes(8, "big") + frame)

    def reconnect(self, seat: int, *, first: int | None = None) -> None:
        """End a network drop as :meth:`TableNet.reconnect` does; with ``first``, that
        peer's resend arrives whole before the others' (each peer resends on its own
        connection: one may be done before another starts)."""
        if first is None:
            super().reconnect(seat)
            return
        self.cut.discard(seat)
        while True:
            pending = [k for k, q in self.links.items() if q and k[1] == seat]
            if not pending:
                break
            ahead = [k for k in pending if k[0] == first]
            self._deliver_on(ahead[0] if ahead else min(pending, key=self._age))
        for s in self.live:
            if s != seat:
                self._post(s, self.nodes[s].peer_back(seat, self.now))
                self._post(seat, self.nodes[seat].peer_back(s, self.now))
