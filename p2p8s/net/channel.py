"""The sealed channel of a connection (pure, sans-IO): records in, plaintext out.

After the handshake (:mod:`p2p8s.net.handshake`) every byte on a connection travels in
**sealed records** (protocol/wire.md, "Sealed records"):

    record = u32 length ‖ ChaCha20-Poly1305(key, nonce = 0u32 ‖ u64 counter,
                                            plaintext, aad = u32 length)     (RFC 8439)

One key per direction, the counter counts the records sent in that direction from 0
(a nonce is never reused; 2^64 records is far beyond any match, so there is no rekey).
The plaintext is whatever the sender sealed — the node seals each signed frame
(``u32 length ‖ body``, :mod:`p2p8s.wire`) as one record, so the frames keep their
Ed25519 signatures inside. A passive listener sees only record sizes and timing; a
record that was changed, dropped, replayed or reordered does not open.

>>> a = Sealer(bytes(32)); b = Opener(bytes(32), peer="10.0.0.2")
>>> b.receive_data(a.seal(b"hi") + a.seal(b"there"))
[b'hi', b'there']
"""

from __future__ import annotations

from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from p2p8s.errors import Code, RemoteError
from p2p8s.wire import Splitter

__all__ = ["MAX_RECORD", "RECORD_OVERHEAD", "TAG_LENGTH", "Opener", "Sealer", "SessionCode",
           "SessionError"]

#: Bytes of the Poly1305 tag at the end of every sealed record.
TAG_LENGTH = 16
_PREFIX = 4
#: Bytes a sealed record adds to its plaintext on the wire: the length prefix and the tag.
RECORD_OVERHEAD = _PREFIX + TAG_LENGTH
#: The largest sealed record (a maximal signed frame with its prefix, plus the overhead).
MAX_RECORD = 64 * 1024 + RECORD_OVERHEAD


class SessionCode(Code):
    """What is wrong with a connection's handshake or sealed records (the code of a
    :class:`SessionError`; params follow the name, ``peer`` is always there)."""

    RECORD_LENGTH = "record-length"  # length, low, high
    UNSEALED = "unsealed"  # a record that does not open (changed, forged, replayed)
    CUT_SHORT = "record-cut-short"
    VERSION = "handshake-version"  # theirs, ours
    BAD_HELLO = "bad-hello"  # cause (what is wrong with it)
    BAD_AUTH = "bad-auth"  # the identity signature over the transcript fails
    BAD_CONFIRM = "bad-confirm"  # the key confirmation MAC fails
    OTHER_TABLE = "hello-other-table"  # the peer's hello names another table
    ITSELF = "hello-itself"  # the peer holds this node's own identity key
    WRONG_CODE = "pake-failed"  # the peer's auth does not open: it holds another code
    BUSY = "table-busy"  # retry_s (the acceptor's unsigned busy record, at most 30 s)
    SLOWED = "slowed"  # peer, failures, wait_s (a notice: wrong codes from one address)
    NOT_THERE = "not-there"  # where, wrong_code (a dialled node did not prove the code)


class SessionError(RemoteError):
    """Bytes from ``peer`` (an address) break the handshake or the sealed channel."""

    def __init__(self, code: SessionCode, /, *, peer: str, seat: int | None = None,
                 **params: Any) -> None:
        super().__init__(code, seat=seat, **params)
        self.params = {"peer": peer, "seat": seat, **params}


def _nonce(counter: int) -> bytes:
    return bytes(4) + counter.to_bytes(8, "big")


class Sealer:
    """Seals what one side sends with its direction's 32-byte ``key``."""

    def __init__(self, key: bytes, *, counter: int = 0) -> None:
        self._aead = ChaCha20Poly1305(key)
        self._counter = counter

    def seal(self, plaintext: bytes) -> bytes:
        """One record carrying ``plaintext`` (at most ``MAX_RECORD - TAG_LENGTH`` bytes;
        ValueError beyond, a programming error)."""
        length = len(plaintext) + TAG_LENGTH
        if length > MAX_RECORD:
            raise ValueError(f"a sealed record holds at most {MAX_RECORD} bytes")
        prefix = length.to_bytes(_PREFIX, "big")
        sealed = self._aead.encrypt(_nonce(self._counter), plaintext, prefix)
        self._counter += 1
        return prefix + sealed


class Opener:
    """Opens the records the peer sealed with its direction's ``key`` (sans-IO).

    Memory is bounded: a length outside ``16..MAX_RECORD`` is refused before the record
    is read, and at most one incomplete record is buffered. After an error the opener
    stays failed; records that opened before it in the same bytes are returned first and
    the error is in :attr:`error` (raised by the next call): the length-prefixed
    :class:`~p2p8s.wire.Splitter` that :class:`~p2p8s.wire.FrameDecoder` uses too.
    """

    def __init__(self, key: bytes, *, peer: str, counter: int = 0) -> None:
        self._aead = ChaCha20Poly1305(key)
        self._counter = counter
        self.peer = peer
        self._records: Splitter[bytes, SessionError] = Splitter(
            low=TAG_LENGTH, high=MAX_RECORD, record=self._open, error=SessionError,
            too_long=lambda length: SessionError(
                SessionCode.RECORD_LENGTH, peer=self.peer, length=length, low=TAG_LENGTH,
                high=MAX_RECORD),
            cut_short=lambda: SessionError(SessionCode.CUT_SHORT, peer=self.peer))

    @property
    def error(self) -> SessionError | None:
        """The error that failed this opener, or None."""
        return self._records.error

    def _open(self, prefix: bytes, sealed: bytes) -> bytes:
        try:
            plain: bytes = self._aead.decrypt(_nonce(self._counter), sealed, prefix)
        except InvalidTag:
            raise SessionError(SessionCode.UNSEALED, peer=self.peer) from None
        self._counter += 1
        return plain

    def receive_data(self, data: bytes) -> list[bytes]:
        """Feed bytes; return the plaintext of every record they complete, in order.

        Raises :class:`SessionError` (``record-length``, ``unsealed``) on bad data.
        """
        return self._records.receive_data(data)

    def receive_eof(self) -> None:
        """The peer closed the stream; raises SessionError if it stopped mid-record."""
        self._records.receive_eof()
