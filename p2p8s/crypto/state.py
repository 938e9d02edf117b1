"""The state every part of a :class:`~p2p8s.crypto.session.Session` shares: the
encoding epochs, the distributed positions, the keys and escrow seen, the message
chains, and the helpers that read them (transcripts, current values).

:class:`SessionState` holds the data; :mod:`~p2p8s.crypto.intake` (checking received
messages), :mod:`~p2p8s.crypto.escrow_steps` (escrow, accusations, recovery),
:mod:`~p2p8s.crypto.serving` (threshold strips of a lost seat),
:mod:`~p2p8s.crypto.steps` (this seat's own steps), :mod:`~p2p8s.crypto.driver`
(receiving and running) and :mod:`~p2p8s.crypto.session` (the public calls) each add
the methods of one concern.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from p2p8s.crypto import escrow, group, proofs, shuffle_proof
from p2p8s.crypto.config import SessionConfig
from p2p8s.crypto.deck import Position, card_face, card_points
from p2p8s.crypto.derive import (
    chain_next,
    chain_start,
    nonce_commitment,
    round_box_secret,
    round_nonce,
)
from p2p8s.crypto.errors import CheatDetected, Misuse, ProtocolMisuse
from p2p8s.crypto.events import CardsPlayed, Event
from p2p8s.crypto.group import Point, Rand, Scalar
from p2p8s.crypto.messages import Message
from p2p8s.crypto.transcript import Context, Transcript

#: The proof field of a PlayCards that shows only face-up cards (nothing to prove).
NO_PROOF = proofs.Proof(Scalar(bytes(32)), Scalar(bytes(32)))


def derived_secrets(config: SessionConfig, seed: bytes) -> tuple[bytes, bytes, bytes]:
    """The round nonce, X25519 box secret and box key of ``config``'s seat derived from
    the per-match secret ``seed`` (§5.2)."""
    t, r, s = config.table, config.round_no, config.seat
    box = round_box_secret(seed, t, r, s)
    return round_nonce(seed, t, r, s), box, escrow.box_public(box)


class Epoch:
    """One encoding epoch: its cards, base points and shuffle steps so far."""

    __slots__ = ("base", "cards", "lookup", "steps")

    def __init__(self, cards: tuple[int, ...], base: tuple[Point, ...]) -> None:
        self.cards = cards
        self.base = base
        self.lookup = {p: k for p, k in zip(base, cards, strict=True)}
        self.steps: list[tuple[Point, ...]] = []

    def final(self, n: int) -> tuple[Point, ...] | None:
        return self.steps[-1] if len(self.steps) == n else None


class Pos:
    """One distributed position: its operation, owner/holder, strip order and strips."""

    __slots__ = ("done", "holder", "k", "op", "order", "owner", "played", "reshuffled", "strips")

    def __init__(self, op: int, owner: int | None, order: tuple[int, ...]) -> None:
        self.op = op
        self.owner = owner  # whose private position it is (None: opened face up)
        self.holder = owner  # the seat whose hand holds it (a face-up card can be given)
        self.order = order
        self.strips: list[tuple[int, Point]] = []
        self.done = False
        self.k: int | None = None  # card index, when this node knows it
        self.played: int | None = None
        self.reshuffled = False

    def next_layer(self) -> int | None:
        return self.order[len(self.strips)] if len(self.strips) < len(self.order) else None

    def layer_index(self, layer: int) -> int | None:
        """Where ``layer`` comes in the strip order (None: it strips nothing here)."""
        return self.order.index(layer) if layer in self.order else None



class SessionState:
    """The data of one seat's session (see the module docstring)."""

    def __init__(self, config: SessionConfig, rand: Rand) -> None:
        self.config = config
        self._rand = rand
        n = config.players
        self._n = n
        self._observer = config.observer
        #: an observer plays no seat: -1 matches no seat, sends nothing
        self._me = -1 if config.observer else config.seat
        self._heads: list[list[bytes]] = [
            [chain_start(config.table, config.round_no, s)] for s in range(n)
        ]
        self._pending_echo: list[tuple[int, int, int, bytes]] = []  # reporter, seat, count, head
        self._inbox: list[Message] = []
        self._out: list[Message] = []
        self._events: list[Event] = []
        self._failed: CheatDetected | None = None
        self._started = False
        seed = None if config.observer else config.key_seed
        if seed is None:
            self._nonce = rand(32)
            self._box_secret, self._box_key = escrow.box_keypair(rand)
        else:  # derived (§5.2): a restarted node recomputes them (Session.resume)
            self._nonce, self._box_secret, self._box_key = derived_secrets(config, seed)
        self._commits: list[tuple[bytes, bytes] | None] = [None] * n
        self._nonces: list[bytes | None] = [None] * n
        self._revealed_nonce = False
        self.round_id: bytes | None = None
        # a derived key needs the round id (§5.2): set when it is known (_pump)
        self._key = (group.random_scalar(rand) if config.key_seed is None or config.observer
                     else group.ONE)
        self._key_inv = group.scalar_inv(self._key)
        self._keys: list[Point | None] = [None] * n
        self._escrow: list[tuple[Point, ...]] = [()] * n
        self._my_shares: dict[int, Scalar] = {}
        self._sealed: dict[int, dict[int, bytes]] = {}  # dealer -> recipient -> ciphertext
        self._accused: set[tuple[int, int]] = set()  # (accuser, dealer) told, unsettled
        self._verdict: CheatDetected | None = None  # an accusation settled (see _run)
        self._keys_ready = False
        self._epochs: list[Epoch] = []
        self._announced: set[int] = set()
        self._ops: list[tuple[Position, ...]] = []
        self._ops_done: list[bool] = []
        self._positions: dict[Position, Pos] = {}
        self._disputes: list[tuple[int, Position]] = []
        self._secrets: list[Scalar | None] = [None] * n
        self._share_reveals: dict[int, dict[int, Scalar]] = {}
        self._key_revealed = False
        self._all_revealed = False
        if self._observer:
            self._started = self._revealed_nonce = self._key_revealed = True
        self._recovered: set[int] = set()  # seats whose key was rebuilt from the escrow
        self._announced_recoveries: set[int] = set()  # dealers with a ShareReveal seen
        # threshold strips of lost seats' layers (§8.1, serving.py)
        self._serving: set[int] = set()  # lost seats this seat serves partial strips of
        self._partials: dict[tuple[int, Position], dict[int, Point]] = {}  # -> holder -> P_h
        self._served: set[tuple[int, Position]] = set()  # (layer, position) combined here
        self._images: dict[tuple[int, int], Point] = {}  # (dealer, holder) -> share image


    def _guard(self, *, player: bool = False) -> None:
        if self._failed is not None:
            raise self._failed
        if player and self._observer:
            raise ProtocolMisuse(Misuse.OBSERVER)

    def _send(self, cls: type[Message], **body: Any) -> None:
        echo = tuple((len(h) - 1, h[-1]) for h in self._heads)
        msg = cls(table=self.config.table, round_no=self.config.round_no, seat=self._me,
                  seq=len(self._heads[self._me]), echo=echo, **body)
        self._heads[self._me].append(chain_next(self._heads[self._me][-1], msg.encode()))
        self._out.append(msg)

    def _ctx(self) -> Context:
        return Context(table=self.config.table, round_no=self.config.round_no,
                       round_id=self.round_id or b"")

    def _commit_hash(self, seat: int, nonce: bytes) -> bytes:
        return nonce_commitment(self.config.table, self.config.round_no, seat, nonce)

    def _key_transcript(self, seat: int) -> Transcript:
        return Transcript(self._ctx(), kind=b"key", seat=seat)

    def _shuffle_transcript(self, epoch: int, layer: int) -> Transcript:
        ctx = Context(table=self.config.table, round_no=self.config.round_no,
                      round_id=self.round_id or b"", epoch=epoch)
        return Transcript(ctx, kind=shuffle_proof.KIND, seat=layer)

    def _strip_transcript(
        self, seat: int, layer: int, op: int, positions: Sequence[Position]
    ) -> Transcript:
        t = Transcript(self._ctx(), kind=b"strip", seat=seat).append_int(b"op", op)
        t.append_int(b"layer", layer).append_int(b"positions", len(positions))
        for e, i in positions:
            t.append_int(b"epoch", e).append_int(b"index", i)
        return t

    def _play_transcript(self, seat: int, items: Sequence[tuple[int, int, int]]) -> Transcript:
        t = Transcript(self._ctx(), kind=b"play", seat=seat).append_int(b"cards", len(items))
        for e, i, k in items:
            t.append_int(b"epoch", e).append_int(b"index", i).append_int(b"card", k)
        return t

    def _play_pair(self, e: int, i: int, k: int) -> tuple[Point, Point]:
        ep = self._epochs[e]
        base = ep.base[ep.cards.index(k)]
        return base, self._value((e, i))

    def _private(self, p: Position) -> bool:
        return self._positions[p].owner is not None

    def _my_key(self) -> Point:
        key = self._keys[self._me]
        assert key is not None
        return key

    def _value(self, p: Position) -> Point:
        return self._value_at(p, len(self._positions[p].strips))

    def _value_at(self, p: Position, k: int) -> Point:
        """The value of ``p`` after its first ``k`` strips (``k <= len(strips)``)."""
        pos = self._positions[p]
        if k:
            return pos.strips[k - 1][1]
        final = self._epochs[p[0]].final(self._n)
        assert final is not None
        return final[p[1]]

    def _epochs_final(self, p: Position) -> bool:
        return p[0] < len(self._epochs) and self._epochs[p[0]].final(self._n) is not None

    def _new_epoch(self, cards: tuple[int, ...]) -> None:
        assert self.round_id is not None
        e = len(self._epochs)
        base = card_points(self.config.table, self.config.round_no, self.round_id, e, cards)
        self._epochs.append(Epoch(cards, base))

    def _escrow_dealers(self) -> set[int]:
        return {s for s in range(self._n) if self._escrow[s]}

    def _proxy(self) -> int | None:
        """The lowest seat whose key was not recovered: it strips for recovered seats;
        None once every seat's key was recovered (everyone left: nobody acts for them)."""
        return min((s for s in range(self._n) if s not in self._recovered), default=None)

    def _apply_play(self, seat: int, items: Sequence[tuple[int, int, int]], *,
                    by: int) -> None:
        shown = []
        for e, i, k in items:
            pos = self._positions[(e, i)]
            pos.played = k
            pos.k = k
            shown.append(((e, i), card_face(k, self.config.deck_size), k))
        self._events.append(CardsPlayed(seat, tuple(shown), by))
