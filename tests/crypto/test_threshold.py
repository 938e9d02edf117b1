"""Threshold strips (§8.1): while a seat is away and not taken over, its escrow holders
strip its layer together, and nobody learns its key or its hand."""

from __future__ import annotations

import dataclasses

import pytest

from p2p8s.crypto import escrow, group, threshold
from p2p8s.crypto import events as ev
from p2p8s.crypto.errors import Cheat, CheatDetected, Fault, ProtocolMisuse
from p2p8s.crypto.harness import FakeNetwork, deal_hands, new_table, start
from p2p8s.crypto.messages import KeyAnnounce, Message, PartialStrip, Strip
from p2p8s.crypto.rand import seeded
from p2p8s.crypto.session import Session
from p2p8s.crypto.transcript import Context

CTX = Context(table=b"T", round_no=1, round_id=bytes(32))


def _shared_inverse(players: int, seed: bytes) -> tuple[group.Scalar, dict[int, group.Scalar],
                                                         tuple[group.Point, ...]]:
    """A key ``e`` of seat 0, the opened shares of ``e^-1`` of seats 1.., and the
    commitments, through the real escrow deal."""
    rand = seeded(seed)
    boxes = [escrow.box_keypair(rand) for _ in range(players)]
    e = group.random_scalar(rand)
    deal = escrow.deal(group.scalar_inv(e), dealer=0, players=players, box_secret=boxes[0][0],
                       box_keys={s: boxes[s][1] for s in range(1, players)}, ctx=CTX,
                       rand=rand)
    shares = {r: escrow.open_share(c, dealer=0, recipient=r, box_secret=boxes[r][0],
                                   dealer_box_key=boxes[0][1],
                                   commitments=deal.commitments, ctx=CTX)
              for r, c in deal.shares}
    return e, shares, deal.commitments


def _partials(shares: dict[int, group.Scalar], commitments: tuple[group.Point, ...],
              value: group.Point) -> dict[int, group.Point]:
    out = {}
    for h, share in shares.items():
        image = escrow.share_point(escrow.share_x(h), commitments)
        t = threshold.partial_transcript(CTX, holder=h, dealer=0, op=0, positions=[(0, 5)])
        (p,), proof = threshold.prove_partials(t, share, image, [value], seeded(b"p%d" % h))
        t = threshold.partial_transcript(CTX, holder=h, dealer=0, op=0, positions=[(0, 5)])
        assert threshold.verify_partials(t, image, [value], [p], proof)
        out[h] = p
    return out


@pytest.mark.parametrize("players", [3, 7])
def test_the_combined_partials_are_the_strip_the_key_holder_would_make(players: int) -> None:
    e, shares, commitments = _shared_inverse(players, b"thr-%d" % players)
    value = group.hash_to_point(b"test", b"a position's value")
    got = threshold.combine(_partials(shares, commitments, value), len(commitments))
    assert got == group.mul(group.scalar_inv(e), value)
    assert group.mul(e, got) == value


def test_fewer_than_t_partials_are_refused_and_a_wrong_set_gives_no_strip() -> None:
    e, shares, commitments = _shared_inverse(4, b"thr-few")
    value = group.hash_to_point(b"test", b"v")
    partials = _partials(shares, commitments, value)
    short = dict(list(partials.items())[:-1])
    with pytest.raises(ValueError):
        threshold.combine(short, len(commitments))
    # t-1 partials combined as if they were all: not the strip (Shamir, in the exponent)
    assert threshold.combine(short, len(short)) != group.mul(group.scalar_inv(e), value)


def test_a_partial_made_with_another_share_fails_its_proof() -> None:
    _, shares, commitments = _shared_inverse(3, b"thr-proof")
    value = group.hash_to_point(b"test", b"v")
    image = escrow.share_point(escrow.share_x(1), commitments)
    t = threshold.partial_transcript(CTX, holder=1, dealer=0, op=0, positions=[(0, 5)])
    (p,), proof = threshold.prove_partials(t, shares[2], image, [value], seeded(b"x"))
    t = threshold.partial_transcript(CTX, holder=1, dealer=0, op=0, positions=[(0, 5)])
    assert not threshold.verify_partials(t, image, [value], [p], proof)


