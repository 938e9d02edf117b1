"""Fresh round keys (issue #13, deliverable 1): a key derived from a node's table secret
depends on the jointly random round id, so a host that opens the same table code twice
(the victim at the same seat) no longer meets the victim's already revealed key of the
first match. The victim's round nonce derives from its secret too (a restarted node
recomputes it, §5.2), so the secret must be new for every match: a new match replaces a
secret file left over from an earlier one (``catchup.key_secret(fresh=True)``,
tests/net/test_log_before_send.py)."""

from __future__ import annotations

from p2p8s.crypto import group
from p2p8s.crypto.deck import card_points
from p2p8s.crypto.derive import round_key
from p2p8s.crypto.harness import FakeNetwork, deal_hands, finish, start
from p2p8s.crypto.rand import seeded
from p2p8s.crypto.session import Session, SessionConfig

TABLE = b"same code"  # the table id depends only on the code the host chose
VICTIM_SECRET = bytes(range(32))  # the victim's secret file of that (table, seat)
NEXT_SECRET = bytes(range(1, 33))  # the file made anew for the next match
ROUND = 1
HAND = 7


def _match(victim_rand: bytes, secret: bytes = VICTIM_SECRET) -> FakeNetwork:
    """One match's round 1: the host (seat 0) replays the very same randomness in every
    match (its nonce too); the victim (seat 1) derives its key from ``secret``."""
    def config(seat: int) -> SessionConfig:
        return SessionConfig(table=TABLE, round_no=ROUND, players=2, seat=seat,
                             deck_size=52, key_seed=secret if seat == 1 else None)
    net = FakeNetwork([Session(config(0), seeded(b"host, every match")),
                       Session(config(1), seeded(victim_rand))])
    start(net)
    deal_hands(net, HAND)
    return net


def _read_hand(net: FakeNetwork, key: group.Scalar) -> list[int | None]:
    """What the host reads from the public strips of the victim's positions with ``key``:
    the card index under each, or None where the key opens nothing."""
    host, victim = net.sessions
    assert host.round_id is not None
    lookup = {p: k for k, p in enumerate(card_points(TABLE, ROUND, host.round_id, 0,
                                                     range(52)))}
    inverse = group.scalar_inv(key)
    return [lookup.get(group.mul(inverse, host._value(p))) for p in sorted(victim.hand())]


def test_the_reused_code_attack_reads_nothing() -> None:
    first = _match(b"victim, match 1")
    finish(first)
    revealed = first.sessions[0]._secrets[1]  # the victim's key, revealed at round end
    assert revealed is not None
    # the reading itself works: with the right key it yields exactly the victim's hand
    assert _read_hand(first, revealed) == [k for _, k in sorted(first.sessions[1].hand()
                                                                 .items())]
    second = _match(b"victim, match 2", NEXT_SECRET)
    victim_hand = sorted(second.sessions[1].hand().items())
    assert len(victim_hand) == HAND
    assert second.sessions[0].round_id != first.sessions[0].round_id
    assert second.sessions[1]._key != revealed
    assert _read_hand(second, revealed) == [None] * HAND  # the hand stays hidden
    # and the victim's node can still recompute its key after a restart (§5.2)
    rid = second.sessions[1].round_id
    assert rid is not None
    assert round_key(NEXT_SECRET, TABLE, ROUND, rid, 1) == second.sessions[1]._key
