"""Escrow (Feldman VSS of each key, threshold n-1): recovery and bad shares named."""

from __future__ import annotations

import dataclasses

import pytest

from p2p8s.crypto import escrow, group
from p2p8s.crypto import events as ev
from p2p8s.crypto.errors import Cheat, CheatDetected, Fault, ProtocolMisuse
from p2p8s.crypto.harness import deal_hands, new_table, start
from p2p8s.crypto.messages import KeyAnnounce, Message, ShareReveal, Strip
from p2p8s.crypto.rand import seeded
from p2p8s.crypto.transcript import Context


def test_a_missing_seat_key_is_rebuilt_from_the_other_seats_shares_and_the_round_audits() -> None:
    n, gone = 5, 3
    net = new_table(n)
    start(net)
    deal_hands(net, 2)
    secret = net.sessions[gone]._key
    live = [s for s in range(n) if s != gone]
    for s in live:
        net.call(s, lambda x: x.recover(gone))
    net.roundtrip_until_done()
    for s in live:
        assert ev.KeyRecovered(gone) in net.events[s]
        assert net.sessions[s]._secrets[gone] == secret
    # the rebuilt key opens the absent seat's hand to everyone
    for s in live:
        net.call(s, lambda x: x.end_round())
    net.roundtrip_until_done()
    report = net.sessions[0].audit()
    hand = {p: k for p, k in net.sessions[gone].hand().items()}
    assert {p: report.orders[0][p[1]] for p in report.holdings[gone]} == hand


def test_after_recovery_the_lowest_live_seat_strips_the_missing_layer() -> None:
    n, gone = 4, 0
    net = new_table(n)
    start(net)
    deal_hands(net, 2)
    live = [1, 2, 3]
    for s in live:
        net.call(s, lambda x: x.recover(gone))
    net.roundtrip_until_done()
    for pos, seat in (((0, 20), 3), ((0, 21), 1), ((0, 22), 2)):  # all need seat 0's layer
        for s in live:
            net.call(s, lambda x, pos=pos, seat=seat: x.draw(pos, seat))
        net.roundtrip_until_done()
        assert pos in net.sessions[seat].hand()
    proxied = [m for m in net.sent[1] if isinstance(m, Strip) and m.layer == gone]
    assert len(proxied) == 3
    # the lowest live seat also plays for the missing seat (its hand is now public)
    with pytest.raises(ProtocolMisuse):
        net.sessions[2].play([(0, 0)], seat=gone)
    gone_hand = net.sessions[gone].hand()
    pos = sorted(gone_hand)[0]
    net.call(1, lambda x: x.play([pos], seat=gone))
    net.roundtrip_until_done()
    for s in (2, 3):
        played = [e for e in net.events[s] if isinstance(e, ev.CardsPlayed)]
        assert played[-1].seat == gone and played[-1].items[0][2] == gone_hand[pos]
    assert not any(isinstance(m, Strip) and m.layer == gone for s in (2, 3)
                   for m in net.sent[s])
    for s in live:
        net.call(s, lambda x: x.end_round())
    net.roundtrip_until_done()
    reports = [net.sessions[s].audit() for s in live]
    assert reports[0] == reports[1] == reports[2]
    assert reports[0].card_at((0, 20)).__int__() == net.sessions[3].hand()[(0, 20)] % 52


def test_strips_for_another_seat_are_refused_without_recovery() -> None:
    def tamper(sender: int, recipient: int, msg: Message, data: bytes) -> bytes | None:
        if sender == 1 and isinstance(msg, Strip):
            return dataclasses.replace(msg, layer=2).encode()
        return data

    net = new_table(3, tamper=tamper)
    start(net)
    with pytest.raises(CheatDetected) as info:
        deal_hands(net, 1)
    assert (info.value.seat, info.value.fault) == (1, Fault.BAD_STRIP)


def test_recovery_needs_every_other_seat() -> None:
    net = new_table(4)
    start(net)
    for s in (0, 1):  # seat 2 does not publish its share of seat 3's key
        net.call(s, lambda x: x.recover(3))
    net.roundtrip_until_done()
    assert not any(isinstance(e, ev.KeyRecovered) for e in net.events[0])
    assert net.sessions[0]._secrets[3] is None


def test_a_bad_share_in_recovery_names_its_holder() -> None:
    def change(m: ShareReveal) -> Message:
        return dataclasses.replace(m, share=group.scalar_from_int(7))

    def tamper(sender: int, recipient: int, msg: Message, data: bytes) -> bytes | None:
        return change(msg).encode() if sender == 1 and isinstance(msg, ShareReveal) else data

    net = new_table(4, tamper=tamper)
    start(net)
    for s in (0, 1, 3):
        net.call(s, lambda x: x.recover(2))
    with pytest.raises(CheatDetected) as info:
        net.roundtrip_until_done()
    assert (info.value.seat, info.value.fault) == (1, Fault.BAD_SHARE)


def test_a_bad_escrow_share_at_the_deal_names_the_dealer() -> None:
    def tamper(sender: int, recipient: int, msg: Message, data: bytes) -> bytes | None:
        if sender == 2 and isinstance(msg, KeyAnnounce):
            (r0, c0), (r1, c1), *rest = msg.shares
            return dataclasses.replace(msg, shares=((r0, c1), (r1, c0), *rest)).encode()
        return data

    net = new_table(4, tamper=tamper)
    with pytest.raises(CheatDetected) as info:
        start(net)
    assert (info.value.seat, info.value.fault) == (2, Fault.BAD_SHARE)


