"""Table codes and join links (pure).

A table code is six characters of Crockford base32 (https://www.crockford.com/base32.html):
30 random bits, read case-insensitively, with the look-alike letters normalised
(``I``, ``L`` -> ``1``; ``O`` -> ``0``). Hyphens and spaces typed inside a code are ignored.

>>> normalize_code("7kq-4mx")
'7KQ4MX'
>>> normalize_code("ILO0ab")
'1100AB'
>>> new_code(bytes([0, 0, 0, 0]))
'000000'

The code is the password of the handshake's SPAKE2 (protocol/wire.md, "Handshake"); the
table id advertised over mDNS is random and says nothing about it.

Links: ``p2p8s://CODE@HOST:PORT`` or ``CODE@HOST:PORT`` (IPv4, host name or ``[IPv6]``)
skip mDNS when multicast is blocked.

>>> parse_invite("p2p8s://7KQ4MX@[fe80::1]:4242")
Invite(code='7KQ4MX', host='fe80::1', port=4242)
>>> format_link("7KQ4MX", "fe80::1", 4242)
'p2p8s://7KQ4MX@[fe80::1]:4242'
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
from dataclasses import dataclass

from p2p8s.errors import Code, MalformedInput

#: Crockford's base32 alphabet: digits and letters without I, L, O, U.
ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
#: Characters in a table code.
CODE_LENGTH = 6
#: Random bytes :func:`new_code` takes (30 of the 32 bits are used).
CODE_RANDOM_BYTES = 4
#: URL scheme of a join link.
SCHEME = "p2p8s://"

_DECODE = {c: c for c in ALPHABET} | {"I": "1", "L": "1", "O": "0"}


class InviteProblem(Code):
    """What is wrong with a typed code or join link (the code of the
    :class:`~p2p8s.errors.MalformedInput` raised; params follow the name, ``text`` and
    ``original`` are what was typed)."""

    EMPTY = "code-empty"  # length (characters in a code)
    CHARACTERS = "code-characters"  # bad (the characters refused, sorted), text
    LENGTH = "code-length"  # text, length (characters given), expected
    LINK = "link-form"  # text
    IPV6_FORM = "ipv6-form"  # original
    NOT_IPV6 = "not-ipv6"  # host, original
    NEEDS_PORT = "needs-port"  # address, original
    NEEDS_HOST = "needs-host"  # port, original (``:PORT``: the host is missing)
    IPV6_BRACKETS = "ipv6-brackets"  # host, port
    COLONS = "address-colons"  # address, original (HOST:PORT with more than one colon)
    BAD_HOST = "bad-host"  # host
    BAD_PORT = "bad-port"  # port
_HOSTNAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$")


def new_code(random: bytes) -> str:
    """A fresh code from :data:`CODE_RANDOM_BYTES` random bytes (the caller's CSPRNG).

    Raises :class:`ValueError` for a wrong number of bytes (a programming error).
    """
    if len(random) != CODE_RANDOM_BYTES:
        raise ValueError(f"new_code needs {CODE_RANDOM_BYTES} random bytes")
    value = int.from_bytes(random, "big") >> 2
    return "".join(ALPHABET[(value >> (5 * i)) & 31] for i in reversed(range(CODE_LENGTH)))


def normalize_code(text: str) -> str:
    """The canonical upper-case form of a code typed by a person.

    Raises :class:`~p2p8s.errors.MalformedInput` whose :class:`InviteProblem` code names
    the problem.
    """
    cleaned = "".join(ch for ch in text.strip() if ch not in "- ").upper()
    if not cleaned:
        raise MalformedInput(InviteProblem.EMPTY, length=CODE_LENGTH)
    bad = sorted({ch for ch in cleaned if ch not in _DECODE})
    if bad:
        raise MalformedInput(InviteProblem.CHARACTERS, bad=tuple(bad), text=text.strip())
    if len(cleaned) != CODE_LENGTH:
        raise MalformedInput(InviteProblem.LENGTH, text=text.strip(), length=len(cleaned),
                             expected=CODE_LENGTH)
    return "".join(_DECODE[ch] for ch in cleaned)


@dataclass(frozen=True, slots=True)
class Invite:
    """What ``p2p8s join`` was given: a code, and an address when the link has one."""

    code: str
    host: str | None = None
    port: int | None = None


def parse_invite(text: str) -> Invite:
    """Parse ``CODE``, ``CODE@HOST:PORT`` or ``p2p8s://CODE@HOST:PORT``.

    ``HOST`` is an IPv4 address, a host name, or an IPv6 address in brackets.
    Raises :class:`~p2p8s.errors.MalformedInput` whose :class:`InviteProblem` code names
    the problem.
    """
    rest = text.strip()
    if rest.lower().startswith(SCHEME):
        rest = rest[len(SCHEME):].rstrip("/")
        if "@" not in rest:
            raise MalformedInput(InviteProblem.LINK, text=text)
    if "@" not in rest:
        return Invite(normalize_code(rest))
    code_text, _, address = rest.partition("@")
    code = normalize_code(code_text)
    host, port = _parse_address(address, original=text)
    return Invite(code, host, port)


def _parse_address(address: str, *, original: str) -> tuple[str, int]:
    if address.startswith("["):
        host, sep, port_text = address[1:].partition("]:")
        if not sep:
            raise MalformedInput(InviteProblem.IPV6_FORM, original=original)
        try:
            ipaddress.IPv6Address(host.split("%", 1)[0])
        except ValueError:
            raise MalformedInput(InviteProblem.NOT_IPV6, host=host,
                                 original=original) from None
    else:
        host, sep, port_text = address.rpartition(":")
        if sep and not host:
            raise MalformedInput(InviteProblem.NEEDS_HOST, port=port_text, original=original)
        if not sep:
            raise MalformedInput(InviteProblem.NEEDS_PORT, address=address, original=original)
        if ":" in host:
            try:
                ipaddress.IPv6Address(host.split("%", 1)[0])
            except ValueError:  # host:port:5 — not an IPv6 address without brackets
                raise MalformedInput(InviteProblem.COLONS, address=address,
                                     original=original) from None
            raise MalformedInput(InviteProblem.IPV6_BRACKETS, host=host, port=port_text)
        if not _HOSTNAME.match(host):
            raise MalformedInput(InviteProblem.BAD_HOST, host=host)
    if not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise MalformedInput(InviteProblem.BAD_PORT, port=port_text)
    return host, int(port_text)


def parse_address(text: str) -> tuple[str, int]:
    """``(host, port)`` of ``HOST:PORT`` (an IPv6 host in brackets), as in an invite;
    raises :class:`~p2p8s.errors.MalformedInput` whose :class:`InviteProblem` code names
    the problem."""
    return _parse_address(text.strip(), original=text)


def format_address(host: str, port: int) -> str:
    """``HOST:PORT``, with an IPv6 address in brackets."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def format_link(code: str, host: str, port: int) -> str:
    """The ``p2p8s://CODE@HOST:PORT`` link for a table."""
    return f"{SCHEME}{code}@{format_address(host, port)}"


FINGERPRINT_TAG = b"p2p8s/v1/fingerprint"


def fingerprint(public_key: bytes) -> str:
    """A person-comparable fingerprint of a 32-byte identity key: 16 Crockford base32
    characters of ``SHA-256(FINGERPRINT_TAG ‖ key)`` in groups of four (80 bits).

    >>> fingerprint(bytes(32))
    'XAD1-Y64K-SWDR-4CW1'
    """
    value = int.from_bytes(hashlib.sha256(FINGERPRINT_TAG + public_key).digest()[:10], "big")
    text = "".join(ALPHABET[(value >> (5 * i)) & 31] for i in reversed(range(16)))
    return "-".join(text[i:i + 4] for i in range(0, 16, 4))
