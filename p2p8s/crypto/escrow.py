"""Key escrow for 3+ seats: Feldman verifiable secret sharing (Feldman 1987) of each
seat's key ``e_j`` to the other seats, threshold ``t = n - 1`` (all other seats together
rebuild a missing seat's key; fewer learn nothing).

The dealer picks ``f(x) = e_j + a_1 x + … + a_{t-1} x^{t-1}`` (coefficients from
``rand``), publishes the commitments ``A_k = a_k·G`` (so ``A_0 = Y_j``) and gives seat
``i`` the share ``f(i + 1)``, checked by the recipient as
``f(i+1)·G == Σ_k (i+1)^k·A_k``.

Each share travels encrypted to its recipient: X25519 (RFC 7748) between the dealer's
and the recipient's round box keys, HKDF-SHA256 (RFC 5869) with
``info = b"p2p8s/v1/escrow" ‖ u16 len(table) ‖ table ‖ u64 round ‖ round_id ‖
u64 dealer ‖ u64 recipient``, then ChaCha20-Poly1305 (RFC 8439) with a zero nonce (each
key encrypts one message) and the concatenated commitments as associated data.

A recipient whose share does not open or fails the check does not stop on its own word:
it publishes an accusation with its round box secret (:func:`settle`), so every node
decrypts the disputed ciphertext itself and names the dealer (a bad share) or the
accuser (a share that opens and verifies: a false accusation). protocol/mental-poker.md
§8, "Accusations".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from p2p8s.crypto import group
from p2p8s.crypto.errors import Cheat, CheatDetected, Fault
from p2p8s.crypto.group import ORDER, Point, Rand, Scalar
from p2p8s.crypto.transcript import Context

ESCROW_TAG = b"p2p8s/v1/escrow"
_ZERO_NONCE = bytes(12)


@dataclass(frozen=True, slots=True, kw_only=True)
class EscrowDeal:
    """A dealer's published escrow: Feldman commitments and one ciphertext per recipient."""

    commitments: tuple[Point, ...]
    shares: tuple[tuple[int, bytes], ...]


def box_keypair(rand: Rand) -> tuple[bytes, bytes]:
    """A fresh X25519 ``(private, public)`` key pair (32 bytes each) from ``rand``."""
    sk = X25519PrivateKey.from_private_bytes(rand(32))
    return sk.private_bytes_raw(), sk.public_key().public_bytes_raw()


def box_public(box_secret: bytes) -> bytes:
    """The X25519 public key (32 bytes) of ``box_secret`` (RFC 7748, clamped)."""
    return X25519PrivateKey.from_private_bytes(box_secret).public_key().public_bytes_raw()


def share_x(seat: int) -> int:
    """The evaluation point of ``seat``'s share: ``seat + 1`` (never 0)."""
    return seat + 1


def _aead_key(
    box_secret: bytes, peer_box_key: bytes, ctx: Context, dealer: int, recipient: int
) -> ChaCha20Poly1305:
    shared = X25519PrivateKey.from_private_bytes(box_secret).exchange(
        X25519PublicKey.from_public_bytes(peer_box_key)
    )
    info = (
        ESCROW_TAG
        + len(ctx.table).to_bytes(2, "big")
        + ctx.table
        + ctx.round_no.to_bytes(8, "big")
        + ctx.round_id
        + dealer.to_bytes(8, "big")
        + recipient.to_bytes(8, "big")
    )
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(shared)
    return ChaCha20Poly1305(key)


def deal(
    secret: Scalar,
    *,
    dealer: int,
    players: int,
    box_secret: bytes,
    box_keys: Mapping[int, bytes],
    ctx: Context,
    rand: Rand,
    holders: Sequence[int] | None = None,
) -> EscrowDeal:
    """Share ``secret`` to ``holders`` (default: every seat but ``dealer``, ``players >=
    3``), threshold ``t = len(holders)``: all holders together rebuild the key.

    ``box_keys`` maps each recipient seat to its X25519 public key. Raises ValueError for
    fewer than 2 holders or a low-order box key (the seat owning it is at fault).
    """
    if holders is None:
        holders = [s for s in range(players) if s != dealer]
    if len(holders) < 2 or dealer in holders:
        raise ValueError("escrow needs at least 2 other holders")
    t = len(holders)
    coeffs = [secret] + [group.random_scalar(rand) for _ in range(t - 1)]
    commitments = tuple(group.base_mul(a) for a in coeffs)
    ints = [group.scalar_to_int(a) for a in coeffs]
    shares = []
    for seat in sorted(holders):
        x = share_x(seat)
        value = sum(a * pow(x, k, ORDER) for k, a in enumerate(ints)) % ORDER
        shares.append((seat, seal_share(group.scalar_from_int(value), dealer=dealer,
                                        recipient=seat, box_secret=box_secret,
                                        recipient_box_key=box_keys[seat],
                                        commitments=commitments, ctx=ctx)))
    return EscrowDeal(commitments=commitments, shares=tuple(shares))


def seal_share(
    share: Scalar,
    *,
    dealer: int,
    recipient: int,
    box_secret: bytes,
    recipient_box_key: bytes,
    commitments: tuple[Point, ...],
    ctx: Context,
) -> bytes:
    """The ciphertext (48 bytes) of ``share`` from ``dealer`` to ``recipient``: the AEAD of
    the module docstring, the concatenated ``commitments`` as associated data. Raises
    ValueError for a low-order ``recipient_box_key``."""
    box = _aead_key(box_secret, recipient_box_key, ctx, dealer, recipient)
    return box.encrypt(_ZERO_NONCE, share, b"".join(commitments))


