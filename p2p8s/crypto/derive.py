"""The session's derivations: nonce commitments, the round id, round keys and the
per-seat message hash chains (protocol/mental-poker.md §3.3, §5.1, §5.2).

Pure functions of their arguments (SHA-512, HMAC-SHA512, length-prefixed fields).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

from p2p8s.crypto import group
from p2p8s.crypto.group import Scalar

CHAIN_TAG = b"p2p8s/v1/chain"
COMMIT_TAG = b"p2p8s/v1/commit"
ROUND_TAG = b"p2p8s/v1/round-id"
ROUND_KEY_TAG = b"p2p8s/v1/round-key"
ROUND_NONCE_TAG = b"p2p8s/v1/round-nonce"
ROUND_BOX_TAG = b"p2p8s/v1/round-box"
#: the length of a per-table key secret (:func:`round_key`)
KEY_SEED_BYTES = 32


def _lp(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def nonce_commitment(table: bytes, round_no: int, seat: int, nonce: bytes) -> bytes:
    """``SHA-512(tag ‖ table ‖ round ‖ seat ‖ nonce)[:32]``, all length-prefixed."""
    data = _lp(COMMIT_TAG) + _lp(table) + _lp(round_no.to_bytes(8, "big"))
    data += _lp(seat.to_bytes(8, "big")) + _lp(nonce)
    return hashlib.sha512(data).digest()[:32]


def round_id_of(table: bytes, round_no: int, nonces: Sequence[bytes]) -> bytes:
    """``SHA-512(tag ‖ table ‖ round ‖ nonce_0 ‖ … ‖ nonce_{n-1})[:32]``, length-prefixed."""
    data = _lp(ROUND_TAG) + _lp(table) + _lp(round_no.to_bytes(8, "big"))
    for n in nonces:
        data += _lp(n)
    return hashlib.sha512(data).digest()[:32]


def round_key(key_seed: bytes, table: bytes, round_no: int, round_id: bytes,
              seat: int) -> Scalar:
    """The round key ``e_j`` a node derives from its per-match secret ``key_seed``
    (32 bytes): ``HMAC-SHA512(key_seed, tag ‖ lp(table) ‖ u64 round ‖ lp(round_id) ‖
    u8 seat)`` read little-endian and reduced mod the group order (a restarted node
    recomputes it and proves it by ``e_j·G = Y_j``). ``round_id`` is the jointly random
    id of §5.1 (32 bytes), so no two rounds share a key even if a table code and a secret
    were used again (issue #13). Raises ValueError for a seed or round id of the wrong
    length, or for the (probability 2^-252) zero scalar."""
    if len(key_seed) != KEY_SEED_BYTES:
        raise ValueError(f"a key seed is {KEY_SEED_BYTES} bytes")
    if len(round_id) != 32:
        raise ValueError("a round id is 32 bytes")
    data = (ROUND_KEY_TAG + _lp(table) + round_no.to_bytes(8, "big") + _lp(round_id)
            + bytes([seat]))
    key = group.scalar_reduce(hmac.new(key_seed, data, hashlib.sha512).digest())
    if not any(key):
        raise ValueError("the derived round key is zero")
    return key


def _seat_secret(tag: bytes, key_seed: bytes, table: bytes, round_no: int,
                 seat: int) -> bytes:
    if len(key_seed) != KEY_SEED_BYTES:
        raise ValueError(f"a key seed is {KEY_SEED_BYTES} bytes")
    data = tag + _lp(table) + round_no.to_bytes(8, "big") + bytes([seat])
    return hmac.new(key_seed, data, hashlib.sha512).digest()[:32]


def round_nonce(key_seed: bytes, table: bytes, round_no: int, seat: int) -> bytes:
    """The Commit/Reveal nonce (32 bytes, §5.1) a node derives from its per-match
    secret ``key_seed`` (32 bytes) for ``seat`` in round ``round_no``: the first 32
    bytes of ``HMAC-SHA512(key_seed, "p2p8s/v1/round-nonce" ‖ lp(table) ‖ u64 round ‖
    u8 seat)``. Needed before the round id exists, so it is keyed by the round number;
    the secret is new for every match, so no two rounds share one (issue #13). A
    restarted node recomputes it to go on with its round (protocol/table.md "Coming
    back"). Raises ValueError for a seed of the wrong length."""
    return _seat_secret(ROUND_NONCE_TAG, key_seed, table, round_no, seat)


def round_box_secret(key_seed: bytes, table: bytes, round_no: int, seat: int) -> bytes:
    """The X25519 round box secret (32 bytes, RFC 7748: clamped when used, §8) a node
    derives from ``key_seed`` for ``seat`` in round ``round_no``: the first 32 bytes of
    ``HMAC-SHA512(key_seed, "p2p8s/v1/round-box" ‖ lp(table) ‖ u64 round ‖ u8 seat)``
    (see :func:`round_nonce`). Raises ValueError for a seed of the wrong length."""
    return _seat_secret(ROUND_BOX_TAG, key_seed, table, round_no, seat)


def chain_start(table: bytes, round_no: int, seat: int) -> bytes:
    """The head of ``seat``'s message chain before its first message."""
    data = _lp(CHAIN_TAG) + _lp(table) + _lp(round_no.to_bytes(8, "big"))
    return hashlib.sha512(data + _lp(seat.to_bytes(8, "big"))).digest()[:32]


def chain_next(head: bytes, encoded: bytes) -> bytes:
    """The chain head after a message with canonical bytes ``encoded``."""
    return hashlib.sha512(_lp(CHAIN_TAG) + head + encoded).digest()[:32]