def test_the_key_proof_links_the_escrow_to_the_inverse_key() -> None:
    e, _, commitments = _shared_inverse(3, b"thr-link")
    y = group.base_mul(e)
    t = threshold.partial_transcript(CTX, holder=0, dealer=0, op=0, positions=[])
    proof = threshold.prove_inverse_link(t.fork(), e, y, commitments[0], seeded(b"l"))
    assert threshold.verify_inverse_link(t.fork(), y, commitments[0], proof)
    assert not threshold.verify_inverse_link(t.fork(), y, y, proof)  # A_0 = Y: the old escrow


# ------------------------------------------------------------------ in sessions


def _lost_at_the_draw(n: int = 4, gone: int = 2) -> tuple[FakeNetwork, list[int]]:
    """A dealt table whose seat ``gone`` is down; the others serve it."""
    net = new_table(n)
    start(net)
    deal_hands(net, 2)
    net.down.add(gone)
    live = [s for s in range(n) if s != gone]
    for s in live:
        net.call(s, lambda x: x.serve(gone))
    return net, live


def _draw(net: FakeNetwork, seats: list[int], position: tuple[int, int], owner: int) -> None:
    for s in seats:
        net.call(s, lambda x: x.draw(position, owner))
    net.roundtrip_until_done()


def test_a_draw_while_a_seat_is_away_completes_without_its_key() -> None:
    n, gone = 4, 2
    net, live = _lost_at_the_draw(n, gone)
    _draw(net, live, (0, 8), 3)  # seat 3 draws: layers 0, 1, 2 (away), then its own
    for s in live:
        session = net.sessions[s]
        assert session.hand_of(gone) is None and not session.knows_key(gone)
        assert not session.recovering(gone) and not session.recovered(gone)
        assert ev.StripServed(session.ops - 1, (0, 8), gone) in net.events[s]
    assert (0, 8) in net.sessions[3].hand()
    # the served strip is the one seat 2 would have made
    pos = net.sessions[3]._positions[(0, 8)]
    k = pos.order.index(gone)
    before = net.sessions[3]._value_at((0, 8), k)
    assert pos.strips[k] == (gone, group.mul(net.sessions[gone]._key_inv, before))
    assert not any(isinstance(m, Strip) and m.layer == gone for s in live
                   for m in net.sent[s])
    # seat 2 comes back: it takes everything in (its node declares the draw from the
    # game log), and the round audits clean with every key revealed at the end
    net.call(gone, lambda x: x.draw((0, 8), 3))
    net.down.clear()
    net.roundtrip_until_done()
    for s in range(n):
        net.call(s, lambda x: x.end_round())
    net.roundtrip_until_done()
    for s in range(n):
        report = net.sessions[s].audit()
        assert (0, 8) in report.holdings[3]


def test_the_seat_back_may_send_the_same_strip_it_is_kept_once() -> None:
    n, gone = 4, 2
    net, live = _lost_at_the_draw(n, gone)
    for s in live:
        net.call(s, lambda x: x.draw((0, 8), 3))
    # the seat strips too before it hears the partials (it was back just in time)
    net.call(gone, lambda x: x.draw((0, 8), 3))
    net.down.clear()
    net.roundtrip_until_done()
    assert any(isinstance(m, Strip) and m.layer == gone for m in net.sent[gone])
    for s in range(n):
        strips = net.sessions[s]._positions[(0, 8)].strips
        assert [layer for layer, _ in strips] == [0, 1, 2, 3][: len(strips)]
    assert (0, 8) in net.sessions[3].hand()


