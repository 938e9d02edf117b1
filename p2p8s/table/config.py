"""Who sits at a table and under which rules: :class:`SeatInfo`, :class:`TableConfig`.

A config is fixed when the host deals (the final roster). Every node builds the same
config; each sends it to the others at the start of the match (a ``setup`` payload,
protocol/table.md) so a disagreement is caught at once and the saved log carries the
config the offline verifier needs (:mod:`p2p8s.table.logverify`).
"""

from __future__ import annotations

from dataclasses import dataclass

import msgpack

from p2p8s.cards import deck_size, decks_for
from p2p8s.errors import MalformedInput
from p2p8s.rules import Ruleset, check_players
from p2p8s.table.decoding import PayloadCode, PayloadProblem, decoding, refuse
from p2p8s.table.errors import TableCode

#: The seat whose node runs the computer seats (the host's, R-TIMER / DESIGN.md).
HOST_SEAT = 0


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """One seat: number, player name, the identity key (Ed25519, 32 bytes) of the node
    that signs for it, and ``computer`` = the bot personality name for a computer seat
    (run by the host's node; its key is the host's), else ``None``."""

    seat: int
    name: str
    key: bytes
    computer: str | None = None


@dataclass(frozen=True, slots=True)
class TableConfig:
    """The table: its 8-byte id, the ruleset, the match ``target`` (points; ignored by the
    countdown variant), the seats in order 0..n-1 (2..7, R-SEATS) and the turn timer in
    seconds (R-TIMER). ``escrow`` False: the host switched the key escrow off
    (``--no-escrow``): no seat's key is shared, nobody serves a lost seat's strips or
    rebuilds its key, and a lost player pauses the game as at a table of two
    (protocol/table.md "Dropped nodes"). Raises :class:`~p2p8s.errors.MalformedInput`
    when inconsistent."""

    table: bytes
    rules: Ruleset
    target: int
    seats: tuple[SeatInfo, ...]
    turn_timeout_s: float = 30.0
    escrow: bool = True

    def __post_init__(self) -> None:
        check_players(len(self.seats))
        if [s.seat for s in self.seats] != list(range(len(self.seats))):
            raise MalformedInput(TableCode.SEATS_ORDER)
        if self.seats[HOST_SEAT].computer is not None:
            raise MalformedInput(TableCode.HOST_COMPUTER)
        if self.turn_timeout_s <= 0:
            raise MalformedInput(TableCode.TIMER_NOT_POSITIVE)

    @property
    def players(self) -> int:
        """Number of seats."""
        return len(self.seats)

    @property
    def deck_size(self) -> int:
        """52 cards, or 104 with 6 or 7 players (R-DECK); plus 2 jokers per deck when
        the rules deal them (R-ZW-DECK: 54 or 108)."""
        return deck_size(decks_for(self.players), jokers=self.rules.rule_table.jokers)

    @property
    def names(self) -> tuple[str, ...]:
        """Player names by seat."""
        return tuple(s.name for s in self.seats)

    def computer(self, seat: int) -> bool:
        """True if ``seat`` is a computer seat (run by the host's node)."""
        return self.seats[seat].computer is not None

    def node_of(self, seat: int) -> int:
        """The seat whose node authors ``seat``'s messages (the host for a computer)."""
        return HOST_SEAT if self.computer(seat) else seat

    def local_seats(self, me: int) -> tuple[int, ...]:
        """The seats node ``me`` plays: its own, and the computer seats if it is the host."""
        return tuple(s for s in range(self.players) if self.node_of(s) == me)

    def seat_of_key(self, key: bytes) -> int | None:
        """The human seat whose node signs with ``key``, or ``None``."""
        return next((s.seat for s in self.seats if s.computer is None and s.key == key),
                    None)

    def to_bytes(self) -> bytes:
        """Canonical msgpack form (protocol/table.md, "setup")."""
        obj = [self.table, self.rules.to_dict(), self.target, float(self.turn_timeout_s),
               [[s.seat, s.name, s.key, s.computer] for s in self.seats], self.escrow]
        packed: bytes = msgpack.packb(obj, use_bin_type=True)
        return packed

    @classmethod
    def from_bytes(cls, data: bytes) -> TableConfig:
        """Inverse of :meth:`to_bytes` (the bytes come from a peer, or a log); raises
        :class:`~p2p8s.table.decoding.BadPayload` (:attr:`~p2p8s.table.decoding.PayloadCode.CONFIG`;
        a config that breaks a rule carries that error as its ``cause``)."""
        with decoding(PayloadCode.CONFIG):
            obj = msgpack.unpackb(data, raw=False, use_list=True, strict_map_key=True)
            table, rules, target, timeout, seats, escrow = obj
            # Exact types first: bytes(n) of a huge int would allocate n bytes (or raise
            # OverflowError) before the canonical check could refuse it.
            if (type(table) is not bytes or type(target) is not int
                    or type(timeout) is not float or type(seats) is not list
                    or type(escrow) is not bool
                    or not all(type(s) is list and len(s) == 4 and type(s[0]) is int
                               and type(s[1]) is str and type(s[2]) is bytes
                               and (s[3] is None or type(s[3]) is str) for s in seats)):
                refuse(PayloadProblem.WRONG_TYPE)
            config = cls(
                table=bytes(table), rules=Ruleset.from_dict(rules), target=int(target),
                turn_timeout_s=float(timeout), escrow=escrow,
                seats=tuple(SeatInfo(int(s), str(n), bytes(k), None if c is None else str(c))
                            for s, n, k, c in seats))
            if config.to_bytes() != data:
                refuse(PayloadProblem.NOT_CANONICAL)
        return config

