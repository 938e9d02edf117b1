"""This seat's own steps (:class:`OwnSteps`): the nonce reveal, the key announcement
with its escrow deal, shuffle steps (its own and, as proxy, a recovered seat's), strips,
and finishing positions (cards received, opened or dealt, disputes). Small methods so a
test can subclass :class:`~p2p8s.crypto.session.Session` to play a cheating seat.
"""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey

from p2p8s.crypto import escrow, group, proofs, shuffle_proof, threshold
from p2p8s.crypto.deck import Position, card_face, shuffle_step
from p2p8s.crypto.derive import round_id_of, round_key
from p2p8s.crypto.errors import Cheat, CheatDetected, Fault
from p2p8s.crypto.events import (
    CardDealt,
    CardOpened,
    CardReceived,
    Disputed,
    EpochReady,
    KeysReady,
    KeysRevealed,
    OpDone,
    RoundIdReady,
)
from p2p8s.crypto.group import Point, Scalar
from p2p8s.crypto.messages import Dispute, KeyAnnounce, Reveal, Shuffle, Strip
from p2p8s.crypto.state import Pos, SessionState


class OwnSteps(SessionState):
    """The sending half of a session (see the module docstring)."""

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

    def _finish(self, op: int, p: Position, pos: Pos) -> None:
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

    def _announce_key(self) -> None:
        me = self._me
        key = group.base_mul(self._key)
        self._keys[me] = key
        commitments: tuple[Point, ...] = ()
        shares: tuple[tuple[int, bytes], ...] = ()
        holders = self.config.holders(me)
        if not holders:
            proof = proofs.prove_schnorr(self._key_transcript(me), self._key, key, self._rand)
        else:  # the escrow shares e_j^-1, the proof links A_0 to Y_j (§8.1)
            box_keys = {s: c[1] for s, c in enumerate(self._commits)
                        if c is not None and s in holders}
            try:
                deal = escrow.deal(self._key_inv, dealer=me, players=self._n,
                                   box_secret=self._box_secret, box_keys=box_keys,
                                   ctx=self._ctx(), rand=self._rand, holders=holders)
            except ValueError:
                bad = next(s for s, k in box_keys.items() if not _usable_box_key(k))
                raise CheatDetected(Cheat.BOX_KEY, seat=bad,
                                    fault=Fault.MALFORMED) from None
            commitments, shares = deal.commitments, deal.shares
            proof = threshold.prove_inverse_link(self._key_transcript(me), self._key, key,
                                                 commitments[0], self._rand)
        self._escrow[me] = commitments
        self._sealed[me] = dict(shares)
        self._send(KeyAnnounce, key=key, proof=proof, commitments=commitments, shares=shares)


def _usable_box_key(key: bytes) -> bool:
    """False for an X25519 public key whose shared secret would be all zero."""
    try:
        X25519PrivateKey.from_private_bytes(bytes(31) + b"\x01").exchange(
            X25519PublicKey.from_public_bytes(key)
        )
    except ValueError:
        return False
    return True
