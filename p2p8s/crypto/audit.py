"""The round-end audit (R-AUDIT): with every key revealed, re-check the whole transcript.

:func:`audit_round` checks, in this order, and names the first seat at fault:

1. keys: ``e_j·G == Y_j`` (BAD_KEY);
2. each epoch's final deck, decoded once with the product of the keys (every step was
   proven on receipt): a permutation of the epoch's card points, which gives the deck
   order; if not, each step as a multiset ``{e_j·x : x in input} == output`` names the
   first shuffler at fault (BAD_SHUFFLE);
3. every strip: ``e_layer · new == old`` and in the fixed order (BAD_STRIP);
4. every played card equals the card at its position (BAD_PLAY);
5. every dispute: a position that decodes to a card was disputed falsely (FALSE_DISPUTE).

:func:`check_claims` then replays the round's game actions through the rules engine
with every card known, so a hidden claim that was false (a draw with
``draw_when_playable`` off while holding a playable card) raises IllegalAction in the
engine and is reported as ILLEGAL_CLAIM naming the seat.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from p2p8s.cards import Card
from p2p8s.crypto import group
from p2p8s.crypto.deck import Position, card_face, card_points
from p2p8s.crypto.errors import Cheat, CheatDetected, Fault
from p2p8s.crypto.group import GroupError, Point, Scalar
from p2p8s.engine import Action, OrderedDeck, Round
from p2p8s.errors import IllegalAction
from p2p8s.rules import Ruleset


@dataclass(frozen=True, slots=True, kw_only=True)
class EpochRecord:
    """One encoding epoch: its card indices in canonical order and each seat's step."""

    epoch: int
    cards: tuple[int, ...]
    steps: tuple[tuple[Point, ...], ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class PositionRecord:
    """A distributed position: owner (``None`` = opened for all), holder (the seat whose
    hand it went to; a face-up card can be given to a seat), the strips in order as
    ``(layer seat, value after the strip)``, and the card index shown when played."""

    position: Position
    owner: int | None
    holder: int | None
    order: tuple[int, ...]
    strips: tuple[tuple[int, Point], ...]
    played: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundRecord:
    """Everything the audit needs, as one seat saw it."""

    table: bytes
    round_no: int
    round_id: bytes
    players: int
    keys: tuple[Point, ...]
    epochs: tuple[EpochRecord, ...]
    positions: tuple[PositionRecord, ...]
    disputes: tuple[tuple[int, Position], ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditReport:
    """A passed audit: ``orders[e][i]`` is the card index at position ``(e, i)``
    (epoch 0 is the whole deck: its length is the deck size that names the faces,
    :func:`~p2p8s.crypto.deck.card_face`); ``holdings[s]`` the positions dealt or drawn
    to seat ``s``, in distribution order."""

    orders: tuple[tuple[int, ...], ...]
    holdings: tuple[tuple[Position, ...], ...]

    def faces(self, epoch: int) -> list[Card]:
        """The cards of ``epoch``'s deck, position 0 (the top) first."""
        size = len(self.orders[0])
        return [card_face(k, size) for k in self.orders[epoch]]

    def card_at(self, position: Position) -> Card:
        """The face of the card at ``position``."""
        return card_face(self.orders[position[0]][position[1]], len(self.orders[0]))


def _check_keys(record: RoundRecord, secrets: Sequence[Scalar]) -> None:
    for seat, (e, y) in enumerate(zip(secrets, record.keys, strict=True)):
        ok = group.is_canonical_scalar(e) and any(e) and group.base_mul(e) == y
        if not ok:
            raise CheatDetected(Cheat.KEY_MISMATCH, seat=seat, fault=Fault.BAD_KEY)


def _epoch_order(record: RoundRecord, ep: EpochRecord, secrets: Sequence[Scalar]) -> list[int]:
    """The card indices of ``ep``'s final deck, position 0 first: the last step decoded
    once with the product of the keys of the seats that stepped (each step was proven
    on receipt, §5.3.1); only if that fails are the steps checked one by one, to name
    the first shuffler at fault (BAD_SHUFFLE)."""
    base = card_points(record.table, record.round_no, record.round_id, ep.epoch, ep.cards)
    if ep.steps and all(len(out) == len(base) for out in ep.steps):
        product = 1
        for seat in range(len(ep.steps)):
            product = product * group.scalar_to_int(secrets[seat]) % group.ORDER
        lookup = {p: i for i, p in enumerate(base)}
        try:
            inverse = group.scalar_inv(group.scalar_from_int(product))
            slots = [lookup.get(group.mul(inverse, p)) for p in ep.steps[-1]]
        except GroupError:
            slots = [None]
        if None not in slots and len(set(slots)) == len(slots):
            return [ep.cards[i] for i in slots if i is not None]
    return _name_shuffler(ep, base, secrets)


def _name_shuffler(ep: EpochRecord, base: Sequence[Point], secrets: Sequence[Scalar]
                   ) -> list[int]:
    # origin[i] = canonical slot whose card sits at slot i of the current step
    origin = list(range(len(base)))
    current: Sequence[Point] = base
    for seat, out in enumerate(ep.steps):
        try:
            image = {group.mul(secrets[seat], p): i for i, p in enumerate(current)}
        except GroupError:
            image = {}
        slots = [image.get(p) for p in out]
        if len(out) != len(current) or None in slots or len(set(slots)) != len(slots):
            raise CheatDetected(Cheat.SHUFFLE_STEP, seat=seat, fault=Fault.BAD_SHUFFLE,
                                epoch=ep.epoch)
        origin = [origin[s] for s in slots if s is not None]
        current = out
    return [ep.cards[o] for o in origin]


def audit_round(record: RoundRecord, secrets: Sequence[Scalar], *,
                strips_proven: bool = False) -> AuditReport:
    """Audit a finished round given every seat's key ``secrets[j]``.

    Returns the :class:`AuditReport`; raises :class:`CheatDetected` naming the first seat
    at fault (see the module docstring for the order of the checks). With
    ``strips_proven`` (a record whose every strip passed its DLEQ proof against
    ``Y_layer`` on receipt — a session's own) the strips' order is checked but not
    ``e_layer · new == old`` again: the proof and the key check (1.) imply it, and it
    is one multiplication per strip (a 7-seat deal of 5 each and a starter: 217 of the
    audit's 321 variable-base multiplications).
    """
    n = record.players
    if len(secrets) != n:
        raise ValueError("the audit needs every seat's key")
    _check_keys(record, secrets)
    orders = [_epoch_order(record, ep, secrets) for ep in record.epochs]
    size = len(orders[0]) if orders else 0  # epoch 0 is the whole deck
    finals = {ep.epoch: ep.steps[-1] for ep in record.epochs}
    holdings: list[list[Position]] = [[] for _ in range(n)]
    disputed = {pos: seat for seat, pos in record.disputes}
    for pr in record.positions:
        e, i = pr.position
        prev = finals[e][i]
        for step, (layer, value) in enumerate(pr.strips):
            if step >= len(pr.order) or pr.order[step] != layer:
                raise CheatDetected(Cheat.STRIP_ORDER, seat=layer, fault=Fault.BAD_STRIP,
                                    position=pr.position)
            try:
                ok = strips_proven or group.mul(secrets[layer], value) == prev
            except GroupError:
                ok = False
            if not ok:
                raise CheatDetected(Cheat.STRIP_WRONG, seat=layer, fault=Fault.BAD_STRIP,
                                    position=pr.position)
            prev = value
        k = orders[e][i]
        if pr.played is not None and pr.played != k:
            raise CheatDetected(Cheat.PLAYED_OTHER, seat=pr.holder, fault=Fault.BAD_PLAY,
                                card=card_face(pr.played, size), position=pr.position,
                                held=card_face(k, size))
        if pr.holder is not None:
            holdings[pr.holder].append(pr.position)
    for pos, seat in disputed.items():
        raise CheatDetected(Cheat.FALSE_DISPUTE, seat=seat, fault=Fault.FALSE_DISPUTE,
                            position=pos, held=card_face(orders[pos[0]][pos[1]], size))
    return AuditReport(
        orders=tuple(tuple(o) for o in orders), holdings=tuple(tuple(h) for h in holdings)
    )


def reshuffle_orders(report: AuditReport) -> list[list[Card]]:
    """The stock order (top first) of every reshuffle epoch 1, 2, …, for replaying."""
    return [report.faces(e) for e in range(1, len(report.orders))]


def cards_match(a: Sequence[Card], b: Sequence[Card]) -> bool:
    """True if ``a`` and ``b`` hold the same cards (as multisets)."""
    return Counter(a) == Counter(b)


def check_claims(
    report: AuditReport,
    rules: Ruleset,
    *,
    players: int,
    dealer: int,
    actions: Sequence[tuple[int, Action]],
    hand_size: int | Sequence[int] | None = None,
    wild: Sequence[int] | None = None,
    before: Callable[[int, Round], None] | None = None,
) -> Round:
    """Replay the round's game ``actions`` (``(seat, action)`` in log order) through the
    rules engine with every card known from the audit (R-AUDIT hidden claims).

    The stock is epoch 0 in position order (top first); the k-th reshuffle takes the
    order of epoch k. ``hand_size`` and ``wild`` are passed to
    :meth:`~p2p8s.engine.Round.deal` (countdown: each player's number). Returns the
    replayed :class:`~p2p8s.engine.Round`. ``before(index, round)``, when given, sees the
    round just before each action is applied (e.g. to replay a computer seat's choice;
    what it raises goes through). Raises
    :class:`CheatDetected` (ILLEGAL_CLAIM) naming the seat whose action the engine
    refuses — e.g. a Draw while holding a playable card with ``draw_when_playable`` off —
    or (UNEXPECTED) an action logged for a seat that was not on turn.
    """
    later = iter(reshuffle_orders(report))

    def reshuffler(discards: Sequence[Card]) -> Sequence[Card]:
        order = next(later, None)
        if order is None or not cards_match(order, discards):
            raise CheatDetected(Cheat.RESHUFFLE_MISMATCH, seat=None,
                                fault=Fault.BAD_SHUFFLE)
        return order

    deck = OrderedDeck(report.faces(0), reshuffler=reshuffler)
    rnd = Round.deal(rules, players=players, dealer=dealer, deck=deck, hand_size=hand_size,
                     wild=wild)
    for index, (seat, action) in enumerate(actions):
        if before is not None and rnd.turn == seat:
            before(index, rnd)
        if rnd.turn != seat:
            raise CheatDetected(Cheat.OUT_OF_TURN, seat=seat, fault=Fault.UNEXPECTED,
                                action=action)
        try:
            rnd.apply(action)
        except IllegalAction as e:
            raise CheatDetected(Cheat.NOT_ALLOWED, seat=seat, fault=Fault.ILLEGAL_CLAIM,
                                action=action, cause=e, rule=e.rule) from None
    return rnd