def share_point(x: int, commitments: Sequence[Point]) -> Point:
    """The public image ``f(x)·G = Σ_k x^k·A_k`` of the share at ``x`` (Feldman): what a
    share, or a partial strip made with it (:mod:`~p2p8s.crypto.threshold`), is checked
    against. Raises :class:`~p2p8s.crypto.group.GroupError` for a bad commitment or an
    identity result."""
    return group.combine(
        [group.scalar_from_int(pow(x, k, ORDER)) for k in range(len(commitments))],
        commitments,
    )


def verify_share(share: Scalar, x: int, commitments: tuple[Point, ...]) -> bool:
    """Feldman's check ``share·G == Σ_k x^k·A_k``."""
    if not any(share):
        return False
    try:
        return group.base_mul(share) == share_point(x, commitments)
    except group.GroupError:
        return False


def open_share(
    ciphertext: bytes,
    *,
    dealer: int,
    recipient: int,
    box_secret: bytes,
    dealer_box_key: bytes,
    commitments: tuple[Point, ...],
    ctx: Context,
) -> Scalar:
    """Decrypt and verify the recipient's share from ``dealer``.

    Raises :class:`CheatDetected` (BAD_SHARE) naming ``dealer`` if it does not decrypt,
    is not a canonical scalar, or fails the Feldman check.
    """
    try:
        box = _aead_key(box_secret, dealer_box_key, ctx, dealer, recipient)
        plain = box.decrypt(_ZERO_NONCE, ciphertext, b"".join(commitments))
    except (InvalidTag, ValueError):
        raise CheatDetected(Cheat.SHARE_UNDECRYPTABLE, seat=dealer, fault=Fault.BAD_SHARE,
                            recipient=recipient) from None
    if not group.is_canonical_scalar(plain) or not verify_share(
        Scalar(plain), share_x(recipient), commitments
    ):
        raise CheatDetected(Cheat.SHARE_FELDMAN, seat=dealer, fault=Fault.BAD_SHARE,
                            recipient=recipient)
    return Scalar(plain)


def lagrange_at_zero(xs: Sequence[int]) -> list[int]:
    """The Lagrange coefficients ``λ_h = Π_{o≠h} x_o / (x_o - x_h) mod l`` for
    interpolating at 0 from the (distinct, non-zero) evaluation points ``xs``, in order:
    ``f(0) = Σ λ_h f(x_h)`` for any polynomial of degree below ``len(xs)``."""
    lams = []
    for xh in xs:
        lam = 1
        for xo in xs:
            if xo != xh:
                lam = lam * xo * pow(xo - xh, -1, ORDER) % ORDER
        lams.append(lam)
    return lams


def recover(
    dealer: int, shares: Mapping[int, Scalar], commitments: tuple[Point, ...], key: Point
) -> Scalar:
    """Rebuild ``dealer``'s key from the shares of all other seats (holder -> share).

    Every share is checked against the commitments first; a bad one raises
    :class:`CheatDetected` (BAD_SHARE) naming its holder. Then Lagrange interpolation at
    0; a result that does not match ``key`` (= ``Y_dealer``) names the dealer. Raises
    ValueError if fewer than ``len(commitments)`` shares are given.
    """
    t = len(commitments)
    if len(shares) < t:
        raise ValueError(f"recovery needs {t} shares, got {len(shares)}")
    for holder, share in shares.items():
        if not verify_share(share, share_x(holder), commitments):
            raise CheatDetected(Cheat.RECOVERY_SHARE, seat=holder, fault=Fault.BAD_SHARE,
                                dealer=dealer)
    used = sorted(shares)[:t]
    lams = lagrange_at_zero([share_x(h) for h in used])
    secret = sum(lam * group.scalar_to_int(shares[h]) for h, lam in zip(used, lams, strict=True))
    e = group.scalar_from_int(secret)
    if not any(e) or group.base_mul(e) != key:
        raise CheatDetected(Cheat.RECOVERED_KEY, seat=dealer, fault=Fault.BAD_KEY)
    return e


def settle(
    ciphertext: bytes,
    *,
    dealer: int,
    accuser: int,
    box_secret: bytes,
    accuser_box_key: bytes,
    dealer_box_key: bytes,
    commitments: tuple[Point, ...],
    ctx: Context,
) -> CheatDetected:
    """The verdict on ``accuser``'s claim that its share from ``dealer`` is bad, checked
    by anyone from public data and the accuser's published round ``box_secret``.

    Returns (never raises) the :class:`CheatDetected` naming who lied: the accuser
    (ACCUSATION_KEY: ``box_secret`` is not the secret of its committed ``accuser_box_key``;
    FALSE_ACCUSATION: the share opens and passes the Feldman check), else the dealer
    (SHARE_UNDECRYPTABLE or SHARE_FELDMAN, as :func:`open_share`). Sound because the
    AEAD key is fixed by the two committed box keys: the ciphertext has one decryption.
    """
    if box_public(box_secret) != accuser_box_key:
        return CheatDetected(Cheat.ACCUSATION_KEY, seat=accuser, fault=Fault.FALSE_ACCUSATION,
                             dealer=dealer)
    try:
        open_share(ciphertext, dealer=dealer, recipient=accuser, box_secret=box_secret,
                   dealer_box_key=dealer_box_key, commitments=commitments, ctx=ctx)
    except CheatDetected as verdict:
        return verdict
    return CheatDetected(Cheat.FALSE_ACCUSATION, seat=accuser, fault=Fault.FALSE_ACCUSATION,
                         dealer=dealer)
