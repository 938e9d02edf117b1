"""The handshake of a connection (pure, sans-IO): SPAKE2 on the table code, then the
identities, then a sealed channel (protocol/wire.md, "Handshake").

Both ends run the same machine, one as the ``dialler`` (``d``), one as the
``acceptor`` (``a``), each sending at once what it can:

1. ``hello`` (in clear, 62 bytes): ``u32 58 ‖ u8 version ‖ pake[33] ‖ table[8] ‖
   hint[16]`` — ``pake`` is this side's SPAKE2 message (symmetric SPAKE2 over
   Ed25519, the ``spake2`` package of magic-wormhole, password = the 6-character
   code, ``idSymmetric = "p2p8s/v3/pake"``); ``table`` the table id (zeros: a dialler
   that does not know it yet); ``hint`` a rejoin hint (zeros: none).
2. ``auth`` (sealed with the handshake key of its direction, counter 0):
   ``identity key[32] ‖ Ed25519-Sign(identity, "p2p8s/v3/auth" ‖ side ‖ T)``.
3. ``confirm`` (sealed, counter 1): ``HMAC-SHA-256(confirm key of its direction,
   "p2p8s/v3/confirm" ‖ T2)``.

An acceptor that turns a connection away before its handshake (admission: busy, too
fast, slowed after wrong codes) sends instead one ``busy`` record, in clear (7 bytes):
``u32 3 ‖ u8 version ‖ u16 retry_after_s`` (:func:`busy_record`), then closes. It is
unauthenticated: a dialler shows it only as fixed local words and waits at most
:data:`MAX_RETRY_S` before trying again (``Failed`` with ``table-busy``).

Key schedule (``H`` = SHA-256, HKDF = RFC 5869 with SHA-256, ``K`` the SPAKE2 key)::

    T  = H("p2p8s/v3/transcript" ‖ hello_d ‖ hello_a)          (hellos without prefix)
    hs_d ‖ hs_a = HKDF(K, salt = T, info = "p2p8s/v3/handshake", 64)
    T2 = H("p2p8s/v3/confirmed" ‖ T ‖ key_d ‖ key_a)
    conf_d ‖ conf_a ‖ tr_d ‖ tr_a = HKDF(K, salt = T2, info = "p2p8s/v3/session", 128)

so the confirmed key binds both SPAKE2 messages, the table id and both identity keys.
After ``confirm`` both directions use the sealed channel (:mod:`p2p8s.net.channel`)
keyed ``tr_d`` (dialler → acceptor) and ``tr_a``.

The dialler proves the code first: it sends its ``auth`` as soon as it has the
acceptor's ``hello``; the acceptor sends its ``auth`` and ``confirm`` only once the
dialler's ``auth`` opened (the records stay those above, only the acceptor waits). Until
then the acceptor sent nothing keyed by the code (its SPAKE2 message tests no password
offline), so a connection cut before the dialler's ``auth`` arrives (a Ctrl-C, a Wi-Fi
drop) gave the dialler nothing to test a guess against: no failed guess. Someone without
the code gets exactly one online guess per connection: its ``hello`` commits to one
password, and whether its ``auth`` opens is all it learns (the acceptor answers or
closes). An acceptor counts a failed guess (:attr:`Handshake.guessed`) only when the
dialler's ``auth`` does not open. The machine emits data: :class:`Send`, :class:`Heard`,
:class:`Done`, :class:`Failed`; it raises nothing on bad input.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from spake2 import SPAKE2_Symmetric
from spake2.ed25519_basic import NotOnCurve
from spake2.spake2 import SPAKEError

from p2p8s.net.channel import TAG_LENGTH, Opener, Sealer, SessionCode, SessionError
from p2p8s.wire import VERSION, public_key_bytes

__all__ = ["BUSY_LENGTH", "HELLO_LENGTH", "MAX_RETRY_S", "Done", "Failed", "Handshake",
           "HandshakeEvent", "Heard", "Send", "Session", "Side", "busy_record",
           "hint_for", "hinted_key"]

PAKE_ID = b"p2p8s/v3/pake"
PAKE_LENGTH = 33
TABLE_LENGTH = 8
HINT_LENGTH = 16
#: Bytes of a ``hello`` after its length prefix.
HELLO_LENGTH = 1 + PAKE_LENGTH + TABLE_LENGTH + HINT_LENGTH
#: Bytes of a ``busy`` record after its length prefix.
BUSY_LENGTH = 3
#: The longest wait (seconds) a dialler takes from a ``busy`` record (it is unsigned).
MAX_RETRY_S = 30
_PREFIX = 4
_AUTH_LENGTH = 32 + 64
_CONFIRM_LENGTH = 32
#: The lengths of a frame of protocol versions 1 and 2 (their first message).
_OLD_FRAME = (98, 65536)
NO_TABLE = bytes(TABLE_LENGTH)
NO_HINT = bytes(HINT_LENGTH)


class Side(StrEnum):
    """Which end of the connection: the one that dialled, or the one that accepted."""

    DIALLER = "d"
    ACCEPTOR = "a"


@dataclass(frozen=True, slots=True)
class Send:
    """Bytes to write to the peer."""

    data: bytes


@dataclass(frozen=True, slots=True)
class Heard:
    """The peer's ``hello`` arrived: its ``table`` id (zeros: unknown) and rejoin
    ``hint`` (zeros: none); check a hint with :meth:`Handshake.hint_matches`."""

    table: bytes
    hint: bytes


@dataclass(frozen=True, slots=True, kw_only=True)
class Session:
    """A confirmed connection: the peer's identity ``peer_key`` (32 bytes), the
    ``table`` id, the sealed channel (``sealer`` for sending, ``opener`` for receiving),
    the transcript hash ``transcript`` (T2) and the bytes already received after the
    handshake (``leftover``, to feed to ``opener``)."""

    peer_key: bytes
    table: bytes
    sealer: Sealer
    opener: Opener
    transcript: bytes
    leftover: bytes


@dataclass(frozen=True, slots=True)
class Done:
    """The handshake is confirmed both ways."""

    session: Session


@dataclass(frozen=True, slots=True)
class Failed:
    """The handshake failed; ``error`` says why (``pake-failed``: the peer holds
    another code). The connection is to be closed without a word."""

    error: SessionError


HandshakeEvent = Send | Heard | Done | Failed


def hint_for(pake: bytes, key: bytes) -> bytes:
    """The rejoin hint of identity ``key`` in a hello carrying SPAKE2 message ``pake``:
    ``H("p2p8s/v3/hint" ‖ pake ‖ key)[:16]`` (16 bytes). It shows the acceptor a key it
    knows (a seat of the final roster: priority) without naming it to anyone else."""
    return hashlib.sha256(b"p2p8s/v3/hint" + pake + key).digest()[:HINT_LENGTH]


def busy_record(retry_after_s: float) -> bytes:
    """The ``busy`` record of an acceptor turning a connection away: try again in
    ``retry_after_s`` seconds (rounded up, 1 to 65535)."""
    wait = max(1, min(0xFFFF, -int(-retry_after_s // 1)))
    return BUSY_LENGTH.to_bytes(_PREFIX, "big") + bytes([VERSION]) + wait.to_bytes(2, "big")


def hinted_key(record: bytes, keys: Iterable[bytes]) -> bytes | None:
    """The key of ``keys`` whose rejoin hint the ``hello`` ``record`` (its length prefix
    and :data:`HELLO_LENGTH` bytes, as read from the dialler) carries; None when it is
    no hello of this version or carries no such hint. Lets an acceptor give a seat's
    rejoin priority before it answers (before any guess of the code is checked)."""
    if (len(record) != _PREFIX + HELLO_LENGTH or int.from_bytes(record[:_PREFIX], "big")
            != HELLO_LENGTH or record[_PREFIX] != VERSION):
        return None
    pake, hint = record[_PREFIX + 1:_PREFIX + 1 + PAKE_LENGTH], record[-HINT_LENGTH:]
    if hint == NO_HINT:
        return None
    return next((k for k in keys if hmac.compare_digest(hint, hint_for(pake, k))), None)


def _hkdf(key: bytes, salt: bytes, info: bytes, length: int) -> bytes:
    derived: bytes = HKDF(algorithm=hashes.SHA256(), length=length, salt=salt,
                          info=info).derive(key)
    return derived


def _nonce(counter: int) -> bytes:
    return bytes(4) + counter.to_bytes(8, "big")


class Handshake:
    """One end's handshake (sans-IO): :meth:`start` gives the ``hello`` to send, then
    :meth:`receive_data` takes bytes and returns :data:`HandshakeEvent` values.

    ``code`` is the normalized table code (the SPAKE2 password); ``identity`` this
    node's key; ``table`` its table id (None: a joiner that does not know it yet; the
    acceptor must know it); ``hint_key`` the identity key to announce in the rejoin hint
    (None: no hint); ``entropy(n)`` gives n random bytes (SPAKE2's scalar); ``peer``
    names the other end (an address) in errors.
    """

    def __init__(self, *, side: Side, code: str, identity: Ed25519PrivateKey,
                 table: bytes | None, peer: str, hint_key: bytes | None = None,
                 entropy: Callable[[int], bytes] = os.urandom) -> None:
        if side is Side.ACCEPTOR and table is None:
            raise ValueError("the acceptor of a connection knows its table id")
        self.side = side
        self.peer = peer
        self._identity = identity
        self._key = public_key_bytes(identity)
        self._table = table
        self._spake = SPAKE2_Symmetric(code.encode("ascii"), idSymmetric=PAKE_ID,
                                       entropy_f=entropy)
        self._pake = bytes(self._spake.start())
        hint = NO_HINT if hint_key is None else hint_for(self._pake, hint_key)
        self._hello = (bytes([VERSION]) + self._pake + (table or NO_TABLE) + hint)
        self._buffer = bytearray()
        self._peer_hello: bytes | None = None
        self._hs_peer: ChaCha20Poly1305 | None = None
        self._sealer: Sealer | None = None
        self._k: bytes = b""
        self._transcript = b""
        self._peer_key: bytes | None = None
        self._confirm_peer = b""
        self._keys: tuple[bytes, bytes] = (b"", b"")
        self._t2 = b""
        self._pending_t2 = b""
        self._over = False
        #: This side sent its ``auth`` (the peer can check one guess of the code).
        self.sent_auth = False
        self._wrong_code = False

    @property
    def confirmed(self) -> bool:
        """The peer proved the code: its ``confirm`` checked (:class:`Done` was given)."""
        return self._t2 != b""

    @property
    def guessed(self) -> bool:
        """The peer's ``auth`` did not open (``pake-failed``): it guessed another code
        and learns so from the close — count it as a failed attempt. A connection that
        ended before the peer's ``auth`` arrived is no guess."""
        return self._wrong_code

    def start(self) -> bytes:
        """The ``hello`` record to send first."""
        return len(self._hello).to_bytes(_PREFIX, "big") + self._hello

    def hint_matches(self, keys: Iterable[bytes]) -> bool:
        """Whether the peer's hello carries the rejoin hint of one of ``keys``."""
        if self._peer_hello is None:
            return False
        pake, hint = self._peer_hello[1:1 + PAKE_LENGTH], self._peer_hello[-HINT_LENGTH:]
        return hint != NO_HINT and any(hmac.compare_digest(hint, hint_for(pake, k))
                                       for k in keys)

    def _fail(self, code: SessionCode, **params: Any) -> list[HandshakeEvent]:
        self._over = True
        self._buffer.clear()
        return [Failed(SessionError(code, peer=self.peer, **params))]

    def receive_eof(self) -> list[HandshakeEvent]:
        """The peer closed the stream before the handshake ended. A dialler whose
        ``auth`` went out and got none back was told its code is not the acceptor's
        (``pake-failed``: the acceptor closes on an ``auth`` that does not open)."""
        if self._over:
            return []
        if self.side is Side.DIALLER and self.sent_auth and self._peer_key is None:
            return self._fail(SessionCode.WRONG_CODE)
        return self._fail(SessionCode.CUT_SHORT)

    def receive_data(self, data: bytes) -> list[HandshakeEvent]:
        """Feed bytes from the peer; the events they cause, in order (nothing after a
        :class:`Done` or :class:`Failed`: later bytes are the session's ``leftover``)."""
        if self._over:
            return []
        self._buffer += data
        out: list[HandshakeEvent] = []
        while not self._over:
            step = self._step()
            if step is None:
                break
            out.extend(step)
        return out

    def _step(self) -> list[HandshakeEvent] | None:
        """Handle the next complete record in the buffer (None: wait for more bytes)."""
        buf = self._buffer
        if self._peer_hello is None:
            if len(buf) < _PREFIX + 1:
                return None
            length = int.from_bytes(buf[:_PREFIX], "big")
            if length == BUSY_LENGTH and self.side is Side.DIALLER:
                if len(buf) < _PREFIX + BUSY_LENGTH:
                    return None
                if buf[_PREFIX] != VERSION:
                    return self._fail(SessionCode.VERSION, theirs=buf[_PREFIX], ours=VERSION)
                wait = int.from_bytes(buf[_PREFIX + 1:_PREFIX + BUSY_LENGTH], "big")
                return self._fail(SessionCode.BUSY, retry_s=max(1, min(MAX_RETRY_S, wait)))
            if buf[_PREFIX] != VERSION and (length == HELLO_LENGTH
                                            or _OLD_FRAME[0] <= length <= _OLD_FRAME[1]):
                # a node of another version (its first frame, or its hello)
                return self._fail(SessionCode.VERSION, theirs=buf[_PREFIX], ours=VERSION)
            if length != HELLO_LENGTH:
                return self._fail(SessionCode.BAD_HELLO, cause="length")
            if len(buf) < _PREFIX + HELLO_LENGTH:
                return None
            hello = bytes(buf[_PREFIX:_PREFIX + HELLO_LENGTH])
            del buf[:_PREFIX + HELLO_LENGTH]
            return self._on_hello(hello)
        expected = _AUTH_LENGTH if self._peer_key is None else _CONFIRM_LENGTH
        if len(buf) >= _PREFIX and int.from_bytes(buf[:_PREFIX], "big") != (
                expected + TAG_LENGTH):
            return self._fail(SessionCode.RECORD_LENGTH,
                              length=int.from_bytes(buf[:_PREFIX], "big"),
                              low=expected + TAG_LENGTH, high=expected + TAG_LENGTH)
        if len(buf) < _PREFIX + expected + TAG_LENGTH:
            return None
        prefix = bytes(buf[:_PREFIX])
        sealed = bytes(buf[_PREFIX:_PREFIX + expected + TAG_LENGTH])
        del buf[:_PREFIX + expected + TAG_LENGTH]
        assert self._hs_peer is not None
        counter = 0 if self._peer_key is None else 1
        try:
            plain = self._hs_peer.decrypt(_nonce(counter), sealed, prefix)
        except InvalidTag:
            if self._peer_key is None:
                self._wrong_code = True
                return self._fail(SessionCode.WRONG_CODE)
            return self._fail(SessionCode.UNSEALED)
        return self._on_auth(plain) if self._peer_key is None else self._on_confirm(plain)

    def _on_hello(self, hello: bytes) -> list[HandshakeEvent]:
        pake = hello[1:1 + PAKE_LENGTH]
        table = hello[1 + PAKE_LENGTH:1 + PAKE_LENGTH + TABLE_LENGTH]
        hint = hello[-HINT_LENGTH:]
        if pake == self._pake:
            return self._fail(SessionCode.BAD_HELLO, cause="reflected")
        if pake[:1] != b"S":
            return self._fail(SessionCode.BAD_HELLO, cause="side")
        try:
            self._k = bytes(self._spake.finish(pake))
        except (SPAKEError, NotOnCurve, ValueError, AssertionError, IndexError, TypeError):
            return self._fail(SessionCode.BAD_HELLO, cause="point")
        self._peer_hello = hello
        if self.side is Side.DIALLER:
            if self._table is not None and table != self._table:
                return self._fail(SessionCode.OTHER_TABLE)
            if table == NO_TABLE:
                return self._fail(SessionCode.BAD_HELLO, cause="table")
            self._table = table
            hellos = self._hello + hello
        else:
            if table not in (NO_TABLE, self._table):
                return self._fail(SessionCode.OTHER_TABLE)
            hellos = hello + self._hello
        self._transcript = hashlib.sha256(b"p2p8s/v3/transcript" + hellos).digest()
        keys = _hkdf(self._k, self._transcript, b"p2p8s/v3/handshake", 64)
        mine, theirs = (keys[:32], keys[32:]) if self.side is Side.DIALLER else (
            keys[32:], keys[:32])
        self._hs_peer = ChaCha20Poly1305(theirs)
        self._sealer = Sealer(mine)
        if self.side is Side.ACCEPTOR:  # the dialler proves the code first
            return [Heard(table=table, hint=hint)]
        return [Heard(table=table, hint=hint), self._auth()]

    def _auth(self) -> Send:
        sig = self._identity.sign(b"p2p8s/v3/auth" + self.side.encode() + self._transcript)
        self.sent_auth = True
        assert self._sealer is not None
        return Send(self._sealer.seal(self._key + sig))

    def _on_auth(self, plain: bytes) -> list[HandshakeEvent]:
        peer_key, sig = plain[:32], plain[32:]
        peer_side = (Side.ACCEPTOR if self.side is Side.DIALLER else Side.DIALLER).encode()
        try:
            Ed25519PublicKey.from_public_bytes(peer_key).verify(
                sig, b"p2p8s/v3/auth" + peer_side + self._transcript)
        except (InvalidSignature, ValueError):
            return self._fail(SessionCode.BAD_AUTH)
        if peer_key == self._key:
            return self._fail(SessionCode.ITSELF)
        self._peer_key = peer_key
        pair = self._key + peer_key if self.side is Side.DIALLER else peer_key + self._key
        t2 = hashlib.sha256(b"p2p8s/v3/confirmed" + self._transcript + pair).digest()
        keys = _hkdf(self._k, t2, b"p2p8s/v3/session", 128)
        conf_d, conf_a, tr_d, tr_a = keys[:32], keys[32:64], keys[64:96], keys[96:]
        if self.side is Side.DIALLER:
            mine, self._confirm_peer, self._keys = conf_d, conf_a, (tr_d, tr_a)
        else:
            mine, self._confirm_peer, self._keys = conf_a, conf_d, (tr_a, tr_d)
        self._pending_t2 = t2
        mac = hmac.new(mine, b"p2p8s/v3/confirm" + t2, hashlib.sha256).digest()
        first = [self._auth()] if self.side is Side.ACCEPTOR else []
        assert self._sealer is not None
        return [*first, Send(self._sealer.seal(mac))]

    def _on_confirm(self, plain: bytes) -> list[HandshakeEvent]:
        t2 = self._pending_t2
        expected = hmac.new(self._confirm_peer, b"p2p8s/v3/confirm" + t2,
                            hashlib.sha256).digest()
        if not hmac.compare_digest(expected, plain):
            return self._fail(SessionCode.BAD_CONFIRM)
        self._t2 = t2
        self._over = True
        assert self._peer_key is not None and self._table is not None
        leftover = bytes(self._buffer)
        self._buffer.clear()
        mine, theirs = self._keys
        return [Done(Session(peer_key=self._peer_key, table=self._table,
                             sealer=Sealer(mine), opener=Opener(theirs, peer=self.peer),
                             transcript=t2, leftover=leftover))]
