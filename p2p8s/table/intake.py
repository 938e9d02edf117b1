"""What a node has taken in already: copies, and the slots of crypto messages (pure).

Reconnects, resends and relays deliver some payloads twice, late or out of order; none
of that is a cheat. This module keeps the evidence the intake (:mod:`p2p8s.table.inbox`)
and the facade (:class:`~p2p8s.table.Table`) decide on:

* :class:`Copies` — every payload of the table's other kinds taken in (``stop``,
  ``leave``, ``welcome``, ``restarted``, ``choice``, ``ownkey``, ``setup``), by sender:
  an identical copy is a no-op, as in the offline audit (:mod:`p2p8s.table.logverify`
  skips identical payloads of a signer).
* :class:`Slots` — for every crypto message taken in, its slot ``(round, seat, seq)``
  with the sender node and a digest of its bytes: a later copy with the same bytes is
  dropped; one with *different* bytes from the same sender is two signed messages for
  one slot — equivocation (:meth:`Slots.check`, ``TableCode.EQUIVOCATION`` naming that
  sender, the same seat the audit names: ``LogCode.EQUIVOCATION``).
* :class:`Held` — a message kept until it can be taken in: after a gap of its seat's
  sequence, before the messages its echo says its sender had seen (causal order), of a
  later round. At most :data:`MAX_HELD` wait at once; one more is a flood naming its
  sender (``TableCode.FLOOD``): an honest round has a few thousand messages at most.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from p2p8s.crypto.messages import Message
from p2p8s.table.context import MAX_FUTURE
from p2p8s.table.errors import TableCode, TableError

#: Most crypto messages one node holds at once (after a gap, early, of later rounds).
MAX_HELD = MAX_FUTURE
_DIGEST_BYTES = 16


def digest(data: bytes) -> bytes:
    """A 16-byte BLAKE2b digest of ``data`` (to recognise identical copies)."""
    return hashlib.blake2b(data, digest_size=_DIGEST_BYTES).digest()


@dataclass(frozen=True, slots=True)
class Held:
    """A crypto message from the node of seat ``sender`` that waits; ``digest`` of its
    encoding."""

    sender: int
    message: Message
    digest: bytes

    @property
    def slot(self) -> tuple[int, int, int]:
        """``(round, seat, seq)`` of the message."""
        m = self.message
        return (m.round_no, m.seat, m.seq)


class Copies:
    """The payloads of the table's other kinds taken in so far, by sender."""

    def __init__(self) -> None:
        self._seen: set[tuple[int, bytes]] = set()

    def again(self, sender: int, payload: bytes) -> bool:
        """True if ``sender``'s ``payload`` was taken in before (a copy: skip it);
        else remembers it and returns False."""
        key = (sender, digest(payload))
        if key in self._seen:
            return True
        self._seen.add(key)
        return False


class Slots:
    """The slot ``(round, seat, seq)`` of every crypto message taken in, with its sender
    and digest (every round of the match: a late copy of a past round is recognised)."""

    def __init__(self) -> None:
        self._taken: dict[tuple[int, int, int], tuple[int, bytes]] = {}

    def note(self, held: Held) -> None:
        """``held`` is taken in now (the first message for its slot counts)."""
        self._taken.setdefault(held.slot, (held.sender, held.digest))

    def check(self, held: Held) -> bool | None:
        """For a message whose slot may be taken: True for an identical copy from the
        same sender (drop it), None when no message for the slot was taken in, False
        when the slot holds one from another node (the strict checks decide). Raises
        TableError (EQUIVOCATION) naming the sender for different bytes signed by it for
        a slot it already filled."""
        taken = self._taken.get(held.slot)
        if taken is None:
            return None
        sender, seen = taken
        if sender != held.sender:
            return False
        if seen == held.digest:
            return True
        round_no, seat, seq = held.slot
        raise TableError(TableCode.EQUIVOCATION, seat=held.sender, peer=held.sender,
                         round=round_no, author=seat, seq=seq)

    @staticmethod
    def clash(waiting: list[Held], held: Held) -> bool:
        """True if an identical copy of ``held`` waits already (drop it). Raises
        TableError (EQUIVOCATION) naming the sender when a different message of that
        sender for the same slot waits."""
        for w in waiting:
            if w.slot != held.slot or w.sender != held.sender:
                continue
            if w.digest == held.digest:
                return True
            round_no, seat, seq = held.slot
            raise TableError(TableCode.EQUIVOCATION, seat=held.sender, peer=held.sender,
                             round=round_no, author=seat, seq=seq)
        return False

    @staticmethod
    def bound(waiting: int, sender: int) -> None:
        """Raises TableError (FLOOD) naming ``sender`` when ``waiting`` messages are held
        already (:data:`MAX_HELD`)."""
        if waiting >= MAX_HELD:
            raise TableError(TableCode.FLOOD, seat=sender, peer=sender)
