"""The cut of a seat taken over is fixed as soon as every holder of its key published a
share (protocol/table.md "The cut"), before the key is rebuilt: a share of another key
its node sent beyond it counts for nothing at once.

Wi-Fi soak (seed 23, match 3): Ann's link was down 59 s; the others took her seat over
(Bob, Cat and Dan published their shares of her key, each having read 10 of her
messages). Back in touch with Bob and Cat but not yet with Dan, Ann's node — which did
not know yet — took Dan for gone and published its share of his key as its 12th message,
stating 11 of his. Every node but Ann's takes that share for void (Ann's seat was cut at
10); Ann's node held Dan's 12th behind it (beyond the furthest share of his key), and
with it, in causal order, the very shares of her key that would rebuild it and void her
12th: a wait for good — "Dan's turn does not move" on her node, and the audit of her
log stopped ("the log lacks message 12 of Dan"), though it held every frame."""

from __future__ import annotations

from p2p8s.table.intake import Cuts

HOLDERS = ((1, 2, 3), (0, 2, 3), (0, 1, 3), (0, 1, 2))


def _soak_23() -> Cuts:
    cuts = Cuts()
    cuts._holders = HOLDERS  # as Cuts.shared is told, with each ShareReveal
    cuts.share(3, 11, sender=0, seq=12)  # Ann's share of Dan's key (her own, or waiting)
    for sender, seq in ((1, 13), (2, 15), (3, 13)):  # the shares of Ann's key, waiting
        cuts.share(0, 10, sender=sender, seq=seq)
    return cuts


def test_a_share_sent_beyond_its_senders_fixed_cut_holds_nothing_back() -> None:
    cuts = _soak_23()
    assert cuts.cut(0) is None  # not rebuilt yet: the shares wait (causal order)
    assert cuts.void(0, 11) and cuts.void(0, 12) and not cuts.void(0, 10)
    assert cuts.bound(3) is None  # Dan's messages no longer wait for Ann's void share
    assert cuts.bound(0) == 10 and cuts.reader(0) == 1
    cuts.close(0)
    assert cuts.cut(0) == 10  # the same cut once the key is rebuilt


def test_a_cut_is_not_fixed_while_a_holder_has_not_published() -> None:
    cuts = Cuts()
    cuts._holders = HOLDERS
    cuts.share(3, 11, sender=0, seq=12)
    for sender, seq in ((1, 13), (2, 15)):  # Dan's share of Ann's key not seen yet
        cuts.share(0, 10, sender=sender, seq=seq)
    assert not cuts.void(0, 12)  # Dan's share may state more of Ann's messages
    assert cuts.bound(3) == 11  # so Ann's share of Dan's key stands meanwhile
    cuts.share(0, 12, sender=3, seq=13)  # it does: her 12th is in the cut
    assert not cuts.void(0, 12) and cuts.bound(3) == 11


def test_two_seats_sharing_each_others_keys_decide_without_looping() -> None:
    cuts = Cuts()
    cuts._holders = ((1, 2), (0, 2), (0, 1))
    cuts.share(0, 4, sender=1, seq=9)
    cuts.share(1, 7, sender=0, seq=6)  # each holds a share of the other's key
    cuts.share(0, 5, sender=2, seq=8)
    assert cuts.bound(0) == 5 and cuts.void(0, 6)  # Ann's 6th, her share of Bob's: void
    assert cuts.bound(1) is None and not cuts.void(1, 9)
