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

from collections.abc import Sequence

from p2p8s.crypto import group, proofs
from p2p8s.crypto.audit import (
    AuditReport,
    EpochRecord,
    PositionRecord,
    RoundRecord,
    audit_round,
)
from p2p8s.crypto.config import SessionConfig
from p2p8s.crypto.deck import Position
from p2p8s.crypto.driver import Driver
from p2p8s.crypto.errors import Misuse, ProtocolMisuse
from p2p8s.crypto.events import KeyRecovered, Output
from p2p8s.crypto.group import Point, Scalar
from p2p8s.crypto.messages import (
    Act,
    Commit,
    KeyReveal,
    PlayCards,
    ShareReveal,
)
from p2p8s.crypto.state import NO_PROOF, Pos

__all__ = ["Session", "SessionConfig"]


class Session(Driver):
    """The mental-poker state machine of one seat for one round.

    ``rand(n) -> bytes`` supplies all randomness (``os.urandom`` in production, a seeded
    stream in tests). Raises :class:`ProtocolMisuse` for local calls at the wrong time
    and :class:`CheatDetected` (naming the seat) for bad peer data.
    """


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

    def awaits_shuffle(self, seat: int) -> bool:
        """True while ``seat`` has a shuffle step to make (the keys are not all in yet, or
        an epoch opened so far lacks its step): something only its key can do, so a
        seat that is away then must be taken over, not served (§8.1)."""
        return not self._keys_ready or any(len(ep.steps) <= seat for ep in self._epochs)

    def awaited(self) -> tuple[int, ...]:
        """The seats (layers) whose next message this session waits for now, ascending:
        a Commit, Reveal or KeyAnnounce not in yet; the next shuffle step of the first
        epoch not shuffled (a recovered seat's is the proxy's to make); the next strip
        of each position of an operation not done (its next layer); the escrow share of
        each holder missing for a recovery begun. This seat's own steps are taken at
        once, so it is awaited only as a recovered layer. Empty when nothing is awaited
        (the table's actions, and the round end's keys, are the table layer's wait)."""
        n = self._n
        stage = ([s for s in range(n) if self._commits[s] is None]
                 or [s for s in range(n) if self._nonces[s] is None]
                 or [s for s in range(n) if self._keys[s] is None])
        got: set[int] = set(stage)
        if not stage:
            first = next((ep for ep in self._epochs if len(ep.steps) < n), None)
            if first is not None:
                got.add(len(first.steps))
            for op, positions in enumerate(self._ops):
                if not self._ops_done[op]:
                    got.update(layer for p in positions if self._epochs_final(p)
                               and (layer := self._positions[p].next_layer()) is not None)
        for dealer in self._announced_recoveries - self._recovered:
            shared = self._share_reveals.get(dealer, {})
            got.update(h for h in self.config.holders(dealer) if h not in shared)
        return tuple(sorted(got))

    def waiting(self, seat: int) -> bool:
        """True while a message of ``seat`` taken in waits for what it follows."""
        return any(m.seat == seat for m in self._inbox)

    def serving(self, seat: int) -> bool:
        """True while this seat serves partial strips of ``seat``'s layer (:meth:`serve`)."""
        return seat in self._serving

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
            self._positions[position] = Pos(op, owner, order)
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

    def serve(self, seat: int) -> Output:
        """``seat``'s node is away but its seat is not on turn: from now on publish this
        seat's partial strips of ``seat``'s layer (PartialStrip) wherever that layer is
        next, so every draw goes on without rebuilding its key (§8.1: its hand stays
        hidden). Once all holders' partials of a position are in, every node strips it
        (event StripServed). Raises :class:`ProtocolMisuse` unless this seat holds a
        share of ``seat``'s key."""
        self._guard(player=True)
        self._check_serve(seat)
        self._serving.add(seat)
        return self._run()

    def stop_serving(self, seat: int) -> Output:
        """``seat``'s node is back: publish no more partial strips of its layer (those
        already out stay valid; the seat strips the rest itself)."""
        self._guard(player=True)
        self._serving.discard(seat)
        return self._run()

    def learn_key(self, seat: int, key: Scalar) -> Output:
        """``seat``'s key ``e_seat``, recomputed by its restarted node (which lost its
        state, not its per-table secret): taken exactly as if the escrow had rebuilt it
        — stored, the seat marked recovered, event KeyRecovered — so the lowest seat
        whose key was not recovered acts for it from now on. A key revealed before the
        round's end (a seat adopted at the round start, whose session still runs on its
        adopter's node) may be learnt too: its restarted node hands it over so, and the
        proxy strips its layer from then on. The caller checks the key first; raises
        ProtocolMisuse for this node's own seat, a seat whose key was recovered, learnt
        or not announced yet, or is known once every key is, or a key with
        ``key·G != Y_seat``."""
        self._guard()
        if not 0 <= seat < self._n or seat == self._me:
            raise ProtocolMisuse(Misuse.CANNOT_LEARN, seat=seat)
        public = self._keys[seat]
        if (public is None or seat in self._recovered
                or (self._secrets[seat] is not None and self._all_revealed)):
            raise ProtocolMisuse(Misuse.KEY_KNOWN, seat=seat)
        if (not group.is_canonical_scalar(key) or not any(key)
                or group.base_mul(key) != public):
            raise ProtocolMisuse(Misuse.KEY_MISMATCH, seat=seat)
        self._secrets[seat] = key
        self._recovered.add(seat)
        self._announced_recoveries.add(seat)
        self._events.append(KeyRecovered(seat))
        return self._run()

    def resume(self, seat: int, key_seed: bytes) -> Output:
        """A restarted node takes ``seat`` back: this observer session, which took in
        the round so far (the seat's own messages among them), becomes the seat's
        session with its round secrets derived from ``key_seed`` (32 bytes, §5.2) and
        goes on at the next slot of the seat's chain — its Commit first if it never
        sent one. Raises ProtocolMisuse (nothing changed): KEY_MISMATCH when the
        round's Commit, Reveal or ``Y`` of the seat do not derive from ``key_seed``,
        OWN_WAITING while a message of the seat waits in the inbox, KEY_KNOWN once
        its key is known or its recovery begun, CANNOT_LEARN unless this is an
        observer session (protocol/table.md "Coming back")."""
        self._become(seat, key_seed)
        return self.start_round() if not self._started else self._run()

    def _recovered_hand(self, seat: int) -> dict[Position, int]:
        hand = {}
        for p, pos in self._positions.items():
            if pos.holder != seat or not pos.done or pos.played is not None:
                continue
            k = self.known_card(p)
            if k is not None:
                hand[p] = k
        return hand

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
        the seat at fault, or ProtocolMisuse if keys are still missing. Every strip in
        the record passed its DLEQ proof on receipt, was combined from proven partial
        strips, or is this session's own, so the strips are not multiplied again
        (``strips_proven``; the offline audit of a log, :mod:`p2p8s.table.logverify`,
        replays it through sessions, which check each proof as it comes in).
        """
        if any(s is None for s in self._secrets):
            raise ProtocolMisuse(Misuse.AUDIT_KEYS)
        return audit_round(self.record(), [s for s in self._secrets if s is not None],
                           strips_proven=True)
