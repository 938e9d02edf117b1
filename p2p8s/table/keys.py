"""Round keys handed over by their own node (``ownkey`` payloads), sans-IO.

A node whose player leaves gives its round keys up first; a node restored with its
per-table key secret recomputes the keys of the seats it runs
(:func:`~p2p8s.crypto.derive.round_key`). Either way the keys go out in an ``ownkey``
payload (protocol/table.md, "Coming back" → "Restart"): every node checks each key
against the seat's ``Y``, takes it into its sessions as after an escrow recovery (the
seat is taken over, its hand open) and relays it once, before anything it sends for the
seat. Keys whose ``Y`` has not arrived yet wait for it; keys of later rounds wait for
their round.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p8s.crypto.derive import round_key
from p2p8s.crypto.group import Scalar, base_mul, is_canonical_scalar
from p2p8s.table.actions import OWNKEY, decode_ownkey, encode_ownkey
from p2p8s.table.context import OBSERVER, Ctx
from p2p8s.table.decoding import BadPayload
from p2p8s.table.errors import TableCode, TableError
from p2p8s.table.resume import Records, send_again
from p2p8s.table.seats import Seats
from p2p8s.table.sessions import LocalSessions


@dataclass(frozen=True, slots=True)
class SeatKey:
    """The round key ``key`` (32 bytes) of ``seat``, run by the node of seat ``node``,
    as received from ``sender``."""

    sender: int
    node: int
    seat: int
    key: bytes


@dataclass(frozen=True, slots=True)
class FutureKeys:
    """An ``ownkey`` body for a later round ``number``, from ``sender``."""

    sender: int
    number: int
    body: bytes


class OwnKeys:
    """Keys handed over by their node (see the module docstring). No timer."""

    def __init__(self, ctx: Ctx, sessions: LocalSessions, seats: Seats) -> None:
        self._ctx = ctx
        self._sessions = sessions
        self._seats = seats
        self._future: list[FutureKeys] = []  # ownkey bodies of later rounds
        self.begin()

    def begin(self) -> None:
        """A new round: no key waits for its ``Y``."""
        #: keys received before this node had the seat's ``Y``
        self.waiting: list[SeatKey] = []

    def get_timer(self) -> float | None:
        """Keys wait for messages, never for the clock."""
        return None

    def take_future(self) -> list[FutureKeys]:
        """The ``ownkey`` bodies kept for this round (once); later rounds' wait on."""
        number = self._ctx.number
        keys = [k for k in self._future if k.number == number]
        self._future = [k for k in self._future if k.number != number]
        return keys

    def learn(self, seat: int, key: bytes) -> None:
        """Take ``seat``'s key (checked) into every local session, as an escrow recovery."""
        self._seats.handed.add(seat)
        self._sessions.each(lambda session: session.learn_key(seat, Scalar(key)))

    def give_up(self) -> None:
        """The local player leaves: send the keys of the seats this node runs (the
        others play them at once, hand open, with or without an escrow)."""
        ctx, seats = self._ctx, self._seats
        keys = [(seat, bytes(key)) for seat, session in sorted(self._sessions.by_seat.items())
                if seat != OBSERVER and seats.runner(seat) == ctx.me
                and (key := session.give_up_key()) is not None]
        if keys:
            ctx.send(OWNKEY, encode_ownkey(ctx.number, ctx.me, keys))

    def _unowned(self, seat: int) -> bool:
        """True while no node but ``seat``'s runner may act for it with its key: the key
        is not known — or it is known only as revealed by a seat this round adopted,
        whose session runs on the adopter's node alone (its layer is stripped there):
        handed over, the seat is taken over as after an escrow recovery, and the proxy
        strips that layer (issue 11: a restarted adopter left it unstripped)."""
        primary = self._sessions.primary
        if not primary.knows_key(seat):
            return True
        return (seat in self._seats.adopted and seat not in self._seats.recovered
                and not primary.recovered(seat) and not primary.keys_revealed)

    def own_keys(self, records: Records) -> tuple[list[tuple[int, bytes]], bool]:
        """Restored with a key secret: the round keys of the seats this node runs whose
        key nobody knows yet (or that it adopted this round: their key is revealed, but
        their session ran here alone), each checked against its ``Y`` (sent in an ``ownkey``
        payload; the caller takes them in), and True when no seat it runs is left without
        a key (else the escrow must rebuild the rest: ``restarted``). The messages of
        those seats of this round in ``records`` (the payloads its table took in) go out
        again first: a peer that lacks them (they reached this node from another's log)
        gets them before the keys, so who runs each seat is decided there first."""
        ctx, primary = self._ctx, self._sessions.primary
        if ctx.key_secret is None:
            return [], False
        keys: list[tuple[int, bytes]] = []
        complete = True
        for seat in range(ctx.players):
            if self._seats.runner(seat) != ctx.me or not self._unowned(seat):
                continue
            public, round_id = primary.public_key(seat), primary.round_id
            if public is None or round_id is None:
                complete = False  # not announced yet
                continue
            key = round_key(ctx.key_secret, ctx.config.table, ctx.number, round_id, seat)
            if base_mul(key) != public:
                complete = False  # not announced yet, or not derived from this secret
                continue
            keys.append((seat, bytes(key)))
        if keys:
            send_again(ctx, records, [seat for seat, _ in keys])
            ctx.send(OWNKEY, encode_ownkey(ctx.number, ctx.me, keys))
        return keys, complete

    def on_ownkey(self, sender: int, body: bytes) -> None:
        """A restarted node's round keys (``ownkey``, sent by it or relayed by a peer):
        for this round, of seats that node runs (or may run: undecided here, then the
        payload is skipped, see :meth:`own_keys`), each matching its ``Y`` — else a
        TableError naming the sender. A key not known yet is taken in (the seat is taken
        over as after an escrow recovery) and relayed once to every node, before anything
        this node sends for the seat; a key already known is a copy (skipped). A key
        whose ``Y`` has not arrived yet waits for it; keys of a later round wait for it."""
        ctx, seats = self._ctx, self._seats
        try:
            number, node, keys = decode_ownkey(body)
        except BadPayload as e:
            raise TableError(TableCode.MALFORMED, seat=sender, peer=sender, cause=e) from None
        if ctx.number == 0 or number > ctx.number:
            # a node that catches up gets the keys of rounds it has not reached yet
            if len(self._future) >= ctx.players ** 2 * 8:  # copies: n per seat and round
                raise TableError(TableCode.KEYS_FLOOD, seat=sender, peer=sender)
            self._future.append(FutureKeys(sender, number, body))
            return
        if number < ctx.number:
            return  # a late copy (relayed, resent): every key of that round is out anyway
        if node == ctx.me and not ctx.restoring:
            if all(self._sessions.primary.knows_key(seat) for seat, _ in keys):
                return  # a relayed copy of the keys this node sent
            raise TableError(TableCode.KEYS_OWN, seat=sender, peer=sender)
        for seat, _ in keys:
            if not 0 <= node < ctx.players or node not in seats.cands.get(seat, set()):
                raise TableError(TableCode.KEY_NOT_RUN, seat=sender, peer=sender, claimed=seat,
                                 node=node)
        if any(seats.runner(seat) is None for seat, _ in keys):
            # before the seat's first message of the round (its node welcomed back, or
            # the adopter: undecided here): a relayed copy that overtook the node's own
            # messages; the node sends them again before its keys (:meth:`own_keys`), so
            # its own copy comes after them (a resync holds the relay in its place)
            return
        for seat, key in keys:
            if self._sessions.primary.public_key(seat) is None:
                if all(w.seat != seat for w in self.waiting):
                    self.waiting.append(SeatKey(sender, node, seat, key))
                continue
            self._take(SeatKey(sender, node, seat, key))

    def step(self) -> bool:
        """Take the keys of ``ownkey`` payloads whose seat's ``Y`` has arrived since."""
        primary = self._sessions.primary
        ready = [w for w in self.waiting if primary.public_key(w.seat) is not None]
        if not ready:
            return False
        self.waiting = [w for w in self.waiting if w not in ready]
        changed = False
        for w in ready:
            changed |= self._take(w)
        return changed

    def _take(self, k: SeatKey) -> bool:
        """Check one key of an ``ownkey`` payload against ``Y_seat`` (TableError names
        the sender) and take it in if new, relaying it first; True if taken in."""
        ctx, primary = self._ctx, self._sessions.primary
        public = primary.public_key(k.seat)
        if (not is_canonical_scalar(k.key) or not any(k.key)
                or base_mul(Scalar(k.key)) != public):
            raise TableError(TableCode.KEY_MISMATCH, seat=k.sender, peer=k.sender,
                             player=k.seat)
        if not self._unowned(k.seat):
            return False  # a copy, or the escrow rebuilt it first
        if not ctx.observing and not ctx.replaying:
            # relayed before anything this node sends for the seat (links keep order)
            ctx.send(OWNKEY, encode_ownkey(ctx.number, k.node, [(k.seat, k.key)]))
        self.learn(k.seat, k.key)
        return True
