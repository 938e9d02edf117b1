"""What the network edge reports, as data: codes, reasons and errors.

A :class:`~p2p8s.net.node.Lost` event carries a :class:`Reason` (a
:class:`~p2p8s.wire.Farewell` or :class:`~p2p8s.wire.Refusal` the peer sent, or a
:class:`NetCode` of this node, with params); errors carry a :class:`NetCode` or a
:class:`LobbyCode` and data. Bad data from a peer is a
:class:`~p2p8s.errors.RemoteError` naming it (:class:`PeerError` for a handshaken
connection); what this side cannot do is a :class:`~p2p8s.errors.LocalError`. The CLI
says them all (``p2p8s.cli.words.net``). Nothing here does I/O, and this module loads
without asyncio, zeroconf or the wire format, so the words catalogue that imports it
stays light.
"""

from __future__ import annotations

import errno
import socket
from typing import TYPE_CHECKING, Any

from p2p8s.errors import Code, LocalError, MalformedInput, Note, RemoteError

if TYPE_CHECKING:  # the words of this module load without asyncio and the wire
    from p2p8s.net.node import Connection
    from p2p8s.wire import Refusal


class NetCode(Code):
    """What a node reports: why a connection ended (the code of a :class:`Reason`) and
    what its errors are (params follow the name; ``where`` is ``HOST:PORT``, ``peer``
    an address, ``name``/``address``/``seat`` a connection's player, IP and seat)."""

    # why a connection ended (Lost)
    CONNECTION_CLOSED = "connection-closed"
    NO_HEARTBEAT = "no-heartbeat"  # timeout_s
    STOPPED_READING = "stopped-reading"  # name, address, seat, limit_mib
    CONNECTION_ERROR = "connection-error"  # error (the OS's words)
    BAD_DATA = "bad-data"  # error (the RemoteError)
    CLOSED_HERE = "closed-here"  # why (the Refusal or Farewell this node sent), seats
    # errors of a connection attempt
    CANNOT_REACH = "cannot-reach"  # where, failure (a ConnectFailure), error
    HANDSHAKE_TIMEOUT = "handshake-timeout"  # where
    NONE_REACHED = "none-reached"  # failures (the Unreachable errors, in order)
    NOT_A_TABLE = "not-a-table"  # peer
    PORT_IN_USE = "port-in-use"  # port
    CANNOT_LISTEN = "cannot-listen"  # port, error (the OS's words)
    ALREADY_CONNECTED = "already-connected"  # peer
    # a peer that breaks the handshake or the connection's rules (RemoteError)
    CLOSED_IN_HANDSHAKE = "closed-in-handshake"  # peer
    BEFORE_HELLO = "before-hello"  # peer, kind
    SEQUENCE = "sequence"  # name, address, seat, seq, last
    OTHER_TABLE = "other-table"  # name, address, seat


class ConnectFailure(Code):
    """Why a TCP connect failed (the ``failure`` of :attr:`NetCode.CANNOT_REACH`)."""

    REFUSED = "refused"
    TIMED_OUT = "timed-out"
    UNKNOWN_HOST = "unknown-host"
    NO_ROUTE = "no-route"  # EHOSTUNREACH
    HOST_DOWN = "host-down"  # EHOSTDOWN
    NETWORK_UNREACHABLE = "network-unreachable"  # ENETUNREACH
    NETWORK_DOWN = "network-down"  # ENETDOWN
    ADDRESS_UNAVAILABLE = "address-unavailable"  # EADDRNOTAVAIL
    RESET = "reset"  # ECONNRESET, ECONNABORTED, EPIPE
    NOT_PERMITTED = "not-permitted"  # EACCES, EPERM (a firewall of this machine)
    OTHER = "other"  # ``error``: the errno's symbol (e.g. "EPROTO") or the error's type


_BY_ERRNO: dict[int, ConnectFailure] = {
    number: failure
    for names, failure in (
        (("ECONNREFUSED",), ConnectFailure.REFUSED),
        (("ETIMEDOUT",), ConnectFailure.TIMED_OUT),
        (("EHOSTUNREACH",), ConnectFailure.NO_ROUTE),
        (("EHOSTDOWN",), ConnectFailure.HOST_DOWN),
        (("ENETUNREACH",), ConnectFailure.NETWORK_UNREACHABLE),
        (("ENETDOWN",), ConnectFailure.NETWORK_DOWN),
        (("EADDRNOTAVAIL",), ConnectFailure.ADDRESS_UNAVAILABLE),
        (("ECONNRESET", "ECONNABORTED", "EPIPE"), ConnectFailure.RESET),
        (("EACCES", "EPERM"), ConnectFailure.NOT_PERMITTED),
        (("WSAECONNREFUSED",), ConnectFailure.REFUSED),
        (("WSAETIMEDOUT",), ConnectFailure.TIMED_OUT),
        (("WSAEHOSTUNREACH",), ConnectFailure.NO_ROUTE),
        (("WSAENETUNREACH",), ConnectFailure.NETWORK_UNREACHABLE),
    )
    for name in names if (number := getattr(errno, name, None)) is not None
}


