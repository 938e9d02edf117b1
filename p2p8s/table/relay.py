"""What a lost node's peers relay to each other (protocol/table.md, "Relay"), sans-IO.

A node killed in the middle of a broadcast reached some peers and not others (it writes
to one connection after the other). So every runner keeps each peer's last crypto
broadcasts; when it loses a peer it sends the others a ``relay`` of them
(:meth:`Relays.payload`); a receiver checks and keeps the frames (:meth:`Relays.keep`)
and, once it has lost that node too, takes in each one it never logged, in order, as if
it came from that node (:meth:`Relays.take`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

from p2p8s.errors import RemoteError
from p2p8s.table.actions import CRYPTO
from p2p8s.table.config import TableConfig
from p2p8s.table.decoding import PayloadProblem
from p2p8s.table.sync import RELAY_FRAMES, Relay, SyncCode, check_relayed, last_frames
from p2p8s.wire import Game

#: How many relayed frames of one lost node a runner keeps at most.
KEPT_FRAMES = RELAY_FRAMES * 4


@dataclass(frozen=True, slots=True, kw_only=True)
class Relayed:
    """A relayed signed ``frame`` of a lost node and its checked game envelope."""

    frame: bytes
    body: Game


class Relays:
    """The relays of one node at ``config``'s table, for the peers ``seats``; ``seen``:
    the signed frames it logged already (from a peer's log)."""

    def __init__(self, config: TableConfig, seats: Iterable[int],
                 seen: Iterable[bytes] = ()) -> None:
        self.config = config
        self.seen: set[bytes] = set(seen)
        self._recent = {s: deque[bytes](maxlen=RELAY_FRAMES) for s in seats}
        self._kept: dict[int, list[bytes]] = {}

    def heard(self, seat: int, frame: bytes, body: Game) -> None:
        """``seat``'s node sent ``frame`` (``body``; received or relayed): logged, and kept
        to relay if it is a crypto broadcast."""
        self.seen.add(frame)
        if body.payload[:1] == bytes([CRYPTO]) and body.to is None:
            self._recent[seat].append(frame)

    def payload(self, seat: int) -> bytes | None:
        """The ``relay`` of ``seat``'s last crypto broadcasts (None: nothing to relay)."""
        frames = last_frames(list(self._recent[seat]))
        return Relay(seat=seat, frames=frames).payload() if frames else None

    def keep(self, sender: int, body: bytes) -> int:
        """A ``relay`` body from ``sender``'s node: keep the frames of the node it names
        (every frame checked: signed by that node, a crypto broadcast of this table);
        returns that node's seat. Raises RemoteError for a bad relay."""
        relay = Relay.parse(body)
        seat = relay.seat
        if seat not in self._recent or seat == sender:
            raise RemoteError(SyncCode.BAD_RELAY, problem=PayloadProblem.RELAY)
        key = self.config.seats[seat].key
        for frame in relay.frames:
            check_relayed(frame, seat=seat, key=key, table=self.config.table)
        kept = self._kept.setdefault(seat, [])
        kept += [f for f in relay.frames if f not in kept]
        del kept[:-KEPT_FRAMES]
        return seat

    def take(self, seat: int) -> list[Relayed]:
        """The kept frames of ``seat``'s node (now lost) this node never logged, in order
        (and forget them)."""
        key = self.config.seats[seat].key
        return [Relayed(frame=f, body=check_relayed(f, seat=seat, key=key,
                                                    table=self.config.table))
                for f in self._kept.pop(seat, []) if f not in self.seen]

    def drop(self, seat: int) -> None:
        """``seat``'s node is back (it resends, or rebuilds): its relays are not due."""
        self._kept.pop(seat, None)
