"""The probes of ``p2p8s doctor``: what :mod:`p2p8s.net.doctor`'s pure checks are fed
from this machine — interfaces (ifaddr), the route for multicast (``/proc/net/route``
and the socket layer), the mDNS group, an mDNS self-test and the tables heard
(zeroconf), a TCP connection, and what the machine is (``/proc``, ``/.dockerenv``) —
and :func:`diagnose`, which runs them all."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import platform
import secrets
import socket
import time

from p2p8s.net.doctor import (
    CONNECT_S,
    MDNS_GROUP,
    MDNS_PORT,
    SELF_TEST_S,
    Env,
    Heard,
    Iface,
    Reach,
    Report,
    Route,
    causes,
    check_group,
    check_interfaces,
    check_reach,
    check_route,
    check_self_test,
    check_tables,
    follow_heard,
    parse_routes,
    read_env,
)

#: Seconds the self-test's service may take to register (probing, RFC 6762 §8.1).
REGISTER_S = 4.0
#: Seconds the TCP check waits for the first bytes of the program it reached (a p2p8s
#: node sends its hello at once).
ANSWER_S = 1.5
#: Bytes of the length prefix of a handshake record (protocol/wire.md).
_PREFIX_LENGTH = 4
#: The DNS-SD type of the self-test's throw-away service (never a table).
SELF_TEST_TYPE = "_p2p8s-doctor._tcp.local."


def probe_interfaces() -> list[Iface]:
    """This machine's interfaces and addresses (ifaddr)."""
    import ifaddr

    out: list[Iface] = []
    for adapter in ifaddr.get_adapters():
        addrs = tuple(ip.ip if isinstance(ip.ip, str) else ip.ip[0] for ip in adapter.ips)
        out.append(Iface(name=str(adapter.nice_name or adapter.name), addresses=addrs))
    return out


def _errno_name(exc: OSError) -> str:
    return errno.errorcode.get(exc.errno or 0, type(exc).__name__)


def probe_route() -> tuple[list[Route] | None, str | None, str | None]:
    """``(routes, source, error)``: Linux's route table (None elsewhere), the source
    address the kernel picks for a datagram to the mDNS group, or the errno name of its
    refusal."""
    routes: list[Route] | None = None
    with contextlib.suppress(OSError), open("/proc/net/route", encoding="ascii") as f:
        routes = parse_routes(f.read())
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect((MDNS_GROUP, MDNS_PORT))
        except OSError as exc:
            return routes, None, _errno_name(exc)
        return routes, str(s.getsockname()[0]), None