def connect_failure(exc: BaseException) -> dict[str, Any]:
    """The params that say why a connect failed: ``failure`` (a :class:`ConnectFailure`,
    by the exception's class, else its errno) and ``error``: never the exception's text
    (asyncio's "Connect call failed ('ADDRESS', PORT)" is no sentence for a person), only
    the errno's symbol, or the exception's type when it has none.

    >>> connect_failure(ConnectionRefusedError(111, "Connect call failed"))["failure"]
    <ConnectFailure.REFUSED: 'refused'>
    >>> connect_failure(TimeoutError())["failure"]
    <ConnectFailure.TIMED_OUT: 'timed-out'>
    >>> connect_failure(OSError(errno.EHOSTUNREACH, "Connect call failed ('192.0.2.250', 4242)"))
    {'failure': <ConnectFailure.NO_ROUTE: 'no-route'>, 'error': 'EHOSTUNREACH'}
    """
    number = exc.errno if isinstance(exc, OSError) else None
    if isinstance(exc, socket.gaierror):
        failure = ConnectFailure.UNKNOWN_HOST
    elif isinstance(number, int) and number in _BY_ERRNO:
        failure = _BY_ERRNO[number]
    elif isinstance(exc, ConnectionRefusedError):
        failure = ConnectFailure.REFUSED
    elif isinstance(exc, TimeoutError):
        failure = ConnectFailure.TIMED_OUT
    elif isinstance(exc, ConnectionError):
        failure = ConnectFailure.RESET
    else:
        failure = ConnectFailure.OTHER
    symbol = errno.errorcode.get(number) if isinstance(number, int) else None
    return {"failure": failure, "error": symbol or type(exc).__name__}


#: Why a connection ended, as data: the ``code`` is the :class:`~p2p8s.wire.Farewell` or
#: :class:`~p2p8s.wire.Refusal` the peer sent, or a :class:`NetCode` of this node (or a
#: :class:`LobbyCode`: a dropped player's seat freed after its grace, ``not-back``,
#: ``away-at-deal``); ``params`` its details (e.g. ``seats`` of a refusal, ``timeout_s``).
Reason = Note


class JoinRefused(LocalError):
    """The other node refused the connection; ``refusal`` is its
    :class:`~p2p8s.wire.Refusal` (None if it only closed the connection), ``code`` what
    to say (the refusal itself, or a :class:`NetCode`)."""

    def __init__(self, code: Code, /, *, refusal: Refusal | None, **params: Any) -> None:
        super().__init__(code, **params)
        self.refusal = refusal


class PortInUse(MalformedInput):
    """The port asked for (``--port``) is taken by another program."""


class CannotListen(LocalError):
    """This node cannot listen on the address asked for."""


class Unreachable(LocalError):
    """No connection could be made to the table at the addresses tried."""


class NotATable(Unreachable):
    """The address dialled answered, but not with p2p8s frames (another program)."""


def conn_params(conn: Connection) -> dict[str, Any]:
    """The params that name a connection's player in an error or a reason."""
    return {"name": conn.name, "address": conn.address, "seat": conn.seat}


class PeerError(RemoteError):
    """A handshaken peer broke the rules of its connection (a sequence number, the
    table id); ``params`` name its player (``name``, ``address``, ``seat``)."""

    def __init__(self, code: NetCode, /, *, conn: Connection, **params: Any) -> None:
        super().__init__(code, seat=conn.seat, **params)
        self.params = {**conn_params(conn), **params}


class LobbyCode(Code):
    """What the lobby reports (params follow the name; ``reason`` is a
    :class:`~p2p8s.net.node.Reason`, ``name``/``seat`` a seated player)."""

    ALREADY_DEALT = "already-dealt"
    ALL_SEATS_TAKEN = "all-seats-taken"  # seats
    ALREADY_SEATED = "already-seated"
    NO_ANSWER = "no-answer"
    CLOSED_BEFORE_SEATED = "closed-before-seated"
    TABLE_REFUSED = "table-refused"  # reason
    UNREADABLE = "unreadable"  # reason (bad-data: the table sent what this node cannot decode)
    HOST_LEFT = "host-left"  # reason
    OTHER_ROSTER = "other-roster"  # name, seat
    MESH_TIMEOUT = "mesh-timeout"  # names (the players not reached)
    LEFT_BEFORE_START = "left-before-start"  # name, seat, reason
    # why a kept seat was freed, or the host is given up (the code of a Reason)
    NOT_BACK = "not-back"  # grace_s (no connection back within the lobby's grace)
    AWAY_AT_DEAL = "away-at-deal"  # the host dealt while the player's connection was down


class TableFull(LocalError):
    """Every seat at this table is taken."""


class LobbyClosed(LocalError):
    """The host has already dealt; the lobby is closed."""


class AlreadySeated(LocalError):
    """This identity key already holds a seat at the table."""


class CardCode(Code):
    """Why a TXT record found by mDNS is not a table card (params follow the name)."""

    NOT_A_CARD = "not-a-card"  # cause (the rules' error) or error (an exception name)


class NotATableCard(RemoteError):
    """A TXT record on the network (another machine's data) is not a p2p8s table card."""
