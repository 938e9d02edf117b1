"""What a node has taken in already: copies, and the slots of crypto messages (pure).

Reconnects, resends and relays deliver some payloads twice, late or out of order; none
of that is a cheat. This module keeps the evidence the intake (:mod:`p2p8s.table.inbox`)
and the facade (:class:`~p2p8s.table.Table`) decide on:

* :class:`Copies` — every payload of the table's other kinds taken in (``stop``,
  ``leave``, ``welcome``, ``restarted``, ``choice``, ``ownkey``, ``setup``), by sender:
  an identical copy is a no-op, as in the offline audit (:mod:`p2p8s.table.logverify`
  skips identical payloads of a signer).
* :class:`Slots` — for every crypto message that arrived, its slot ``(round, seat,
  seq)`` by sender node, with a digest of its bytes: a later copy with the same bytes
  is dropped; one with *different* bytes from the same sender is two signed messages
  for one slot — equivocation (:meth:`Slots.again`, ``TableCode.EQUIVOCATION`` naming
  that sender, the same seat and the same two frames the audit names:
  ``LogCode.EQUIVOCATION``).
* :class:`Cuts` — for every seat whose key a recovery rebuilds this round, how far
  into the seat's own messages the holders had read when they published their escrow
  shares (each ``ShareReveal``'s echo of that seat): once the key is rebuilt, the
  *cut* is the furthest of them, and every message of the seat beyond it is void on
  every node (protocol/table.md, "Dropped nodes" → "The cut").
* :class:`Held` — a message kept until it can be taken in: after a gap of its seat's
  sequence, before the messages its echo says its sender had seen (causal order), of a
  later round. At most :data:`MAX_HELD` wait at once; one more is a flood naming its
  sender (``TableCode.FLOOD``): an honest round has a few thousand messages at most.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from p2p8s.crypto.messages import Message, ShareReveal
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


class Cuts:
    """How far into each recovered seat's messages its escrow holders had read (see the
    module docstring); one round's, the same on every node that took in the same shares.
    A share that is itself void (its sender's seat was cut before it) counts for nothing.

    >>> c = Cuts()
    >>> c.bound(2), c.cut(2)
    (None, None)
    >>> c.share(2, 5, sender=0, seq=9); c.share(2, 7, sender=1, seq=9)
    >>> c.share(2, 6, sender=3, seq=4)
    >>> c.bound(2), c.cut(2)
    (7, None)
    >>> c.close(2); c.cut(2), c.void(2, 7), c.void(2, 8), c.reader(2)
    (7, False, True, 1)
    >>> c.share(1, 4, sender=0, seq=11); c.bound(1)
    4
    >>> c.share(0, 10, sender=3, seq=6); c.close(0)  # seat 0's 11th message is void
    >>> c.bound(1), c.void(0, 11)
    (None, True)
    """

    def __init__(self) -> None:
        #: seat -> (sender, its sequence number) of each share of its key -> count read
        self._shares: dict[int, dict[tuple[int, int], int]] = {}
        self._cut: dict[int, int] = {}
        #: the round's escrow holders of each seat's key (as :meth:`shared` was told)
        self._holders: tuple[tuple[int, ...], ...] = ()

    def share(self, seat: int, read: int, *, sender: int, seq: int) -> None:
        """A holder's escrow share of ``seat``'s key (taken in, waiting, or this node's
        own), message ``seq`` of ``sender``, was published after it had read ``read`` of
        the seat's messages."""
        self._shares.setdefault(seat, {})[sender, seq] = read

    def shared(self, msg: Message, holders: tuple[tuple[int, ...], ...]) -> None:
        """Note ``msg`` if it is a ``ShareReveal`` of one of the dealer's holders (its
        echo counts the dealer's messages its sender had read)."""
        self._holders = holders
        if (isinstance(msg, ShareReveal) and 0 <= msg.dealer < len(holders)
                and msg.seat in holders[msg.dealer] and len(msg.echo) > msg.dealer):
            self.share(msg.dealer, msg.echo[msg.dealer][0], sender=msg.seat, seq=msg.seq)

    def bound(self, seat: int) -> int | None:
        """Messages of ``seat`` up to this count are in the cut whatever it becomes (the
        furthest share seen so far that is not void); None while no such share of its
        key was seen."""
        return max((read for (sender, seq), read in self._shares.get(seat, {}).items()
                    if not self.void(sender, seq)), default=None)

    def reader(self, seat: int) -> int | None:
        """The sender of a share stating :meth:`bound` (the lowest such seat): its log
        holds every message of ``seat`` in the cut; None without a share."""
        shares = self._shares.get(seat, {})
        bound = self.bound(seat)
        return min((sender for (sender, seq), read in shares.items()
                    if read == bound and not self.void(sender, seq)), default=None)

    def close(self, seat: int) -> None:
        """``seat``'s key was rebuilt from every holder's share: its cut is fixed."""
        bound = self.bound(seat)
        if bound is not None:
            self._cut[seat] = bound

    def cut(self, seat: int) -> int | None:
        """The cut of ``seat`` (its messages 1..cut stand), once its key was rebuilt from
        the escrow; None otherwise (not recovered, or its key handed over)."""
        return self._cut.get(seat)

    def void(self, seat: int, seq: int) -> bool:
        """True for message ``seq`` of ``seat`` beyond its cut — closed, or already fixed:
        every holder of the seat's key published a share that is not void itself (each
        holder publishes one; the cut is the furthest count they state, whatever order
        they are taken in). A share of another key sent beyond it counts for nothing at
        once: a node cut off that began to rebuild the key of a seat it took for gone
        while its own seat was being taken over does not hold that seat's messages back
        until its own key is rebuilt — which may need those very messages (causal
        order), a wait for good on its node and in the audit of its log."""
        cut = self._fixed(seat, frozenset())
        return cut is not None and seq > cut

    def _fixed(self, seat: int, seen: frozenset[int]) -> int | None:
        """The cut of ``seat`` once closed or fixed (see :meth:`void`), else None;
        ``seen``: the seats whose cut is being decided further up (a share whose sender is
        among them counts as standing, as before any cut is known)."""
        cut = self._cut.get(seat)
        if cut is not None or seat in seen or seat not in self._shares:
            return cut
        holders = self._holders[seat] if 0 <= seat < len(self._holders) else ()
        inner = seen | {seat}
        standing = [(sender, read) for (sender, seq), read in self._shares[seat].items()
                    if not self._void(sender, seq, inner)]
        if not holders or not set(holders) <= {sender for sender, _ in standing}:
            return None
        return max(read for _, read in standing)

    def _void(self, seat: int, seq: int, seen: frozenset[int]) -> bool:
        cut = self._fixed(seat, seen)
        return cut is not None and seq > cut


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
    """The slot ``(round, seat, seq)`` of every crypto message that arrived, by sender,
    with its digest (every round of the match, whatever became of it: taken in, waiting,
    or dropped as a message of a closed round), as the audit keeps them."""

    def __init__(self) -> None:
        self._seen: dict[tuple[int, tuple[int, int, int]], bytes] = {}

    def again(self, held: Held) -> bool:
        """True if the same sender's message for this slot arrived before with the same
        bytes (a copy: drop it); else remembers it and returns False. Raises TableError
        (EQUIVOCATION) naming the sender for different bytes signed by it for a slot it
        used already."""
        key = (held.sender, held.slot)
        seen = self._seen.get(key)
        if seen is None:
            self._seen[key] = held.digest
            return False
        if seen == held.digest:
            return True
        round_no, seat, seq = held.slot
        raise TableError(TableCode.EQUIVOCATION, seat=held.sender, peer=held.sender,
                         round=round_no, author=seat, seq=seq)

    def heard(self, sender: int, round_no: int, seat: int) -> bool:
        """True if a message of ``seat`` for round ``round_no`` arrived from ``sender``
        (whatever became of it)."""
        return any(s == sender and slot[:2] == (round_no, seat) for s, slot in self._seen)

    @staticmethod
    def bound(waiting: int, sender: int) -> None:
        """Raises TableError (FLOOD) naming ``sender`` when ``waiting`` messages are held
        already (:data:`MAX_HELD`)."""
        if waiting >= MAX_HELD:
            raise TableError(TableCode.FLOOD, seat=sender, peer=sender)
