"""Cards as group points, and one seat's shuffle step (SRA mental poker over a
prime-order group: Shamir–Rivest–Adleman 1979/1981, with exponentiation replaced by
scalar multiplication).

A *position* is ``(epoch, index)``: slot ``index`` of the shuffled deck of encoding
``epoch`` (epoch 0 is the deal; each reshuffle of the discards opens a new epoch). A
*card index* ``k`` names a physical card of a deck of :data:`DECK_SIZES` cards:
``0..51`` for one deck, ``0..103`` for two, then the jokers of R-ZW-DECK (``52, 53``
of 54 cards, ``104..107`` of 108); its face is :func:`p2p8s.cards.deck_card`
``(k, size)`` (French positions ``Card(k % 52)``, then ``X1``, ``X2``, …), the order
of :func:`p2p8s.cards.standard_deck`.

Card ``k`` of epoch ``e`` is encoded as the point::

    P_k = hash_to_point(b"p2p8s/v1/card",
                        u16 len(table) ‖ table ‖ u64 round ‖ round_id ‖ u64 e ‖ u64 k)

so the two copies of a card in a 104-card deck have distinct points, and points of
different rounds or epochs are unrelated.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2p8s.cards import Card, deck_card
from p2p8s.crypto import group
from p2p8s.crypto.errors import Cheat, CheatDetected, Fault
from p2p8s.crypto.group import Point, Rand, Scalar
from p2p8s.crypto.rand import permutation

CARD_TAG = b"p2p8s/v1/card"

#: ``(epoch, index)`` — a slot of a shuffled deck.
Position = tuple[int, int]


#: The deck sizes a round may use: 52 or 104 French cards (R-DECK), each with the
#: jokers of R-ZW-DECK (2 per deck).
DECK_SIZES = (52, 54, 104, 108)


def card_face(k: int, size: int) -> Card:
    """The face of card index ``k`` in a deck of ``size`` cards (:data:`DECK_SIZES`):
    :func:`p2p8s.cards.deck_card`. Raises MalformedInput for a bad size or index."""
    return deck_card(k, size)


def card_point(table: bytes, round_no: int, round_id: bytes, epoch: int, k: int) -> Point:
    """The point ``P_k`` of card index ``k`` in ``epoch`` (see the module docstring)."""
    data = (
        len(table).to_bytes(2, "big")
        + table
        + round_no.to_bytes(8, "big")
        + round_id
        + epoch.to_bytes(8, "big")
        + k.to_bytes(8, "big")
    )
    return group.hash_to_point(CARD_TAG, data)


def card_points(
    table: bytes, round_no: int, round_id: bytes, epoch: int, cards: Sequence[int]
) -> tuple[Point, ...]:
    """The points of ``cards`` (card indices) in ``epoch``; raises ValueError on a collision."""
    points = tuple(card_point(table, round_no, round_id, epoch, k) for k in cards)
    if len(set(points)) != len(points):
        raise ValueError("card points collide (or a card index repeats)")
    return points


def shuffle_step(key: Scalar, points: Sequence[Point], rand: Rand
                 ) -> tuple[tuple[int, ...], tuple[Point, ...]]:
    """One seat's shuffle: ``(perm, out)`` with ``out[i] = key · points[perm[i]]`` and a
    uniform ``perm`` (:func:`p2p8s.crypto.rand.permutation` of ``len(points)`` from
    ``rand``; the prover of :mod:`~p2p8s.crypto.shuffle_proof` needs it).
    Raises GroupError if an input point is invalid.
    """
    perm = tuple(permutation(len(points), rand))
    return perm, tuple(group.mul(key, points[j]) for j in perm)


def check_shuffle_output(points: Sequence[bytes], size: int, *, seat: int) -> None:
    """Check the shape of a received shuffle step: ``size`` valid, non-identity,
    distinct points (a ristretto255 check is cheap: 0.13x a multiplication; the shuffle
    proof needs valid points and names a wrong permutation).
    Raises :class:`CheatDetected` naming ``seat`` (BAD_POINT, DUPLICATE_POINT, MALFORMED).
    """
    if len(points) != size:
        raise CheatDetected(Cheat.SHUFFLE_SIZE, seat=seat, fault=Fault.MALFORMED,
                            size=len(points), expected=size)
    for i, p in enumerate(points):
        if not group.is_valid_point(p):
            raise CheatDetected(Cheat.SHUFFLE_POINT, seat=seat, fault=Fault.BAD_POINT, index=i)
    if len(set(points)) != size:
        raise CheatDetected(Cheat.SHUFFLE_REPEATS, seat=seat, fault=Fault.DUPLICATE_POINT)