def probe_group() -> tuple[str | None, str | None]:
    """``(joined, bound)``: join the mDNS group on a UDP socket bound (shared) to port
    5353, as an mDNS responder does; each None when it worked, else the errno name."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        with contextlib.suppress(AttributeError, OSError):
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        bound: str | None = None
        try:
            s.bind(("", MDNS_PORT))
        except OSError as exc:
            bound = _errno_name(exc)
        member = socket.inet_aton(MDNS_GROUP) + socket.inet_aton("0.0.0.0")
        try:
            s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, member)
        except OSError as exc:
            return _errno_name(exc), bound
        return None, bound


async def probe_self_test(*, wait_s: float = SELF_TEST_S) -> tuple[float | None, str | None]:
    """``(seen_s, error)``: register a throw-away service of :data:`SELF_TEST_TYPE`
    with one zeroconf, then browse for it with another; seconds from the start of the
    browse until it was seen (None: not within ``wait_s``, or it could not register
    within :data:`REGISTER_S`), or what made zeroconf fail."""
    from zeroconf import IPVersion, ServiceStateChange, Zeroconf
    from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

    tag = secrets.token_hex(4)
    ours = f"self-test {tag}.{SELF_TEST_TYPE}"
    seen = asyncio.Event()

    def on_change(zeroconf: Zeroconf, service_type: str, name: str,
                  state_change: ServiceStateChange) -> None:
        if name == ours and state_change is not ServiceStateChange.Removed:
            seen.set()

    info = AsyncServiceInfo(SELF_TEST_TYPE, ours, port=9, properties={"t": tag},
                            server=f"p2p8s-doctor-{tag}.local.",
                            parsed_addresses=["127.0.0.1"])
    try:
        async with AsyncZeroconf(ip_version=IPVersion.V4Only) as teller, \
                AsyncZeroconf(ip_version=IPVersion.V4Only) as hearer:
            announced = await asyncio.wait_for(teller.async_register_service(info),
                                               REGISTER_S)  # probed (RFC 6762 §8.1)
            start = time.monotonic()
            browser = AsyncServiceBrowser(hearer.zeroconf, [SELF_TEST_TYPE],
                                          handlers=[on_change])
            try:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(seen.wait(), wait_s)
                took = time.monotonic() - start if seen.is_set() else None
            finally:
                await browser.async_cancel()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(announced, 1.0)
                    await asyncio.wait_for(await teller.async_unregister_service(info), 1.0)
            return took, None
    except TimeoutError:
        return None, None  # could not even register: nothing to be seen
    except Exception as exc:
        return None, str(exc) or type(exc).__name__


async def probe_tables(*, listen_s: float) -> tuple[list[Heard] | None, str | None]:
    """``(heard, error)``: the tables this machine hears by mDNS in ``listen_s``
    seconds (discovery's browse), one :class:`Heard` per table."""
    from p2p8s.net.discovery import browse, by_table, open_zeroconf

    try:
        async with open_zeroconf() as aiozc:
            cards = await browse(aiozc, timeout_s=listen_s)
    except Exception as exc:
        return None, str(exc) or type(exc).__name__
    heard = []
    for group in by_table(cards):  # a table in play once; every open advert (a copy of
        first = group[0]           # a table id may be a fake)
        playing = first.seat is not None
        heard += [Heard(host=(card.owner or card.host_name) if playing else card.host_name,
                        seated=card.seats if playing else card.seats - card.free,
                        seats=card.seats, rules=card.rules, playing=playing,
                        table_id=card.table_id)
                  for card in (group[:1] if playing else group)]
    return heard, None


def what_answers(first: bytes) -> Reach:
    """What the first bytes a program sent on an accepted connection say it is, without
    the code (protocol/wire.md, "Handshake"): a p2p8s node sends its clear ``hello``
    (``u32 HELLO_LENGTH ‖ u8 version``) or a ``busy`` record (``u32 3 ‖ u8 version``) at
    once; nothing at all cannot tell (:attr:`Reach.OPEN`)."""
    from p2p8s.net.handshake import BUSY_LENGTH, HELLO_LENGTH

    if len(first) < _PREFIX_LENGTH:  # too little to tell, unless it cannot be a prefix
        return Reach.OPEN if first == bytes(len(first)) else Reach.NOT_P2P8S
    length = int.from_bytes(first[:_PREFIX_LENGTH], "big")
    if length == HELLO_LENGTH:
        return Reach.TABLE
    if length == BUSY_LENGTH:
        return Reach.TABLE_BUSY
    return Reach.NOT_P2P8S


async def probe_reach(host: str, port: int, *,
                      timeout_s: float = CONNECT_S,
                      listen_s: float = ANSWER_S) -> tuple[Reach, str | None]:
    """``(outcome, error)`` of a TCP connection to ``host:port``: once connected, the
    first bytes the program sends within ``listen_s`` seconds say whether it is a p2p8s
    node (:func:`what_answers`; nothing is sent to it, so no attempt is spent)."""
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port),
                                                timeout_s)
    except TimeoutError:
        return Reach.TIMED_OUT, None
    except ConnectionRefusedError:
        return Reach.REFUSED, None
    except socket.gaierror:
        return Reach.UNKNOWN_HOST, None
    except OSError as exc:
        if exc.errno in (errno.EHOSTUNREACH, errno.ENETUNREACH):
            return Reach.NO_ROUTE, _errno_name(exc)
        if exc.errno == errno.ETIMEDOUT:
            return Reach.TIMED_OUT, None
        return Reach.OTHER, _errno_name(exc)
    first = b""
    with contextlib.suppress(TimeoutError, OSError):
        while len(first) < _PREFIX_LENGTH + 1:
            more = await asyncio.wait_for(reader.read(_PREFIX_LENGTH + 1 - len(first)),
                                          listen_s)
            if not more:
                break
            first += more
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return what_answers(first), None


def _read(path: str) -> str | None:
    with contextlib.suppress(OSError), open(path, encoding="utf-8", errors="replace") as f:
        return f.read()
    return None


def probe_env() -> Env:
    """This machine's :class:`Env` (``/proc``, ``/.dockerenv``, ``/run/.containerenv``)."""
    return read_env(system=platform.system(), proc_version=_read("/proc/version"),
                    dockerenv=os.path.exists("/.dockerenv"),
                    containerenv=os.path.exists("/run/.containerenv"),
                    cgroup=_read("/proc/1/cgroup"))


async def diagnose(*, listen_s: float, target: tuple[str, int] | None = None) -> Report:
    """Run every check on this machine (about ``max(listen_s, 2)`` seconds, plus up to
    :data:`CONNECT_S` for ``target``) and pick the likely causes."""
    ifaces = probe_interfaces()
    findings = check_interfaces(ifaces)
    routes, source, error = probe_route()
    findings += check_route(routes, source=source, error=error, ifaces=ifaces)
    joined, bound = probe_group()
    findings += check_group(joined=joined, bound=bound)
    reaching = asyncio.ensure_future(probe_reach(*target)) if target is not None else None
    (seen_s, self_error), (heard, listen_error) = await asyncio.gather(
        probe_self_test(), probe_tables(listen_s=listen_s))
    findings.append(check_self_test(seen_s=seen_s, error=self_error))
    findings += check_tables(heard, listen_s=listen_s, error=listen_error)
    if target is not None and reaching is not None:
        outcome, why = await reaching
        findings.append(check_reach(*target, outcome, error=why))
    findings = follow_heard(findings)  # mDNS heard: the default path does not matter
    return Report(findings=tuple(findings), causes=causes(findings, probe_env()))
