"""One seat's mental-poker state machine for one round (sans-IO).

A :class:`Session` takes messages in (:meth:`Session.receive`) and local requests from
its table layer (:meth:`start_round`, :meth:`deal`, :meth:`draw`, :meth:`open`,
:meth:`play`, :meth:`reshuffle`, :meth:`end_round`, :meth:`recover`) and answers each
with an :class:`~p2p8s.crypto.events.Output`: messages to broadcast to every other seat
and events for the table layer. It never does I/O, never reads a clock, and draws all
randomness from the ``rand`` it was given.

Message flow (every message is a broadcast to all other seats)::

    start_round()      every seat -> Commit(H(nonce), box key)
    all Commits in     every seat -> Reveal(nonce)           round_id = H(nonces)
    all Reveals in     every seat -> KeyAnnounce(Y_j, Schnorr proof, escrow)
    all keys in        seat 0 -> Shuffle(epoch 0), then seat 1 after seat 0, ... seat n-1
    deal/draw/open     the strippers of each position -> Strip(op, items, batch DLEQ),
                       a private position of owner o is stripped by o+1, o+2, …, o-1
                       (so a whole deal takes n-1 hops, every seat stripping once per
                       hop); a public position by 0, 1, …, n-1
    play(positions)    owner -> PlayCards(cards, batch DLEQ)
    reshuffle(known)   seat 0 -> Shuffle(new epoch), …, seat n-1
    announce(data)     the table layer's game action -> Act(data) (ordered per sender,
                       chained and echoed like every other message)
    end_round()        every seat -> KeyReveal(e_j); then audit()
    bad escrow share   its recipient -> Accuse(dealer, box secret); every node settles it
                       (escrow.settle) and stops naming the dealer or the accuser
    recover(seat j)    every seat but j -> ShareReveal(j, share); once j's key is rebuilt,
                       the lowest seat whose key was not recovered strips j's layer
                       (Strip with layer = j), so dealing and drawing go on

Operations (deal, draw, open) must be declared by every node's table layer in the same
order (they follow from the replicated game log); each gets the next operation number,
and strips for an operation this node has not declared yet wait in the inbox.

Every message carries ``seq`` (1, 2, … per sender) and ``echo``: for each seat, how many
of its messages the sender has processed and the hash chain over them
(``head_k = SHA-512(b"p2p8s/v1/chain" ‖ head_{k-1} ‖ bytes of message k)[:32]``). A
replayed or reordered message, or a seat that sent different bytes to different peers,
is detected when the echoes disagree (EQUIVOCATION names the author; the signed messages
held by the wire layer decide between author and echoer).

After :class:`~p2p8s.crypto.errors.CheatDetected` the session is failed: every later
call raises the same error.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey

from p2p8s.crypto import escrow, group, proofs, shuffle_proof
from p2p8s.crypto.audit import (
    AuditReport,
    EpochRecord,
    PositionRecord,
    RoundRecord,
    audit_round,
)
from p2p8s.crypto.deck import (
    DECK_SIZES,
    Position,
    card_face,
    card_points,
    check_shuffle_output,
    shuffle_step,
)
from p2p8s.crypto.errors import Cheat, CheatDetected, Fault, Misuse, ProtocolMisuse
from p2p8s.crypto.events import (
    Accused,
    Announced,
    CardDealt,
    CardOpened,
    CardReceived,
    CardsPlayed,
    Disputed,
    EpochReady,
    Event,
    KeyRecovered,
    KeysReady,
    KeysRevealed,
    OpDone,
    Output,
    RoundIdReady,
    Verdict,
)
from p2p8s.crypto.group import Point, Rand, Scalar
from p2p8s.crypto.messages import (
    Accuse,
    Act,
    Commit,
    Dispute,
    KeyAnnounce,
    KeyReveal,
    Message,
    PlayCards,
    Reveal,
    ShareReveal,
    Shuffle,
    Strip,
)
from p2p8s.crypto.transcript import Context, Transcript

CHAIN_TAG = b"p2p8s/v1/chain"
#: The proof field of a PlayCards that shows only face-up cards (nothing to prove).
NO_PROOF = proofs.Proof(Scalar(bytes(32)), Scalar(bytes(32)))
COMMIT_TAG = b"p2p8s/v1/commit"
ROUND_TAG = b"p2p8s/v1/round-id"
ROUND_KEY_TAG = b"p2p8s/v1/round-key"
#: the length of a per-table key secret (:func:`round_key`)
KEY_SEED_BYTES = 32


def _lp(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def nonce_commitment(table: bytes, round_no: int, seat: int, nonce: bytes) -> bytes:
    """``SHA-512(tag ‖ table ‖ round ‖ seat ‖ nonce)[:32]``, all length-prefixed."""
    data = _lp(COMMIT_TAG) + _lp(table) + _lp(round_no.to_bytes(8, "big"))
    data += _lp(seat.to_bytes(8, "big")) + _lp(nonce)
    return hashlib.sha512(data).digest()[:32]


def round_id_of(table: bytes, round_no: int, nonces: Sequence[bytes]) -> bytes:
    """``SHA-512(tag ‖ table ‖ round ‖ nonce_0 ‖ … ‖ nonce_{n-1})[:32]``, length-prefixed."""
    data = _lp(ROUND_TAG) + _lp(table) + _lp(round_no.to_bytes(8, "big"))
    for n in nonces:
        data += _lp(n)
    return hashlib.sha512(data).digest()[:32]


def round_key(key_seed: bytes, table: bytes, round_no: int, round_id: bytes,
              seat: int) -> Scalar:
    """The round key ``e_j`` a node derives from its per-match secret ``key_seed``
    (32 bytes): ``HMAC-SHA512(key_seed, tag ‖ lp(table) ‖ u64 round ‖ lp(round_id) ‖
    u8 seat)`` read little-endian and reduced mod the group order (a restarted node
    recomputes it and proves it by ``e_j·G = Y_j``). ``round_id`` is the jointly random
    id of §5.1 (32 bytes), so no two rounds share a key even if a table code and a secret
    were used again (issue #13). Raises ValueError for a seed or round id of the wrong
    length, or for the (probability 2^-252) zero scalar."""
    if len(key_seed) != KEY_SEED_BYTES:
        raise ValueError(f"a key seed is {KEY_SEED_BYTES} bytes")
    if len(round_id) != 32:
        raise ValueError("a round id is 32 bytes")
    data = (ROUND_KEY_TAG + _lp(table) + round_no.to_bytes(8, "big") + _lp(round_id)
            + bytes([seat]))
    key = group.scalar_reduce(hmac.new(key_seed, data, hashlib.sha512).digest())
    if not any(key):
        raise ValueError("the derived round key is zero")
    return key


def chain_start(table: bytes, round_no: int, seat: int) -> bytes:
    """The head of ``seat``'s message chain before its first message."""
    data = _lp(CHAIN_TAG) + _lp(table) + _lp(round_no.to_bytes(8, "big"))
    return hashlib.sha512(data + _lp(seat.to_bytes(8, "big"))).digest()[:32]


def chain_next(head: bytes, encoded: bytes) -> bytes:
    """The chain head after a message with canonical bytes ``encoded``."""
    return hashlib.sha512(_lp(CHAIN_TAG) + head + encoded).digest()[:32]


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


class _Epoch:
    __slots__ = ("base", "cards", "lookup", "steps")

    def __init__(self, cards: tuple[int, ...], base: tuple[Point, ...]) -> None:
        self.cards = cards
        self.base = base
        self.lookup = {p: k for p, k in zip(base, cards, strict=True)}
        self.steps: list[tuple[Point, ...]] = []

    def final(self, n: int) -> tuple[Point, ...] | None:
        return self.steps[-1] if len(self.steps) == n else None


class _Pos:
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


class Session:
    """The mental-poker state machine of one seat for one round.

    ``rand(n) -> bytes`` supplies all randomness (``os.urandom`` in production, a seeded
    stream in tests). Raises :class:`ProtocolMisuse` for local calls at the wrong time
    and :class:`CheatDetected` (naming the seat) for bad peer data.
    """

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
        self._nonce = rand(32)
        self._box_secret, self._box_key = escrow.box_keypair(rand)
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
        self._epochs: list[_Epoch] = []
        self._announced: set[int] = set()
        self._ops: list[tuple[Position, ...]] = []
        self._ops_done: list[bool] = []
        self._positions: dict[Position, _Pos] = {}
        self._disputes: list[tuple[int, Position]] = []
        self._secrets: list[Scalar | None] = [None] * n
        self._share_reveals: dict[int, dict[int, Scalar]] = {}
        self._key_revealed = False
        self._all_revealed = False
        if self._observer:
            self._started = self._revealed_nonce = self._key_revealed = True
        self._recovered: set[int] = set()  # seats whose key was rebuilt from the escrow
        self._announced_recoveries: set[int] = set()  # dealers with a ShareReveal seen

    # ------------------------------------------------------------------ public state

    @property
    def seat(self) -> int:
        """This node's seat."""
        return self._me

    @property
    def keys_ready(self) -> bool:
        """True once every ``Y_j`` is verified."""
        return self._keys_ready

    def epoch_size(self, epoch: int) -> int | None:
        """Number of positions of ``epoch`` once its shuffle is complete, else None."""
        if epoch < len(self._epochs) and self._epochs[epoch].final(self._n) is not None:
            return len(self._epochs[epoch].cards)
        return None

    def hand(self) -> dict[Position, int]:
        """Positions this seat holds and has not played -> card index."""
        return {
            p: s.k
            for p, s in self._positions.items()
            if s.holder == self._me and s.done and s.k is not None and s.played is None
        }

    def known_card(self, position: Position) -> int | None:
        """The card index at ``position`` if this node knows it (own, opened or played,
        or held by a seat whose key this node knows: recovered or revealed)."""
        pos = self._positions.get(position)
        if pos is None:
            return None
        if pos.k is None and pos.done and pos.holder is not None and pos.holder != self._me:
            secret = self._secrets[pos.holder]
            if secret is not None:
                pos.k = self._epochs[position[0]].lookup.get(
                    group.mul(group.scalar_inv(secret), self._value(position)))
        return pos.k

    def hand_of(self, seat: int) -> dict[Position, int] | None:
        """Positions ``seat`` holds and has not played -> card index, if this node knows
        them (its own seat, or a seat whose key was recovered or revealed), else None."""
        if seat == self._me:
            return self.hand()
        if not 0 <= seat < self._n or self._secrets[seat] is None:
            return None
        return self._recovered_hand(seat)

    def recovering(self, seat: int) -> bool:
        """True once an escrow share of ``seat``'s key was published (recovery begun)."""
        return seat in self._announced_recoveries

    def recovered(self, seat: int) -> bool:
        """True once ``seat``'s key was rebuilt from the escrow (or learnt through
        :meth:`learn_key`) here."""
        return seat in self._recovered

    def give_up_key(self) -> Scalar | None:
        """This seat's round secret ``e_j`` once its ``KeyAnnounce`` is out (None before,
        and for an observer), for a player who leaves the table for good: sent to the
        others (protocol/table.md, "Leaving") it lets them play the seat, its hand open —
        as after an escrow recovery, and also where there is no escrow (two people)."""
        if self.config.observer or self.public_key(self._me) is None:
            return None
        return self._key

    def knows_key(self, seat: int) -> bool:
        """True once this node knows ``seat``'s secret key (recovered or revealed)."""
        return 0 <= seat < self._n and self._secrets[seat] is not None

    @property
    def key_revealed(self) -> bool:
        """True once this seat revealed its key (:meth:`end_round`)."""
        return self._key_revealed

    def op_done(self, op: int) -> bool:
        """True once every position of operation ``op`` has reached its owner here."""
        return 0 <= op < len(self._ops_done) and self._ops_done[op]

    @property
    def ops(self) -> int:
        """Number of operations declared so far (the next one gets this number)."""
        return len(self._ops)

    @property
    def epochs(self) -> int:
        """Number of encoding epochs opened so far (complete or not)."""
        return len(self._epochs)

    @property
    def keys_revealed(self) -> bool:
        """True once every seat's key is known here (revealed or recovered)."""
        return self._all_revealed

    def chain_heads(self) -> tuple[tuple[int, bytes], ...]:
        """For each seat: how many of its messages this node has (sent or) processed, and
        the chain hash after the last of them (the ``echo`` this node would send now)."""
        return tuple((len(h) - 1, h[-1]) for h in self._heads)

    def chain_head(self, seat: int, count: int) -> bytes:
        """The hash chain of ``seat``'s messages after its first ``count`` (0 = start);
        raises IndexError past the messages seen."""
        if count < 0:
            raise IndexError(count)
        return self._heads[seat][count]

    def public_key(self, seat: int) -> Point | None:
        """``Y_seat`` once announced and verified."""
        return self._keys[seat]

    # ------------------------------------------------------------------ local calls

    def start_round(self) -> Output:
        """Begin the round: broadcast the nonce commitment (and X25519 box key)."""
        self._guard(player=True)
        if self._started:
            raise ProtocolMisuse(Misuse.STARTED)
        self._started = True
        nonce_hash = self._commit_hash(self._me, self._nonce)
        self._commits[self._me] = (nonce_hash, self._box_key)
        self._send(Commit, nonce_hash=nonce_hash, box_key=self._box_key)
        return self._run()

    def deal(self, items: Sequence[tuple[Position, int | None]]) -> Output:
        """Declare a batched distribution: each ``(position, owner)``; ``None`` = face up.

        Every node must declare the same operations in the same order. Raises
        :class:`ProtocolMisuse` for an unknown or already distributed position.
        """
        self._guard()
        op = len(self._ops)
        seen: set[Position] = set()
        for position, owner in items:
            e, i = position
            size = self.config.deck_size if e == 0 else (
                len(self._epochs[e].cards) if e < len(self._epochs) else -1)
            if not 0 <= i < size or position in self._positions or position in seen:
                raise ProtocolMisuse(Misuse.NOT_DISTRIBUTABLE, position=position)
            if owner is not None and not 0 <= owner < self._n:
                raise ProtocolMisuse(Misuse.NO_SEAT, seat=owner)
            seen.add(position)
        for position, owner in items:
            if owner is None:
                order = tuple(range(self._n))
            else:
                order = tuple((owner + d) % self._n for d in range(1, self._n))
            self._positions[position] = _Pos(op, owner, order)
        self._ops.append(tuple(p for p, _ in items))
        self._ops_done.append(False)
        return self._run()

    def draw(self, position: Position, seat: int) -> Output:
        """Declare that ``seat`` draws ``position`` (a one-position :meth:`deal`)."""
        return self.deal([(position, seat)])

    def open(self, positions: Sequence[Position]) -> Output:
        """Declare ``positions`` turned face up for everyone (e.g. the starter card)."""
        return self.deal([(p, None) for p in positions])

    def give(self, position: Position, seat: int) -> Output:
        """A face-up card (e.g. a buried starter, R-STARTER) goes into ``seat``'s hand.

        No message is needed: everyone knows the card. Every node declares it at the same
        point of the game. Raises :class:`ProtocolMisuse` unless ``position`` was opened.
        """
        self._guard()
        pos = self._positions.get(position)
        if (pos is None or pos.owner is not None or not pos.done or pos.holder is not None
                or pos.k is None or not 0 <= seat < self._n):
            raise ProtocolMisuse(Misuse.NOT_FACE_UP, position=position)
        pos.holder = seat
        return self._run()

    def play(self, positions: Sequence[Position], *, seat: int | None = None) -> Output:
        """Show cards this seat holds, with a batch DLEQ proof; broadcasts PlayCards.

        ``seat`` plays for a seat whose key was recovered (only the lowest seat whose key
        was not recovered may). Raises :class:`ProtocolMisuse` for a card not held.
        """
        self._guard(player=True)
        holder = self._me if seat is None else seat
        if holder != self._me and (holder not in self._recovered
                                   or self._proxy() != self._me):
            raise ProtocolMisuse(Misuse.CANNOT_PLAY_FOR, seat=holder)
        if not positions or len(set(positions)) != len(positions):
            raise ProtocolMisuse(Misuse.PLAY_NOT_DISTINCT)
        hand = self.hand() if holder == self._me else self._recovered_hand(holder)
        for p in positions:
            if p not in hand:
                raise ProtocolMisuse(Misuse.NOT_HELD, seat=holder, position=p)
        items = tuple((p[0], p[1], hand[p]) for p in positions)
        pairs = [self._play_pair(e, i, k) for e, i, k in items if self._private((e, i))]
        t = self._play_transcript(holder, items)
        secret = self._key if holder == self._me else self._secrets[holder]
        public = self._keys[holder]
        assert secret is not None and public is not None
        proof = (proofs.prove_dleq_batch(t, secret, public, pairs, self._rand)
                 if pairs else NO_PROOF)
        self._send(PlayCards, holder=holder, items=items, proof=proof)
        self._apply_play(holder, items, by=self._me)
        return self._run()

    def _recovered_hand(self, seat: int) -> dict[Position, int]:
        hand = {}
        for p, pos in self._positions.items():
            if pos.holder != seat or not pos.done or pos.played is not None:
                continue
            k = self.known_card(p)
            if k is not None:
                hand[p] = k
        return hand

    def reshuffle(self, positions: Sequence[Position]) -> Output:
        """Open a new epoch from the face-up cards at ``positions`` (the discards, oldest
        first, which become the canonical order of the new deck); seat 0 shuffles first.

        Raises :class:`ProtocolMisuse` unless every position is face up (opened or played)
        and not already reshuffled.
        """
        self._guard()
        if self.round_id is None or not positions:
            raise ProtocolMisuse(Misuse.NOTHING_TO_RESHUFFLE)
        ks = []
        for p in positions:
            pos = self._positions.get(p)
            public = pos is not None and (
                (pos.owner is None and pos.holder is None) or pos.played is not None)
            if pos is None or not pos.done or pos.k is None or not public or pos.reshuffled:
                raise ProtocolMisuse(Misuse.NOT_A_DISCARD, position=p)
            ks.append(pos.k)
        if len(set(positions)) != len(positions):
            raise ProtocolMisuse(Misuse.DISCARD_TWICE)
        for p in positions:
            self._positions[p].reshuffled = True
        self._new_epoch(tuple(ks))
        return self._run()

    def announce(self, data: bytes) -> Output:
        """Broadcast a table-layer action ``data`` (at most 4096 bytes) as an :class:`Act`.

        The crypto layer does not interpret it; receivers get an :class:`Announced` event
        after every earlier message of this seat. Raises :class:`ProtocolMisuse` before
        :meth:`start_round` or for oversize data.
        """
        self._guard(player=True)
        if not self._started or len(data) > 4096:
            raise ProtocolMisuse(Misuse.NOT_STARTED)
        self._send(Act, data=data)
        return self._run()

    def end_round(self) -> Output:
        """Reveal this seat's key ``e_j`` (round end, R-AUDIT); broadcasts KeyReveal."""
        self._guard(player=True)
        if not self._keys_ready or self._key_revealed:
            raise ProtocolMisuse(Misuse.KEY_NOT_NOW)
        self._key_revealed = True
        self._send(KeyReveal, key=self._key)
        self._secrets[self._me] = self._key
        return self._run()

    def recover(self, seat: int) -> Output:
        """Publish this seat's escrow share of ``seat``'s key (``seat`` left the table).

        When every other seat's share is in, the key is rebuilt and checked against
        ``Y_seat`` (event KeyRecovered); from then on the lowest seat whose key was not
        recovered strips ``seat``'s layer. The recovered seat's cards are public to
        every node (``known_card`` after :meth:`audit`, or :func:`audit_round`).
        """
        self._guard(player=True)
        if self._me not in self.config.holders(seat) or seat not in self._escrow_dealers():
            raise ProtocolMisuse(Misuse.NO_SHARE, seat=seat)
        if seat in self._announced_recoveries and self._me in self._share_reveals.get(
                seat, {}):
            return self._run()  # already published
        share = self._my_shares[seat]
        self._announced_recoveries.add(seat)
        self._send(ShareReveal, dealer=seat, share=share)
        self._record_share(seat, self._me, share)
        return self._run()

    def learn_key(self, seat: int, key: Scalar) -> Output:
        """``seat``'s key ``e_seat``, recomputed by its restarted node (which lost its
        state, not its per-table secret): taken exactly as if the escrow had rebuilt it
        — stored, the seat marked recovered, event KeyRecovered — so the lowest seat
        whose key was not recovered acts for it from now on. The caller checks the key
        first; raises ProtocolMisuse for this node's own seat, a seat whose key is
        already known or not announced yet, or a key with ``key·G != Y_seat``."""
        self._guard()
        if not 0 <= seat < self._n or seat == self._me:
            raise ProtocolMisuse(Misuse.CANNOT_LEARN, seat=seat)
        public = self._keys[seat]
        if public is None or self._secrets[seat] is not None or seat in self._recovered:
            raise ProtocolMisuse(Misuse.KEY_KNOWN, seat=seat)
        if (not group.is_canonical_scalar(key) or not any(key)
                or group.base_mul(key) != public):
            raise ProtocolMisuse(Misuse.KEY_MISMATCH, seat=seat)
        self._secrets[seat] = key
        self._recovered.add(seat)
        self._announced_recoveries.add(seat)
        self._events.append(KeyRecovered(seat))
        return self._run()

    def record(self) -> RoundRecord:
        """A snapshot of everything :func:`~p2p8s.crypto.audit.audit_round` checks."""
        if self.round_id is None or None in self._keys:
            raise ProtocolMisuse(Misuse.NO_KEYS)
        n = self._n
        return RoundRecord(
            table=self.config.table,
            round_no=self.config.round_no,
            round_id=self.round_id,
            players=n,
            keys=tuple(k for k in self._keys if k is not None),
            epochs=tuple(
                EpochRecord(epoch=e, cards=ep.cards, steps=tuple(ep.steps))
                for e, ep in enumerate(self._epochs)
                if len(ep.steps) == n
            ),
            positions=tuple(
                PositionRecord(position=p, owner=s.owner, holder=s.holder, order=s.order,
                               strips=tuple(s.strips), played=s.played)
                for p, s in sorted(self._positions.items())
                if p[0] < len(self._epochs) and len(self._epochs[p[0]].steps) == n
            ),
            disputes=tuple(self._disputes),
        )

    def audit(self) -> AuditReport:
        """Audit the round with every key known (revealed or recovered).

        Returns the :class:`~p2p8s.crypto.audit.AuditReport`; raises CheatDetected naming
        the seat at fault, or ProtocolMisuse if keys are still missing.
        """
        if any(s is None for s in self._secrets):
            raise ProtocolMisuse(Misuse.AUDIT_KEYS)
        return audit_round(self.record(), [s for s in self._secrets if s is not None])

    # ------------------------------------------------------------------ receiving

    def receive(self, msg: Message) -> Output:
        """Process one message from a peer (already decoded by :func:`messages.decode`).

        Raises :class:`CheatDetected` naming the seat at fault.
        """
        self._guard()
        try:
            self._accept(msg)
        except CheatDetected as e:
            self._failed = e
            raise
        self._inbox.append(msg)
        return self._run()

    def _accept(self, msg: Message) -> None:
        cfg = self.config
        s = msg.seat
        if msg.table != cfg.table or msg.round_no != cfg.round_no:
            raise CheatDetected(Cheat.OTHER_ROUND, seat=s,
                                fault=Fault.REPLAY)
        if not 0 <= s < self._n or s == self._me:
            raise CheatDetected(Cheat.IMPOSSIBLE_SEAT, seat=None,
                                fault=Fault.MALFORMED, claimed=s)
        count = len(self._heads[s]) - 1
        if msg.seq <= count:
            raise CheatDetected(Cheat.ALREADY_RECEIVED, seat=s,
                                fault=Fault.REPLAY, seq=msg.seq)
        if msg.seq != count + 1:
            raise CheatDetected(Cheat.ARRIVED_EARLY, seat=s,
                                fault=Fault.REORDER, seq=msg.seq, expected=count + 1)
        if len(msg.echo) != self._n:
            raise CheatDetected(Cheat.ECHO_LENGTH, seat=s, fault=Fault.MALFORMED)
        later: list[tuple[int, int, int, bytes]] = []
        for seat, (c, head) in enumerate(msg.echo):
            if seat == s and c != count:
                raise CheatDetected(Cheat.ECHO_OWN_CHAIN, seat=s,
                                    fault=Fault.EQUIVOCATION)
            if c < len(self._heads[seat]):
                self._compare_echo(s, seat, c, head)
            elif seat == self._me:
                raise CheatDetected(Cheat.ECHO_UNSENT, seat=s,
                                    fault=Fault.EQUIVOCATION)
            else:
                later.append((s, seat, c, head))
        self._heads[s].append(chain_next(self._heads[s][-1], msg.encode()))
        self._pending_echo.extend(later)
        self._recheck_echoes()

    def check_echo(self, reporter: int, echo: Sequence[tuple[int, bytes]]) -> None:
        """Compare ``reporter``'s view of every chain (as in a message's ``echo``, e.g.
        sent with its stop notice) with this node's, as far as both have seen.

        Raises :class:`CheatDetected` (EQUIVOCATION) naming the seat that sent different
        messages to different peers (or ``reporter`` about its own chain).
        """
        if len(echo) != self._n or not 0 <= reporter < self._n:
            raise CheatDetected(Cheat.ECHO_LENGTH, seat=reporter,
                                fault=Fault.MALFORMED)
        for seat, (count, head) in enumerate(echo):
            if 0 <= count < len(self._heads[seat]):
                self._compare_echo(reporter, seat, count, head)

    def _compare_echo(self, reporter: int, seat: int, count: int, head: bytes) -> None:
        if self._heads[seat][count] == head:
            return
        blame = reporter if seat in (reporter, self._me) else seat
        raise CheatDetected(Cheat.SAW_DIFFERENT, seat=blame, fault=Fault.EQUIVOCATION,
                            reporter=reporter, about=seat, count=count)

    def _recheck_echoes(self) -> None:
        still = []
        for reporter, seat, c, head in self._pending_echo:
            if c < len(self._heads[seat]):
                self._compare_echo(reporter, seat, c, head)
            else:
                still.append((reporter, seat, c, head))
        self._pending_echo = still

    def _handle(self, msg: Message) -> bool:
        """Apply one message; False means "not yet" (it stays in the inbox)."""
        if isinstance(msg, Commit):
            return self._on_commit(msg)
        if isinstance(msg, Reveal):
            return self._on_reveal(msg)
        if isinstance(msg, KeyAnnounce):
            return self._on_key(msg)
        if isinstance(msg, Shuffle):
            return self._on_shuffle(msg)
        if isinstance(msg, Strip):
            return self._on_strip(msg)
        if isinstance(msg, PlayCards):
            return self._on_play(msg)
        if isinstance(msg, Dispute):
            return self._on_dispute(msg)
        if isinstance(msg, KeyReveal):
            return self._on_key_reveal(msg)
        if isinstance(msg, ShareReveal):
            return self._on_share_reveal(msg)
        if isinstance(msg, Act):
            return self._on_act(msg)
        if isinstance(msg, Accuse):
            return self._on_accuse(msg)
        raise CheatDetected(Cheat.UNKNOWN_MESSAGE, seat=msg.seat, fault=Fault.MALFORMED)

    def _on_act(self, msg: Act) -> bool:
        if any(m.seat == msg.seat and m.seq < msg.seq for m in self._inbox):
            return False  # an earlier message of this seat is still waiting
        self._events.append(Announced(msg.seat, msg.data))
        return True

    def _on_commit(self, msg: Commit) -> bool:
        if self._commits[msg.seat] is not None:
            raise CheatDetected(Cheat.SECOND_COMMITMENT, seat=msg.seat, fault=Fault.UNEXPECTED)
        self._commits[msg.seat] = (msg.nonce_hash, msg.box_key)
        return True

    def _on_reveal(self, msg: Reveal) -> bool:
        c = self._commits[msg.seat]
        if c is None or self._nonces[msg.seat] is not None:
            raise CheatDetected(Cheat.REVEAL_OUT_OF_TURN, seat=msg.seat,
                                fault=Fault.UNEXPECTED)
        if self._commit_hash(msg.seat, msg.nonce) != c[0]:
            raise CheatDetected(Cheat.NONCE_MISMATCH, seat=msg.seat,
                                fault=Fault.BAD_NONCE)
        self._nonces[msg.seat] = msg.nonce
        return True

    def _on_key(self, msg: KeyAnnounce) -> bool:
        s = msg.seat
        if self.round_id is None:
            return False
        if self._keys[s] is not None:
            raise CheatDetected(Cheat.SECOND_KEY, seat=s, fault=Fault.UNEXPECTED)
        if not group.is_valid_point(msg.key) or not proofs.verify_schnorr(
            self._key_transcript(s), msg.key, msg.proof
        ):
            raise CheatDetected(Cheat.KEY_PROOF, seat=s,
                                fault=Fault.BAD_KEY_PROOF)
        share = None
        others = list(self.config.holders(s))
        if others:
            if (len(msg.commitments) != len(others) or msg.commitments[0] != msg.key
                    or not all(group.is_valid_point(a) for a in msg.commitments)
                    or [r for r, _ in msg.shares] != others):
                raise CheatDetected(Cheat.ESCROW_MALFORMED, seat=s,
                                    fault=Fault.BAD_SHARE)
            box = self._commits[s]
            assert box is not None
            if not self._observer and self._me in others:
                ct = dict(msg.shares)[self._me]
                try:
                    share = escrow.open_share(
                        ct, dealer=s, recipient=self._me, box_secret=self._box_secret,
                        dealer_box_key=box[1], commitments=msg.commitments, ctx=self._ctx(),
                    )
                except CheatDetected as verdict:
                    self._verdict = verdict  # accused below, once the key is recorded
        elif msg.commitments or msg.shares:
            raise CheatDetected(Cheat.ESCROW_NOT_DUE, seat=s, fault=Fault.MALFORMED)
        self._keys[s] = msg.key
        self._escrow[s] = msg.commitments
        self._sealed[s] = dict(msg.shares)
        if share is not None:
            self._my_shares[s] = share
        if self._verdict is not None:
            # not on this node's word: every node checks the share itself (escrow.settle)
            self._send(Accuse, dealer=s, box_secret=self._box_secret)
            self._events.append(Accused(self._me, s))
            self._events.append(Verdict(self._verdict))
        return True

    def _on_accuse(self, msg: Accuse) -> bool:
        d, a = msg.dealer, msg.seat
        if not 0 <= d < self._n or a not in self.config.holders(d):
            raise CheatDetected(Cheat.ACCUSATION_NO_ESCROW, seat=a,
                                fault=Fault.FALSE_ACCUSATION, dealer=d)
        dealer_box, accuser_box = self._commits[d], self._commits[a]
        if self._keys[d] is None or dealer_box is None or accuser_box is None:
            if (a, d) not in self._accused:  # said while the dealer's escrow is not in
                self._accused.add((a, d))
                self._events.append(Accused(a, d))
            return False
        self._verdict = escrow.settle(
            self._sealed[d][a], dealer=d, accuser=a, box_secret=msg.box_secret,
            accuser_box_key=accuser_box[1], dealer_box_key=dealer_box[1],
            commitments=self._escrow[d], ctx=self._ctx())
        if (a, d) not in self._accused:
            self._events.append(Accused(a, d))
        self._events.append(Verdict(self._verdict))
        return True

    def _on_shuffle(self, msg: Shuffle) -> bool:
        s = msg.seat
        if msg.epoch >= len(self._epochs) or not self._keys_ready:
            return False
        ep = self._epochs[msg.epoch]
        step = len(ep.steps)
        if step != s and step in self._announced_recoveries | self._recovered:
            # the step of a seat whose key was recovered: the proxy shuffles it (§8)
            if step not in self._recovered:
                return False  # this node has not rebuilt that key yet
            if s == self._proxy():
                self._check_step(msg, ep, layer=step)
                ep.steps.append(tuple(msg.points))
                return True
        if s > step:
            return False
        if s < step and any(r >= step for r in self._announced_recoveries | self._recovered):
            return False  # maybe the proxy's step for a recovered seat: not its turn yet
        if s < step or s in self._recovered:
            raise CheatDetected(Cheat.SHUFFLE_OUT_OF_TURN, seat=s, fault=Fault.UNEXPECTED)
        self._check_step(msg, ep, layer=s)
        ep.steps.append(tuple(msg.points))
        return True

    def _check_step(self, msg: Shuffle, ep: _Epoch, *, layer: int) -> None:
        """A received shuffle step for ``layer`` (the sender's own, or a recovered seat's
        step shuffled by the proxy): N valid distinct points (BAD_POINT,
        DUPLICATE_POINT), then the shuffle proof against ``Y_layer`` (§5.3.1:
        BAD_SHUFFLE), each naming the sender."""
        check_shuffle_output(msg.points, len(ep.cards), seat=msg.seat)
        key = self._keys[layer]
        assert key is not None
        prev = ep.steps[-1] if ep.steps else ep.base
        if not shuffle_proof.verify(self._shuffle_transcript(msg.epoch, layer), key, prev,
                                    msg.points, msg.proof):
            raise CheatDetected(Cheat.SHUFFLE_PROOF, seat=msg.seat, fault=Fault.BAD_SHUFFLE,
                                epoch=msg.epoch)

    def _on_strip(self, msg: Strip) -> bool:
        s = msg.seat
        if msg.op >= len(self._ops):
            return False
        layer = msg.layer
        if layer != s:
            # only the lowest live seat strips for a seat whose key was recovered
            if not 0 <= layer < self._n or self._secrets[layer] is None:
                if layer in self._announced_recoveries:
                    return False  # this node has not rebuilt that key yet
                raise CheatDetected(Cheat.STRIPS_OTHER_LAYER, seat=s,
                                    fault=Fault.BAD_STRIP)
            if layer not in self._recovered or s != self._proxy():
                raise CheatDetected(Cheat.STRIPS_OTHER_LAYER, seat=s,
                                    fault=Fault.BAD_STRIP)
        op_positions = set(self._ops[msg.op])
        pairs = []
        seen: set[Position] = set()
        for e, i, value in msg.items:
            p = (e, i)
            pos = self._positions.get(p)
            if pos is None or p not in op_positions or p in seen:
                raise CheatDetected(Cheat.STRIP_NOT_IN_OPERATION, seat=s,
                                    fault=Fault.BAD_STRIP, position=p, op=msg.op)
            seen.add(p)
            if not self._epochs_final(p):
                return False
            nxt = pos.next_layer()
            if nxt != layer:
                if layer in pos.order[len(pos.strips):]:
                    return False  # an earlier strip has not arrived yet
                raise CheatDetected(Cheat.STRIP_ORDER, seat=s,
                                    fault=Fault.BAD_STRIP, position=p)
            pairs.append((value, self._value(p)))
        if not pairs:
            raise CheatDetected(Cheat.EMPTY_STRIP, seat=s, fault=Fault.BAD_STRIP)
        key = self._keys[layer]
        assert key is not None
        t = self._strip_transcript(s, layer, msg.op, [(e, i) for e, i, _ in msg.items])
        if not proofs.verify_dleq_batch(t, key, pairs, msg.proof):
            raise CheatDetected(Cheat.STRIP_PROOF, seat=s,
                                fault=Fault.BAD_STRIP, op=msg.op)
        for e, i, value in msg.items:
            self._positions[(e, i)].strips.append((layer, value))
        return True

    def _on_play(self, msg: PlayCards) -> bool:
        s = msg.holder
        if s != msg.seat and (not 0 <= s < self._n or s not in self._recovered
                              or msg.seat != self._proxy()):
            if 0 <= s < self._n and s in self._announced_recoveries:
                return False  # this node has not rebuilt that key yet
            raise CheatDetected(Cheat.PLAYS_FOR, seat=msg.seat, fault=Fault.BAD_PLAY,
                                holder=s)
        if not msg.items or len({(e, i) for e, i, _ in msg.items}) != len(msg.items):
            raise CheatDetected(Cheat.EMPTY_PLAY, seat=msg.seat, fault=Fault.BAD_PLAY)
        pairs = []
        for e, i, k in msg.items:
            pos = self._positions.get((e, i))
            if pos is not None and pos.holder == s and not pos.done:
                return False  # this node has not seen the last strip yet
            if self._observer and (pos is None or (pos.holder != s and pos.played is None)):
                # an observer strips nothing, so the draw of this card may not be
                # declared (or given) here yet: the action before it is on its way
                return False
            if pos is None or pos.holder != s or pos.played is not None:
                raise CheatDetected(Cheat.NOT_HELD, seat=msg.seat,
                                    fault=Fault.BAD_PLAY, position=(e, i))
            if k not in self._epochs[e].cards:
                raise CheatDetected(Cheat.NOT_IN_EPOCH, seat=msg.seat,
                                    fault=Fault.BAD_PLAY, card=k, epoch=e)
            if not self._private((e, i)):
                if pos.k != k:
                    raise CheatDetected(Cheat.FACE_UP_MISMATCH, seat=msg.seat,
                                        fault=Fault.BAD_PLAY, shown=k, known=pos.k)
                continue
            pairs.append(self._play_pair(e, i, k))
        key = self._keys[s]
        assert key is not None
        t = self._play_transcript(s, msg.items)
        if (msg.proof != NO_PROOF if not pairs
                else not proofs.verify_dleq_batch(t, key, pairs, msg.proof)):
            raise CheatDetected(Cheat.PLAY_PROOF, seat=msg.seat,
                                fault=Fault.BAD_PLAY)
        self._apply_play(s, msg.items, by=msg.seat)
        return True

    def _on_dispute(self, msg: Dispute) -> bool:
        p = (msg.epoch, msg.index)
        pos = self._positions.get(p)
        if pos is None or pos.owner not in (None, msg.seat):
            raise CheatDetected(Cheat.DISPUTE_NOT_OWN, seat=msg.seat,
                                fault=Fault.UNEXPECTED, position=p)
        if not pos.done:
            return False
        self._disputes.append((msg.seat, p))
        self._events.append(Disputed(msg.seat, p))
        return True

    def _on_key_reveal(self, msg: KeyReveal) -> bool:
        s = msg.seat
        key = self._keys[s]
        if key is None:
            return False
        if (not group.is_canonical_scalar(msg.key) or not any(msg.key)
                or group.base_mul(msg.key) != key):
            raise CheatDetected(Cheat.KEY_MISMATCH, seat=s, fault=Fault.BAD_KEY)
        self._secrets[s] = msg.key
        return True

    def _on_share_reveal(self, msg: ShareReveal) -> bool:
        d = msg.dealer
        if not 0 <= d < self._n or msg.seat not in self.config.holders(d):
            raise CheatDetected(Cheat.SHARE_NO_ESCROW, seat=msg.seat,
                                fault=Fault.UNEXPECTED)
        if msg.seat in self._share_reveals.get(d, {}):
            raise CheatDetected(Cheat.SECOND_SHARE, seat=msg.seat,
                                fault=Fault.UNEXPECTED, dealer=d)
        if d not in self._escrow_dealers():
            return False
        self._announced_recoveries.add(d)
        if not group.is_canonical_scalar(msg.share) or not escrow.verify_share(
            msg.share, escrow.share_x(msg.seat), self._escrow[d]
        ):
            raise CheatDetected(Cheat.SHARE_WRONG, seat=msg.seat,
                                fault=Fault.BAD_SHARE, dealer=d)
        self._record_share(d, msg.seat, msg.share)
        return True

    # ------------------------------------------------------------------ driving

    def _run(self) -> Output:
        try:
            progress = True
            while progress and self._verdict is None:
                progress = False
                for msg in list(self._inbox):
                    if self._handle(msg):
                        self._inbox.remove(msg)
                        progress = True
                        if self._verdict is not None:
                            break
                else:
                    progress |= self._pump()
        except CheatDetected as e:
            self._failed = e
            self._out.clear()
            self._events.clear()
            raise
        out = Output(tuple(self._out), tuple(self._events))
        self._out.clear()
        self._events.clear()
        if self._verdict is not None:  # the accusation went out: nothing more from here
            self._failed = self._verdict
        return out

    def _pump(self) -> bool:
        """Take this seat's own next steps; True if anything changed."""
        n = self._n
        if not self._started:
            return False
        if not self._revealed_nonce and None not in self._commits:
            self._revealed_nonce = True
            self._nonces[self._me] = self._nonce
            self._send(Reveal, nonce=self._nonce)
            return True
        if self.round_id is None and None not in self._nonces:
            self.round_id = round_id_of(self.config.table, self.config.round_no,
                                        [x for x in self._nonces if x is not None])
            self._events.append(RoundIdReady(self.round_id))
            if not self._observer:
                if self.config.key_seed is not None:
                    self._key = round_key(self.config.key_seed, self.config.table,
                                          self.config.round_no, self.round_id, self._me)
                    self._key_inv = group.scalar_inv(self._key)
                self._announce_key()
            return True
        if not self._keys_ready:
            if self.round_id is not None and None not in self._keys:
                self._keys_ready = True
                self._events.append(KeysReady())
                self._new_epoch(tuple(range(self.config.deck_size)))
                return True
            return False
        changed = False
        proxy = bool(self._recovered) and self._proxy() == self._me
        for e, ep in enumerate(self._epochs):
            step = len(ep.steps)
            mine = step == self._me and self._me not in self._recovered
            if (mine or (proxy and step in self._recovered)) and all(
                len(x.steps) == n for x in self._epochs[:e]
            ):
                prev = ep.steps[-1] if ep.steps else ep.base
                if mine:
                    out, proof = self._shuffle_points(e, prev)
                else:  # the proxy shuffles for a seat whose key was recovered (§8)
                    secret = self._secrets[step]
                    assert secret is not None
                    out, proof = self._proven_step(e, step, secret, prev)
                self._send(Shuffle, epoch=e, points=out, proof=proof)
                ep.steps.append(out)
                changed = True
        changed |= self._announce_epochs()
        changed |= self._strip_ready()
        changed |= self._finish_positions()
        if not self._all_revealed and None not in self._secrets:
            self._all_revealed = True
            self._events.append(KeysRevealed())
            changed = True
        return changed

    def _announce_epochs(self) -> bool:
        changed = False
        for e, ep in enumerate(self._epochs):
            if len(ep.steps) == self._n and e not in self._announced:
                self._announced.add(e)
                self._events.append(EpochReady(e, len(ep.cards)))
                changed = True
        return changed

    def _proxy(self) -> int | None:
        """The lowest seat whose key was not recovered: it strips for recovered seats;
        None once every seat's key was recovered (everyone left: nobody acts for them)."""
        return min((s for s in range(self._n) if s not in self._recovered), default=None)

    def _strip_ready(self) -> bool:
        # a seat whose key was rebuilt (it was taken over) no longer strips: the proxy does
        layers = [] if self._me in self._recovered else [self._me]
        if self._recovered and self._proxy() == self._me:
            layers += sorted(self._recovered)
        changed = False
        for op, positions in enumerate(self._ops):
            if self._ops_done[op]:
                continue
            for layer in layers:
                changed |= self._strip_layer(op, positions, layer)
        return changed

    def _strip_layer(self, op: int, positions: tuple[Position, ...], layer: int) -> bool:
        mine = [
            p for p in positions
            if self._epochs_final(p) and self._positions[p].next_layer() == layer
        ]
        if not mine:
            return False
        secret = self._key if layer == self._me else self._secrets[layer]
        public = self._keys[layer]
        assert secret is not None and public is not None
        inverse = group.scalar_inv(secret)
        pairs = []
        items = []
        for p in mine:
            old = self._value(p)
            new = self._strip_value(p, old) if layer == self._me else group.mul(inverse, old)
            pairs.append((new, old))
            items.append((p[0], p[1], new))
        t = self._strip_transcript(self._me, layer, op, mine)
        proof = proofs.prove_dleq_batch(t, secret, public, pairs, self._rand)
        self._send(Strip, op=op, layer=layer, items=tuple(items), proof=proof)
        for e, i, new in items:
            self._positions[(e, i)].strips.append((layer, new))
        return True

    def _finish_positions(self) -> bool:
        changed = False
        for op, positions in enumerate(self._ops):
            if self._ops_done[op]:
                continue
            all_done = True
            for p in positions:
                pos = self._positions[p]
                if pos.done:
                    continue
                if not self._epochs_final(p) or pos.next_layer() is not None:
                    all_done = False
                    continue
                pos.done = True
                changed = True
                self._finish(op, p, pos)
            if all_done:
                self._ops_done[op] = True
                self._events.append(OpDone(op))
                changed = True
        return changed

    def _finish(self, op: int, p: Position, pos: _Pos) -> None:
        ep = self._epochs[p[0]]
        value = self._value(p)
        if pos.owner is None:
            k = ep.lookup.get(value)
            if k is None:
                self._dispute(p)
            else:
                pos.k = k
                self._events.append(CardOpened(op, p, card_face(k, self.config.deck_size), k))
        elif pos.owner == self._me:
            k = ep.lookup.get(group.mul(self._key_inv, value))
            if k is None:
                self._dispute(p)
            else:
                pos.k = k
                self._events.append(CardReceived(op, p, card_face(k, self.config.deck_size), k))
        else:
            self._events.append(CardDealt(op, p, pos.owner))

    def _dispute(self, p: Position) -> None:
        self._send(Dispute, epoch=p[0], index=p[1])
        self._disputes.append((self._me, p))
        self._events.append(Disputed(self._me, p))

    # ------------------------------------------------------------------ own steps
    # (small methods so a test can subclass Session to play a cheating seat)

    def _shuffle_points(self, epoch: int, prev: tuple[Point, ...]
                        ) -> tuple[tuple[Point, ...], shuffle_proof.ShuffleProof]:
        """This seat's shuffle step of ``epoch``: ``e_j·prev`` under a fresh permutation,
        and its proof (§5.3.1).

        The multiplications check every input point; a bad one names the previous seat.
        """
        try:
            return self._proven_step(epoch, self._me, self._key, prev)
        except group.GroupError:
            raise CheatDetected(Cheat.POINT_OUTSIDE_GROUP, seat=self._me - 1,
                                fault=Fault.BAD_POINT) from None

    def _proven_step(self, epoch: int, layer: int, key: Scalar, prev: tuple[Point, ...]
                     ) -> tuple[tuple[Point, ...], shuffle_proof.ShuffleProof]:
        perm, out = shuffle_step(key, prev, self._rand)
        proof = shuffle_proof.prove(self._shuffle_transcript(epoch, layer), key, perm, prev,
                                    out, self._rand)
        return out, proof

    def _strip_value(self, position: Position, old: Point) -> Point:
        """This seat's layer removed from ``old``: ``e_j^-1 · old``."""
        return group.mul(self._key_inv, old)

    # ------------------------------------------------------------------ helpers

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
        pos = self._positions[p]
        if pos.strips:
            return pos.strips[-1][1]
        final = self._epochs[p[0]].final(self._n)
        assert final is not None
        return final[p[1]]

    def _epochs_final(self, p: Position) -> bool:
        return p[0] < len(self._epochs) and self._epochs[p[0]].final(self._n) is not None

    def _new_epoch(self, cards: tuple[int, ...]) -> None:
        assert self.round_id is not None
        e = len(self._epochs)
        base = card_points(self.config.table, self.config.round_no, self.round_id, e, cards)
        self._epochs.append(_Epoch(cards, base))

    def _announce_key(self) -> None:
        me = self._me
        key = group.base_mul(self._key)
        self._keys[me] = key
        proof = proofs.prove_schnorr(self._key_transcript(me), self._key, key, self._rand)
        commitments: tuple[Point, ...] = ()
        shares: tuple[tuple[int, bytes], ...] = ()
        holders = self.config.holders(me)
        if holders:
            box_keys = {s: c[1] for s, c in enumerate(self._commits)
                        if c is not None and s in holders}
            try:
                deal = escrow.deal(self._key, dealer=me, players=self._n,
                                   box_secret=self._box_secret, box_keys=box_keys,
                                   ctx=self._ctx(), rand=self._rand, holders=holders)
            except ValueError:
                bad = next(s for s, k in box_keys.items() if not _usable_box_key(k))
                raise CheatDetected(Cheat.BOX_KEY, seat=bad,
                                    fault=Fault.MALFORMED) from None
            commitments, shares = deal.commitments, deal.shares
        self._escrow[me] = commitments
        self._sealed[me] = dict(shares)
        self._send(KeyAnnounce, key=key, proof=proof, commitments=commitments, shares=shares)

    def _escrow_dealers(self) -> set[int]:
        return {s for s in range(self._n) if self._escrow[s]}

    def _record_share(self, dealer: int, holder: int, share: Scalar) -> None:
        got = self._share_reveals.setdefault(dealer, {})
        got[holder] = share
        if len(got) == len(self.config.holders(dealer)) and dealer not in self._recovered:
            key = self._keys[dealer]
            assert key is not None
            self._secrets[dealer] = escrow.recover(dealer, got, self._escrow[dealer], key)
            self._recovered.add(dealer)
            self._events.append(KeyRecovered(dealer))

    def _apply_play(self, seat: int, items: Sequence[tuple[int, int, int]], *,
                    by: int) -> None:
        shown = []
        for e, i, k in items:
            pos = self._positions[(e, i)]
            pos.played = k
            pos.k = k
            shown.append(((e, i), card_face(k, self.config.deck_size), k))
        self._events.append(CardsPlayed(seat, tuple(shown), by))


def _usable_box_key(key: bytes) -> bool:
    """False for an X25519 public key whose shared secret would be all zero."""
    try:
        X25519PrivateKey.from_private_bytes(bytes(31) + b"\x01").exchange(
            X25519PublicKey.from_public_bytes(key)
        )
    except ValueError:
        return False
    return True
