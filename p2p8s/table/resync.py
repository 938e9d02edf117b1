"""Rejoin and resync: the records a returning node is rebuilt from (sans-IO).

Every payload a node takes in or sends is kept with its sender, in order: its
``resync`` payload (:meth:`Resync.payload`) lets a peer whose process restarted rebuild
its table (:meth:`~p2p8s.table.Table.restore`: every record replayed and checked as by an
observer), and a node catching up after a restore takes a peer's resync payload in
(:meth:`Resync.replay`), copies of what it already has skipped. A restored node lost its
secret keys of the round in progress (:attr:`Resync.keys_lost`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from p2p8s.table.actions import RESYNC, SETUP, WELCOME, encode_records
from p2p8s.table.context import Ctx, Outgoing


class Resync:
    """The records of this node and their replay (see the module docstring). No timer."""

    def __init__(self, ctx: Ctx) -> None:
        self._ctx = ctx
        #: every payload this node took in or sent, with its sender, in order: what a
        #: returning node replays
        self.records: list[tuple[int, bytes]] = []
        self.keys_lost: int | None = None  # restored: the round whose keys it lost

    def get_timer(self) -> float | None:
        """Resync waits for payloads, never for the clock."""
        return None

    def payload(self) -> bytes:
        """The ``resync`` payload: every record so far."""
        return bytes([RESYNC]) + encode_records(self.records)

    def took(self, sender: int, payload: bytes) -> None:
        """``payload`` from ``sender`` is being taken in."""
        self.records.append((sender, payload))

    def sent(self, messages: Sequence[Outgoing]) -> None:
        """``messages`` go out now (a ``welcome`` is for one node only: not kept)."""
        if not self._ctx.observing:
            self.records.extend((self._ctx.me, m.payload) for m in messages
                                if m.payload[:1] != bytes([WELCOME]))

    def replay(self, records: Sequence[tuple[int, bytes]],
               receive: Callable[[int, bytes], None], advance: Callable[[], None]) -> None:
        """Take in a peer's records (restore / resync), skipping what is not for us:
        each through ``receive(sender, payload)``, then ``advance()``."""
        ctx = self._ctx
        ctx.replaying = True
        try:
            for sender, payload in records:
                if not ctx.going:
                    return
                if payload[:1] in (bytes([SETUP]), bytes([WELCOME]), bytes([RESYNC])):
                    continue
                if sender == ctx.me and not ctx.restoring:
                    continue
                self.took(sender, payload)
                receive(sender, payload)
                advance()
        finally:
            ctx.replaying = False
