"""Who and where a mental-poker session plays: :class:`SessionConfig`."""

from __future__ import annotations

from dataclasses import dataclass

from p2p8s.crypto.deck import DECK_SIZES
from p2p8s.crypto.derive import KEY_SEED_BYTES


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionConfig:
    """Who and where: ``players`` seats (2..7), this node's ``seat``, ``deck_size`` 52/54/104/108
    (:data:`~p2p8s.crypto.deck.DECK_SIZES`: R-DECK, with the jokers of R-ZW-DECK).

    ``observer=True`` makes a passive session that plays no seat (``seat`` must be 0 and
    is ignored): it verifies every message, follows the declared operations and, once
    every key is revealed, audits the round — the offline log verifier's view.

    ``escrow`` says, for each dealer seat, which seats hold shares of its key (§8): the
    default (``None``) is every other seat with 3+ seats and nobody with 2. A table
    whose nodes run several seats passes one holder per *other node* (a node must never
    hold several shares of one key, nor a share of a key its own node holds). Each list
    is empty (no escrow for that seat) or has 2+ seats (threshold = its length).

    ``key_seed`` (32 bytes, the node's per-table secret): this seat's round key ``e_j``
    is :func:`round_key` of it instead of random, so a node that lost its state can
    recompute it (everything else stays random). ``None``: ``e_j`` is drawn from
    ``rand``.
    """

    table: bytes
    round_no: int
    players: int
    seat: int
    deck_size: int
    observer: bool = False
    escrow: tuple[tuple[int, ...], ...] | None = None
    key_seed: bytes | None = None

    def __post_init__(self) -> None:
        if self.key_seed is not None and len(self.key_seed) != KEY_SEED_BYTES:
            raise ValueError(f"key_seed is {KEY_SEED_BYTES} bytes")
        if not 2 <= self.players <= 7 or not 0 <= self.seat < self.players:
            raise ValueError("players must be 2..7 and seat one of them")
        if self.deck_size not in DECK_SIZES:
            raise ValueError("deck_size is 52, 54, 104 or 108")
        if self.escrow is not None:
            if len(self.escrow) != self.players:
                raise ValueError("escrow needs one holder list per seat")
            for dealer, holders in enumerate(self.escrow):
                if (len(holders) == 1 or dealer in holders or list(holders) != sorted(
                        set(holders)) or not all(0 <= h < self.players for h in holders)):
                    raise ValueError(f"bad escrow holders for seat {dealer}: {holders}")

    def holders(self, dealer: int) -> tuple[int, ...]:
        """The seats holding shares of ``dealer``'s key, ascending (empty: no escrow)."""
        if self.escrow is not None:
            return self.escrow[dealer]
        if self.players < 3:
            return ()
        return tuple(s for s in range(self.players) if s != dealer)
