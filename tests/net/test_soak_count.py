"""The soaks' count of lost log entries (benchmarks/soak.py, used by wifi_soak.py).

A log lacks an entry only when a broadcast the table took in is missing from it; a seat's
own messages beyond the cut of its takeover are void on every node (protocol/table.md,
"Dropped nodes" → "The cut") and owed to no log: their node, cut off, sent them before
its table went void and was rebuilt, so some peers got them and others never will.
"""

from __future__ import annotations

import sys
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p8s import wire
from p2p8s.crypto.group import Scalar
from p2p8s.crypto.messages import Act, Message, ShareReveal
from p2p8s.store.tablelog import TableLog
from p2p8s.table.actions import CRYPTO

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from soak import broadcasts, lost_entries, void_slots

TABLE = b"\x07" * 8
KEYS = [Ed25519PrivateKey.from_private_bytes(bytes([s + 1]) * 32) for s in range(4)]
SEATS = [{"key": wire.public_key_bytes(k).hex()} for k in KEYS]


def echo(*counts: int) -> tuple[tuple[int, bytes], ...]:
    return tuple((c, bytes(32)) for c in counts)


def act(seat: int, seq: int) -> Act:
    return Act(table=TABLE, round_no=2, seat=seat, seq=seq, echo=echo(0, 0, 0, 0),
               data=b"x")


def share(seat: int, seq: int, dealer: int, counts: tuple[int, ...]) -> ShareReveal:
    return ShareReveal(table=TABLE, round_no=2, seat=seat, seq=seq, echo=echo(*counts),
                       dealer=dealer, share=Scalar(bytes(32)))


def log(me: int, messages: list[Message]) -> TableLog:
    """Node ``me``'s log of ``messages``, each signed by its seat's node."""
    frames = tuple(wire.encode(wire.Message(
        table=TABLE, seat=m.seat, seq=i, body=wire.Game(
            to=None, payload=bytes([CRYPTO]) + m.encode())), KEYS[m.seat])[4:]
        for i, m in enumerate(messages))
    return TableLog(header={"me": me, "seats": SEATS}, frames=frames)


# Seed 7, match 2, round 2 of the Wi-Fi soak: Bob (seat 1) is cut off after his 16th
# message; Ann (0) and Cat (2) publish their shares of his key having read 16 of his;
# Bob, alone, takes Cat for gone and publishes his share of her key as his 17th. Ann and
# Dan get it when his link is back; Cat's connection to him was replaced by then, and
# his table, void, was rebuilt from Ann's log: Cat never gets it.
TAKEN_IN = [*(act(1, q) for q in range(1, 17)), *(act(2, q) for q in range(1, 19)),
            share(0, 1, 1, (0, 16, 18, 0)), share(2, 19, 1, (0, 16, 18, 0))]
BEYOND = share(1, 17, 2, (0, 16, 18, 0))


def test_a_message_beyond_its_seats_cut_is_owed_to_no_log() -> None:
    logs = {0: [log(0, [*TAKEN_IN, BEYOND])], 1: [log(1, [*TAKEN_IN, BEYOND])],
            2: [log(2, TAKEN_IN)], 3: [log(3, [*TAKEN_IN, BEYOND])]}
    assert lost_entries(logs, 2) == 0
    every = [b for lgs in logs.values() for lg in lgs for b in broadcasts(lg)]
    assert void_slots(every) == {(2, 1, 17)}


def test_a_message_the_table_took_in_is_owed_to_every_log() -> None:
    later = act(2, 20)  # Cat's 20th: her key was never rebuilt (Bob's share is void)
    logs = {0: [log(0, [*TAKEN_IN, BEYOND, later])], 1: [log(1, [*TAKEN_IN, later])],
            2: [log(2, [*TAKEN_IN, later])], 3: [log(3, TAKEN_IN)]}
    assert lost_entries(logs, 2) == 1  # Dan's log lacks Cat's 20th


def test_a_share_counts_for_the_cut_only_while_its_sender_is_not_cut_before_it() -> None:
    # Bob's share of Cat's key states 18 of hers; were it standing, her 19th would be
    # beyond it — it is void (Bob's seat was cut at 16), so her messages all stand
    assert not any(s[1] == 2 for s in void_slots(broadcasts(log(0, [*TAKEN_IN, BEYOND]))))
    assert void_slots(broadcasts(log(0, TAKEN_IN))) == set()
