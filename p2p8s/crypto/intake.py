"""Checking received messages (:class:`Intake`): the header, sequence numbers and
echoes of every message (§3.3), then each kind but the escrow's (those are in
:mod:`~p2p8s.crypto.escrow_steps`): Commit, Reveal, Shuffle, Strip, PlayCards, Dispute,
KeyReveal, Act. Each handler returns False for "not yet" (the message waits in the
inbox) and raises :class:`~p2p8s.crypto.errors.CheatDetected` naming the seat at fault.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2p8s.crypto import group, proofs, shuffle_proof
from p2p8s.crypto.deck import Position, check_shuffle_output
from p2p8s.crypto.derive import chain_next
from p2p8s.crypto.errors import Cheat, CheatDetected, Fault
from p2p8s.crypto.events import Announced, Disputed
from p2p8s.crypto.messages import (
    Act,
    Commit,
    Dispute,
    KeyReveal,
    Message,
    PlayCards,
    Reveal,
    Shuffle,
    Strip,
)
from p2p8s.crypto.state import NO_PROOF, Epoch, SessionState


class Intake(SessionState):
    """The receiving half of a session (see the module docstring)."""

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

    def _check_step(self, msg: Shuffle, ep: Epoch, *, layer: int) -> None:
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
        served: set[Position] = set()  # stripped here already by the holders (§8.1)
        for e, i, value in msg.items:
            p = (e, i)
            pos = self._positions.get(p)
            if pos is None or p not in op_positions or p in seen:
                raise CheatDetected(Cheat.STRIP_NOT_IN_OPERATION, seat=s,
                                    fault=Fault.BAD_STRIP, position=p, op=msg.op)
            seen.add(p)
            if not self._epochs_final(p):
                return False
            k = pos.layer_index(layer)
            if (layer, p) in self._served and k is not None and k < len(pos.strips):
                # the same unique value, made by the seat itself: checked, kept once
                pairs.append((value, self._value_at(p, k)))
                served.add(p)
                continue
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
            if (e, i) not in served:
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