def test_a_share_that_decrypts_but_fails_the_feldman_check_names_the_dealer() -> None:
    rand = seeded(b"escrow")
    ctx = Context(table=b"T", round_no=1, round_id=bytes(32))
    keys = [escrow.box_keypair(rand) for _ in range(3)]
    secret = group.random_scalar(rand)
    deal = escrow.deal(secret, dealer=0, players=3, box_secret=keys[0][0],
                       box_keys={1: keys[1][1], 2: keys[2][1]}, ctx=ctx, rand=rand)
    lying = (deal.commitments[0], group.base_mul(group.scalar_from_int(5)))
    with pytest.raises(CheatDetected) as info:
        escrow.open_share(dict(deal.shares)[1], dealer=0, recipient=1, box_secret=keys[1][0],
                          dealer_box_key=keys[0][1], commitments=lying, ctx=ctx)
    assert (info.value.seat, info.value.fault) == (0, Fault.BAD_SHARE)
    shares = {r: escrow.open_share(c, dealer=0, recipient=r, box_secret=keys[r][0],
                                   dealer_box_key=keys[0][1], commitments=deal.commitments,
                                   ctx=ctx)
              for r, c in deal.shares}
    assert escrow.recover(0, shares, deal.commitments, group.base_mul(secret)) == secret
    with pytest.raises(ValueError):
        escrow.recover(0, {1: shares[1]}, deal.commitments, group.base_mul(secret))


@pytest.mark.parametrize("players", [3, 7])
def test_recovery_works_for_3_and_7_seats(players: int) -> None:
    rand = seeded(b"escrow-%d" % players)
    ctx = Context(table=b"T", round_no=1, round_id=bytes(32))
    keys = [escrow.box_keypair(rand) for _ in range(players)]
    secret = group.random_scalar(rand)
    deal = escrow.deal(secret, dealer=players - 1, players=players,
                       box_secret=keys[-1][0],
                       box_keys={s: keys[s][1] for s in range(players)}, ctx=ctx, rand=rand)
    assert len(deal.commitments) == players - 1 and deal.commitments[0] == group.base_mul(secret)
    shares = {r: escrow.open_share(c, dealer=players - 1, recipient=r, box_secret=keys[r][0],
                                   dealer_box_key=keys[-1][1], commitments=deal.commitments,
                                   ctx=ctx)
              for r, c in deal.shares}
    assert escrow.recover(players - 1, shares, deal.commitments, group.base_mul(secret)) == secret


def _three_seats_and_a_wrong_share(
    seed: bytes,
) -> tuple[Context, list[tuple[bytes, bytes]], escrow.EscrowDeal, bytes]:
    """Seat 0's escrow deal to seats 1 and 2, and a ciphertext for seat 1 sealed right
    (it decrypts) around a share that is not ``f(2)``."""
    rand = seeded(seed)
    ctx = Context(table=b"T", round_no=1, round_id=bytes(32))
    keys = [escrow.box_keypair(rand) for _ in range(3)]
    deal = escrow.deal(group.random_scalar(rand), dealer=0, players=3, box_secret=keys[0][0],
                       box_keys={1: keys[1][1], 2: keys[2][1]}, ctx=ctx, rand=rand)
    wrong = escrow.seal_share(group.scalar_from_int(7), dealer=0, recipient=1,
                              box_secret=keys[0][0], recipient_box_key=keys[1][1],
                              commitments=deal.commitments, ctx=ctx)
    return ctx, keys, deal, wrong


def test_a_share_that_decrypts_fine_but_misses_the_commitments_names_the_dealer() -> None:
    """The Feldman check of a received share, on its own: the AEAD opens (right keys,
    right commitments as associated data) but the value is not ``f(x)``."""
    ctx, keys, deal, wrong = _three_seats_and_a_wrong_share(b"escrow-feldman")
    with pytest.raises(CheatDetected) as info:
        escrow.open_share(wrong, dealer=0, recipient=1, box_secret=keys[1][0],
                          dealer_box_key=keys[0][1], commitments=deal.commitments, ctx=ctx)
    assert (info.value.seat, info.value.fault) == (0, Fault.BAD_SHARE)
    assert info.value.code is Cheat.SHARE_FELDMAN


def test_settle_names_the_dealer_of_a_bad_share_and_the_accuser_of_a_good_one() -> None:
    ctx, keys, deal, wrong = _three_seats_and_a_wrong_share(b"escrow-settle")

    def verdict(ct: bytes, box_secret: bytes) -> tuple[object, int | None]:
        v = escrow.settle(ct, dealer=0, accuser=1, box_secret=box_secret,
                          accuser_box_key=keys[1][1], dealer_box_key=keys[0][1],
                          commitments=deal.commitments, ctx=ctx)
        return v.code, v.seat

    good = dict(deal.shares)[1]
    assert verdict(good, keys[1][0]) == (Cheat.FALSE_ACCUSATION, 1)
    assert verdict(wrong, keys[1][0]) == (Cheat.SHARE_FELDMAN, 0)
    assert verdict(dict(deal.shares)[2], keys[1][0]) == (Cheat.SHARE_UNDECRYPTABLE, 0)
    assert verdict(good, keys[2][0]) == (Cheat.ACCUSATION_KEY, 1)
