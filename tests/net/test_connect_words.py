"""A failed connect is said in plain words chosen by its errno, never in Python's text
("Connect call failed ('ADDRESS', PORT)")."""

from __future__ import annotations

import errno
import os
import secrets
import socket
import subprocess
import sys

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p8s.cli.words import PLAIN
from p2p8s.net.admission import Limits
from p2p8s.net.connecting import Door
from p2p8s.net.errors import ConnectFailure, NetCode, Unreachable, connect_failure

from .netns import unavailable


async def _dial_error(host: str, port: int) -> Unreachable:
    door = Door(code="QZ7K2M", identity=Ed25519PrivateKey.generate(), limits=Limits(),
                keys=lambda: ())
    with pytest.raises(Unreachable) as caught:
        await door.dial(host, port, table=None, hint_key=bytes(32), hello=lambda t: b"",
                        timeout_s=2)
    return caught.value


async def test_a_refused_connect_is_said_in_words_not_pythons() -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    exc = await _dial_error("127.0.0.1", port)
    assert exc.code is NetCode.CANNOT_REACH
    assert exc.params["failure"] is ConnectFailure.REFUSED
    said = PLAIN.error(exc)
    assert said == (f"cannot reach 127.0.0.1:{port}: nothing listens there (the program "
                    "may have stopped, or the port is wrong)")


@pytest.mark.parametrize(("number", "failure"), [
    (errno.EHOSTUNREACH, ConnectFailure.NO_ROUTE),
    (errno.ENETUNREACH, ConnectFailure.NETWORK_UNREACHABLE),
    (errno.EHOSTDOWN, ConnectFailure.HOST_DOWN),
    (errno.ETIMEDOUT, ConnectFailure.TIMED_OUT),
    (errno.EADDRNOTAVAIL, ConnectFailure.ADDRESS_UNAVAILABLE),
    (errno.EACCES, ConnectFailure.NOT_PERMITTED),
    (errno.EPROTO, ConnectFailure.OTHER),
])
def test_each_errno_has_its_words(number: int, failure: ConnectFailure) -> None:
    params = connect_failure(OSError(number, "Connect call failed ('192.0.2.250', 4242)"))
    assert params == {"failure": failure, "error": errno.errorcode[number]}
    said = PLAIN.error(Unreachable(NetCode.CANNOT_REACH, where="192.0.2.250:4242", **params))
    assert said.startswith("cannot reach 192.0.2.250:4242: ")
    assert "Connect call" not in said and "(" not in said.split(": ", 1)[1][:1]
    if failure is ConnectFailure.OTHER:
        assert said.endswith("the connection failed (EPROTO)")


def test_an_error_without_errno_says_its_type_only() -> None:
    params = connect_failure(OSError("Multiple exceptions: [Errno 111] Connect call failed"))
    assert params == {"failure": ConnectFailure.OTHER, "error": "OSError"}


_SCRIPT = """
import asyncio, sys
from p2p8s.cli.words import PLAIN
sys.path.insert(0, sys.argv[1])
from tests.net.test_connect_words import _dial_error
print(PLAIN.error(asyncio.run(_dial_error("192.0.2.250", 4242))))
"""


@pytest.mark.skipif(unavailable() is not None, reason=unavailable() or "")
def test_an_unreachable_network_over_real_sockets() -> None:
    """In a namespace without routes the kernel answers ENETUNREACH at once."""
    name = f"p8s{os.getpid() % 10000}{secrets.token_hex(2)}-cw"
    subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        done = subprocess.run(["ip", "netns", "exec", name, sys.executable, "-c", _SCRIPT,
                               root], capture_output=True, text=True, timeout=30)
    finally:
        subprocess.run(["ip", "netns", "del", name], check=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ("cannot reach 192.0.2.250:4242: that network cannot be "
                                   "reached from this machine")
