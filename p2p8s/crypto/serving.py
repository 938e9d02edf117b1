"""Serving a lost seat's strips inside a session (§8.1): while seat ``j`` is away but
not yet taken over, its escrow holders each publish partial strips of ``j``'s layer
(:class:`~p2p8s.crypto.messages.PartialStrip`) for every position where that layer is
next; every node checks each against the holder's share image and, once all ``t`` are
in, combines them into the strip ``j`` would have made (:mod:`~p2p8s.crypto.threshold`).
``j``'s key is never rebuilt, so its hand stays hidden; ``j``'s own session, back from a
drop, may still send the same strip (the value is unique: it is checked and kept once).
"""

from __future__ import annotations

from p2p8s.crypto import escrow, threshold
from p2p8s.crypto.deck import Position
from p2p8s.crypto.errors import Cheat, CheatDetected, Fault, Misuse, ProtocolMisuse
from p2p8s.crypto.events import StripServed
from p2p8s.crypto.group import Point
from p2p8s.crypto.messages import PartialStrip
from p2p8s.crypto.state import SessionState


class Serving(SessionState):
    """The threshold-strip half of a session (see the module docstring)."""

    def _check_serve(self, seat: int) -> None:
        if (not 0 <= seat < self._n or seat == self._me or self._observer
                or self._me not in self.config.holders(seat) or seat not in self._my_shares):
            raise ProtocolMisuse(Misuse.NO_SHARE, seat=seat)

    def awaited_partials(self, seat: int) -> tuple[int, ...]:
        """The holders of ``seat``'s escrow whose partial strip is still missing for a
        position whose next layer is ``seat``'s and for which some holder has published
        one (serving begun): the table names them when its timer runs out. Ascending."""
        holders = self.config.holders(seat)
        missing: set[int] = set()
        for (layer, p), got in self._partials.items():
            if layer != seat or self._positions[p].next_layer() != seat:
                continue
            missing.update(h for h in holders if h not in got)
        return tuple(sorted(missing))

    def _serve_ready(self) -> bool:
        """Send this seat's partial strips for every layer it serves, where due."""
        changed = False
        for layer in sorted(self._serving):
            if layer in self._recovered:
                continue
            for op, positions in enumerate(self._ops):
                if self._ops_done[op]:
                    continue
                due = [p for p in positions
                       if self._epochs_final(p) and self._positions[p].next_layer() == layer
                       and self._me not in self._partials.get((layer, p), {})]
                if due:
                    self._send_partials(op, layer, due)
                    changed = True
        return changed

    def _send_partials(self, op: int, layer: int, due: list[Position]) -> None:
        share = self._my_shares[layer]
        image = self._share_image(layer, self._me)
        t = threshold.partial_transcript(self._ctx(), holder=self._me, dealer=layer, op=op,
                                         positions=due)
        values = [self._value(p) for p in due]
        partials, proof = threshold.prove_partials(t, share, image, values, self._rand)
        items = tuple((e, i, v) for (e, i), v in zip(due, partials, strict=True))
        self._send(PartialStrip, dealer=layer, op=op, items=items, proof=proof)
        for p, v in zip(due, partials, strict=True):
            self._add_partial(layer, p, self._me, v)

    def _on_partial(self, msg: PartialStrip) -> bool:
        s, d = msg.seat, msg.dealer
        if not 0 <= d < self._n or s not in self.config.holders(d):
            raise CheatDetected(Cheat.PARTIAL_NO_ESCROW, seat=s, fault=Fault.BAD_STRIP,
                                dealer=d)
        if msg.op >= len(self._ops):
            return False
        op_positions = set(self._ops[msg.op])
        values = []
        seen: set[Position] = set()
        for e, i, _ in msg.items:
            p = (e, i)
            pos = self._positions.get(p)
            k = None if pos is None else pos.layer_index(d)
            if pos is None or p not in op_positions or p in seen or k is None:
                raise CheatDetected(Cheat.PARTIAL_NOT_DUE, seat=s, fault=Fault.BAD_STRIP,
                                    position=p, dealer=d)
            if s in self._partials.get((d, p), {}):
                raise CheatDetected(Cheat.SECOND_PARTIAL, seat=s, fault=Fault.UNEXPECTED,
                                    position=p, dealer=d)
            seen.add(p)
            if not self._epochs_final(p) or len(pos.strips) < k:
                return False  # an earlier strip has not arrived yet
            values.append(self._value_at(p, k))
        if not values:
            raise CheatDetected(Cheat.EMPTY_STRIP, seat=s, fault=Fault.BAD_STRIP)
        image = self._share_image(d, s)
        t = threshold.partial_transcript(self._ctx(), holder=s, dealer=d, op=msg.op,
                                         positions=[(e, i) for e, i, _ in msg.items])
        if not threshold.verify_partials(t, image, values, [v for _, _, v in msg.items],
                                         msg.proof):
            raise CheatDetected(Cheat.PARTIAL_PROOF, seat=s, fault=Fault.BAD_STRIP,
                                dealer=d, op=msg.op)
        for e, i, v in msg.items:
            self._add_partial(d, (e, i), s, v)
        return True

    def _share_image(self, dealer: int, holder: int) -> Point:
        """``f(x_holder)·G`` of ``dealer``'s escrow (computed once)."""
        image = self._images.get((dealer, holder))
        if image is None:
            image = escrow.share_point(escrow.share_x(holder), self._escrow[dealer])
            self._images[(dealer, holder)] = image
        return image

    def _add_partial(self, layer: int, p: Position, holder: int, value: Point) -> None:
        """Keep a checked partial; once all ``t`` are in and the layer is next, strip."""
        got = self._partials.setdefault((layer, p), {})
        got[holder] = value
        pos = self._positions[p]
        t = len(self.config.holders(layer))
        if len(got) < t or pos.next_layer() != layer:
            return  # not all in, or the layer was stripped already (by the seat itself)
        pos.strips.append((layer, threshold.combine(got, t)))
        self._served.add((layer, p))
        self._events.append(StripServed(pos.op, p, layer))