def test_a_holder_that_does_not_serve_is_awaited_and_named() -> None:
    n, gone, slow = 4, 2, 1
    net = new_table(n)
    start(net)
    deal_hands(net, 2)
    net.down.add(gone)
    for s in (0, 3):
        net.call(s, lambda x: x.serve(gone))
    _draw(net, [0, 1, 3], (0, 8), 3)
    for s in (0, 1, 3):
        assert not net.sessions[s].op_done(net.sessions[s].ops - 1)
        assert net.sessions[s].awaited_partials(gone) == (slow,)
    # t-1 partials are all that is out: nobody could strip the layer
    assert (0, 8) not in net.sessions[3].hand()
    net.call(slow, lambda x: x.serve(gone))
    net.roundtrip_until_done()
    assert (0, 8) in net.sessions[3].hand()
    assert net.sessions[0].awaited_partials(gone) == ()


def test_a_partial_with_a_bad_proof_names_its_holder() -> None:
    n, gone, liar = 4, 2, 3

    def tamper(sender: int, recipient: int, msg: Message, data: bytes) -> bytes | None:
        if isinstance(msg, PartialStrip) and sender == liar:
            e, i, v = msg.items[0]
            bad = group.add(v, group.GENERATOR)
            return dataclasses.replace(msg, items=((e, i, bad),)).encode()
        return data

    net = new_table(n, tamper=tamper, keep_going=True)
    start(net)
    deal_hands(net, 2)
    net.down.add(gone)
    for s in (0, 1, 3):
        net.call(s, lambda x: x.serve(gone))
    _draw(net, [0, 1, 3], (0, 8), 0)
    for s in (0, 1):
        err = net.failures[s]
        assert (err.code, err.seat, err.fault) == (Cheat.PARTIAL_PROOF, liar, Fault.BAD_STRIP)


class Peeker(Session):
    """A holder that serves the away seat's layer off that seat's own cards (to open
    them with the other holders' help): never due, so refused."""

    def _serve_ready(self) -> bool:
        changed = False
        for layer in sorted(self._serving):
            for op, positions in enumerate(self._ops):
                due = [p for p in positions if self._positions[p].owner == layer
                       and self._positions[p].done
                       and self._me not in self._partials.get((layer, p), {})]
                if due:
                    self._send_partials(op, layer, due)
                    changed = True
        return changed


def test_a_partial_strip_of_the_away_seats_own_card_is_refused_naming_the_holder() -> None:
    n, gone, peeker = 4, 2, 0
    net = new_table(n, keep_going=True)
    net.sessions[peeker].__class__ = Peeker
    start(net)
    deal_hands(net, 2)
    net.down.add(gone)
    net.call(peeker, lambda x: x.serve(gone))
    net.roundtrip_until_done()
    for s in (1, 3):
        err = net.failures[s]
        assert (err.code, err.seat, err.fault) == (Cheat.PARTIAL_NOT_DUE, peeker,
                                                   Fault.BAD_STRIP)


def test_serve_needs_a_share_of_the_seat() -> None:
    net = new_table(3)
    start(net)
    with pytest.raises(ProtocolMisuse):
        net.sessions[0].serve(0)
    two = new_table(2)
    start(two)
    with pytest.raises(ProtocolMisuse):
        two.sessions[0].serve(1)  # no escrow with two seats


def test_an_escrow_of_the_key_itself_is_refused() -> None:
    """A_0 must be e^-1·G: the old escrow of e (A_0 = Y) fails the key proof."""

    def tamper(sender: int, recipient: int, msg: Message, data: bytes) -> bytes | None:
        if isinstance(msg, KeyAnnounce) and sender == 1:
            commitments = (msg.key, *msg.commitments[1:])
            return dataclasses.replace(msg, commitments=commitments).encode()
        return data

    net = new_table(3, tamper=tamper)
    with pytest.raises(CheatDetected) as info:
        start(net)
    assert (info.value.code, info.value.seat) == (Cheat.KEY_PROOF, 1)
