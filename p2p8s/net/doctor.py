"""Why machines may not find each other: the checks of ``p2p8s doctor``, as data.

Each check returns :class:`Finding` records (a :class:`Status`, a :class:`DoctorCode`
and params); :func:`causes` picks the likely causes (:class:`Cause`) from what failed and
what this machine is (:class:`Env`). The checks are pure functions of their inputs
(interfaces, the route table's text, the result of a probe), so they are tested with
made-up inputs; the probes that gather those inputs from this machine — ifaddr, the
socket layer, ``/proc``, zeroconf — are in :mod:`p2p8s.net.doctor_probes`, which also
runs them all (``diagnose``). ``p2p8s.cli.words.doctor`` says every code; loading it
loads no asyncio (this module imports none).

mDNS is RFC 6762: IPv4 group 224.0.0.251, UDP port 5353; a multicast datagram leaves by
the route for 224.0.0.0/4, else by the default route.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from p2p8s.errors import Code
from p2p8s.rules import Ruleset

#: The mDNS group and port (RFC 6762 §3, §5).
MDNS_GROUP, MDNS_PORT = "224.0.0.251", 5353
#: Seconds the mDNS self-test waits to see its own service.
SELF_TEST_S = 2.0
#: Seconds the TCP check waits for a connection.
CONNECT_S = 3.0
#: Interface names that look like a VPN tunnel (WireGuard, OpenVPN, macOS utun, PPP,
#: IPsec, Tailscale, ZeroTier; on Windows the adapter's description names it).
_VPN = re.compile(r"^(tun|tap|wg|utun|ppp|ipsec|tailscale|zt|nordlynx|proton)"
                  r"|vpn|wireguard|tailscale|zerotier", re.I)
#: Interface names of virtual bridges of containers and virtual machines (Linux, macOS,
#: and the descriptions of Windows' adapters).
_VIRTUAL = re.compile(r"^(docker|br-|veth|virbr|vmnet|vboxnet|cni|flannel|lxc|lxd|bridge)"
                      r"|vethernet|hyper-v|virtualbox|vmware", re.I)


class Status(Enum):
    """How a check came out: ``OK``, ``WARN`` (may explain trouble, not a failure) or
    ``FAIL`` (``p2p8s doctor`` exits 1)."""

    OK = "ok"
    WARN = "warn"
    FAIL = "fail"


class Section(Code):
    """The groups of findings, in the order they are shown."""

    INTERFACES = "doctor-interfaces"
    MULTICAST = "doctor-multicast"
    TABLES = "doctor-tables"  # listen_s
    REACH = "doctor-reach"  # where (HOST:PORT)


class DoctorCode(Code):
    """What one check found (params after the name)."""

    IFACE = "doctor-iface"  # name, addresses, kind (IfaceKind)
    NO_INTERFACES = "doctor-no-interfaces"
    LOOPBACK_ONLY = "doctor-loopback-only"
    LINK_LOCAL_ONLY = "doctor-link-local-only"  # names
    VPN = "doctor-vpn"  # names
    SEVERAL = "doctor-several"  # names
    MDNS_LEAVES_BY = "doctor-mdns-leaves-by"  # name (or None), address
    ROUTE_MULTICAST = "doctor-route-multicast"  # name
    ROUTE_DEFAULT = "doctor-route-default"  # name
    ROUTE_SOCKET = "doctor-route-socket"  # address (the route table was not readable)
    NO_ROUTE = "doctor-no-route"  # error (an errno name or None)
    GROUP_JOINED = "doctor-group-joined"
    GROUP_FAILED = "doctor-group-failed"  # error
    PORT_BUSY = "doctor-port-busy"  # error
    SELF_SEEN = "doctor-self-seen"  # seconds
    SELF_NOT_SEEN = "doctor-self-not-seen"  # wait_s
    SELF_ERROR = "doctor-self-error"  # error
    TABLES_HEARD = "doctor-tables-heard"  # n
    TABLE = "doctor-table"  # table (a Heard)
    SAME_ID = "doctor-same-id"  # n (open adverts of one table id: at most one is it)
    NO_TABLES = "doctor-no-tables"  # listen_s
    LISTEN_ERROR = "doctor-listen-error"  # error
    REACHED = "doctor-reached"  # host, port (it said nothing: could not tell what)
    REACHED_TABLE = "doctor-reached-table"  # host, port
    REACHED_BUSY = "doctor-reached-busy"  # host, port
    NOT_P2P8S = "doctor-not-p2p8s"  # host, port
    REFUSED = "doctor-refused"  # host, port
    TIMED_OUT = "doctor-timed-out"  # host, port, timeout_s
    UNREACHABLE = "doctor-unreachable"  # host, port, error
    UNKNOWN_HOST = "doctor-unknown-host"  # host
    CONNECT_ERROR = "doctor-connect-error"  # host, port, error


class Cause(Code):
    """A likely cause, said with what to do about it."""

    NOT_CONNECTED = "cause-not-connected"
    LOCAL_FIREWALL = "cause-local-firewall"
    WSL = "cause-wsl"
    CONTAINER = "cause-container"
    WINDOWS_PROFILE = "cause-windows-profile"
    MACOS_PERMISSION = "cause-macos-permission"
    VPN = "cause-vpn"  # names
    SEVERAL = "cause-several"  # names
    ISOLATION = "cause-isolation"
    NOTHING_LISTENS = "cause-nothing-listens"
    HOST_FIREWALL = "cause-host-firewall"
    OTHER_NETWORK = "cause-other-network"
    CHECK_NAME = "cause-check-name"
    WRONG_PORT = "cause-wrong-port"
    TYPE_ADDRESS = "cause-type-address"


class IfaceKind(Enum):
    """What an interface looks like by its name and addresses."""

    LAN = "lan"
    LINK_LOCAL = "link-local"
    VPN = "vpn"
    VIRTUAL = "virtual"


class Reach(Enum):
    """How a TCP connection attempt ended."""

    OPEN = "open"  # connected; the program there said nothing that tells what it is
    TABLE = "table"  # connected, and it opened a p2p8s handshake (its clear hello)
    TABLE_BUSY = "table-busy"  # connected, and a p2p8s node turned the attempt away
    NOT_P2P8S = "not-p2p8s"  # connected, and it sent what no p2p8s node sends first
    REFUSED = "refused"
    TIMED_OUT = "timed-out"
    NO_ROUTE = "no-route"
    UNKNOWN_HOST = "unknown-host"
    OTHER = "other"


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One thing a check found: its ``section``, ``status``, ``code`` and ``params``."""

    section: Section
    status: Status
    code: DoctorCode
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Iface:
    """A network interface: its ``name`` and IP ``addresses`` (text, no scope)."""

    name: str
    addresses: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Route:
    """One IPv4 route that is up: its interface and destination network."""

    iface: str
    destination: ipaddress.IPv4Network


@dataclass(frozen=True, slots=True, kw_only=True)
class Env:
    """What this machine is: ``system`` (``platform.system()``: Linux, Windows, Darwin),
    ``wsl`` (Linux under Windows), ``container`` (in Docker, Podman or another
    container)."""

    system: str
    wsl: bool = False
    container: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Heard:
    """A table heard by mDNS, by its code-free fields: the ``host`` (its owner once in
    play), players ``seated`` of ``seats``, its ``rules`` and whether it is ``playing``."""

    host: str
    seated: int
    seats: int
    rules: Ruleset
    playing: bool
    table_id: str = ""  # the advert's table id (hex; "": not known)


@dataclass(frozen=True, slots=True, kw_only=True)
class Report:
    """Every finding in order, and the likely causes of what failed or warned."""

    findings: tuple[Finding, ...]
    causes: tuple[Cause, ...]

    @property
    def failed(self) -> int:
        """How many checks failed (the exit status is 1 when any did)."""
        return sum(f.status is Status.FAIL for f in self.findings)

    @property
    def warned(self) -> int:
        """How many findings may explain trouble without being a failure."""
        return sum(f.status is Status.WARN for f in self.findings)


# --- the pure checks --------------------------------------------------------------

def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None


def iface_kind(iface: Iface) -> IfaceKind | None:
    """What ``iface`` looks like (None: loopback, or no address but IPv6 link-local,
    which every interface has — macOS's awdl0, llw0 and idle utun ones)."""
    addrs = [a for a in map(_ip, iface.addresses)
             if a is not None and not a.is_loopback and not a.is_multicast
             and not (a.version == 6 and a.is_link_local)]
    if not addrs:
        return None
    if _VPN.match(iface.name):
        return IfaceKind.VPN
    if _VIRTUAL.match(iface.name):
        return IfaceKind.VIRTUAL
    if all(a.is_link_local for a in addrs):
        return IfaceKind.LINK_LOCAL
    return IfaceKind.LAN


def _shown(iface: Iface) -> tuple[str, ...]:
    """The addresses worth showing: IPv4 and non-link-local IPv6 (all if none is)."""
    keep = tuple(a for a in iface.addresses if (ip := _ip(a)) is not None and (
        ip.version == 4 or not ip.is_link_local))
    return keep or iface.addresses


def check_interfaces(ifaces: Sequence[Iface]) -> list[Finding]:
    """One finding per interface in use (loopback left out), then ``LOOPBACK_ONLY`` or
    ``LINK_LOCAL_ONLY`` (FAIL: no LAN address), ``VPN`` and ``SEVERAL`` (WARN: the
    table may be advertised on the wrong network)."""
    out: list[Finding] = []
    kinds = {i.name: k for i in ifaces if (k := iface_kind(i)) is not None}

    def add(status: Status, code: DoctorCode, **params: Any) -> None:
        out.append(Finding(section=Section.INTERFACES, status=status, code=code,
                           params=params))

    for iface in ifaces:
        kind = kinds.get(iface.name)
        if kind is not None:
            add(Status.WARN if kind is IfaceKind.LINK_LOCAL else Status.OK, DoctorCode.IFACE,
                name=iface.name, addresses=_shown(iface), kind=kind)
    lan = [n for n, k in kinds.items() if k is IfaceKind.LAN]
    vpn = [n for n, k in kinds.items() if k is IfaceKind.VPN]
    if not lan and not vpn:
        local = [n for n, k in kinds.items() if k is IfaceKind.LINK_LOCAL]
        if local:
            add(Status.FAIL, DoctorCode.LINK_LOCAL_ONLY, names=tuple(local))
        elif ifaces:
            add(Status.FAIL, DoctorCode.LOOPBACK_ONLY)
        else:
            add(Status.FAIL, DoctorCode.NO_INTERFACES)
    if vpn:
        add(Status.WARN, DoctorCode.VPN, names=tuple(vpn))
    if len(lan) + len(vpn) > 1:
        add(Status.WARN, DoctorCode.SEVERAL, names=tuple(lan + vpn))
    return out


def parse_routes(text: str) -> list[Route]:
    """The IPv4 routes of Linux's ``/proc/net/route`` (a header line, then one route a
    line: interface, destination and gateway in little-endian hex, flags, …, mask); only
    routes that are up (flag 0x1). Lines that do not parse are skipped."""
    routes: list[Route] = []
    for line in text.splitlines()[1:]:
        cols = line.split()
        if len(cols) < 8:
            continue
        try:
            dest = int(cols[1], 16).to_bytes(4, "little")
            mask = int(cols[7], 16).to_bytes(4, "little")
            flags = int(cols[3], 16)
            net = ipaddress.IPv4Network(
                (ipaddress.IPv4Address(dest), str(ipaddress.IPv4Address(mask))),
                strict=False)
        except (ValueError, OverflowError):
            continue
        if flags & 0x1:
            routes.append(Route(iface=cols[0], destination=net))
    return routes


def check_route(routes: Sequence[Route] | None, *, source: str | None,
                error: str | None, ifaces: Sequence[Iface] = ()) -> list[Finding]:
    """Whether a multicast datagram to the mDNS group can leave this machine, and by
    which interface. ``routes``: the route table (None where it cannot be read: not
    Linux); ``source``: the address the socket layer picked for 224.0.0.251 (a UDP
    ``connect``), ``error``: its errno name when it refused (no route)."""
    out: list[Finding] = []

    def add(status: Status, code: DoctorCode, **params: Any) -> None:
        out.append(Finding(section=Section.MULTICAST, status=status, code=code,
                           params=params))

    group = ipaddress.IPv4Address(MDNS_GROUP)
    if source is None:
        add(Status.FAIL, DoctorCode.NO_ROUTE, error=error)
        return out
    by_mask = sorted(routes or (), key=lambda r: -r.destination.prefixlen)
    best = next((r for r in by_mask if group in r.destination), None)
    if routes is None or best is None:
        add(Status.OK, DoctorCode.ROUTE_SOCKET, address=source)
    elif best.destination.prefixlen == 0:
        add(Status.OK, DoctorCode.ROUTE_DEFAULT, name=best.iface)
    else:
        add(Status.OK, DoctorCode.ROUTE_MULTICAST, name=best.iface)
    name = next((i.name for i in ifaces if source in i.addresses), None)
    in_use = sum(iface_kind(i) in (IfaceKind.LAN, IfaceKind.VPN) for i in ifaces)
    add(Status.OK if in_use <= 1 else Status.WARN, DoctorCode.MDNS_LEAVES_BY, name=name,
        address=source)
    return out


def check_group(*, joined: str | None, bound: str | None) -> list[Finding]:
    """The mDNS group join: ``joined`` is None when ``IP_ADD_MEMBERSHIP`` worked, else
    its errno name; ``bound`` is None when port 5353 could be bound (shared), else the
    errno name (another responder holds it alone: WARN)."""
    out = [Finding(section=Section.MULTICAST, status=Status.OK, code=DoctorCode.GROUP_JOINED)
           if joined is None else
           Finding(section=Section.MULTICAST, status=Status.FAIL,
                   code=DoctorCode.GROUP_FAILED, params={"error": joined})]
    if bound is not None:
        out.append(Finding(section=Section.MULTICAST, status=Status.WARN,
                           code=DoctorCode.PORT_BUSY, params={"error": bound}))
    return out


def check_self_test(*, seen_s: float | None, error: str | None,
                    wait_s: float = SELF_TEST_S) -> Finding:
    """The mDNS self-test: a throw-away service registered and browsed for on this
    machine; ``seen_s``: seconds until it was seen (None: not within ``wait_s``),
    ``error``: why zeroconf could not run at all."""
    if error is not None:
        return Finding(section=Section.MULTICAST, status=Status.FAIL,
                       code=DoctorCode.SELF_ERROR, params={"error": error})
    if seen_s is None:
        return Finding(section=Section.MULTICAST, status=Status.FAIL,
                       code=DoctorCode.SELF_NOT_SEEN, params={"wait_s": wait_s})
    return Finding(section=Section.MULTICAST, status=Status.OK, code=DoctorCode.SELF_SEEN,
                   params={"seconds": seen_s})


def check_tables(heard: Sequence[Heard] | None, *, listen_s: float,
                 error: str | None = None) -> list[Finding]:
    """The tables heard in ``listen_s`` seconds (None with ``error``: browsing failed).
    Hearing none is a WARN: nobody may be hosting. Several open adverts of one table id
    get a ``SAME_ID`` WARN after them (at most one is that table: the others are fakes
    or stale, as ``p2p8s tables`` says)."""
    if heard is None:
        return [Finding(section=Section.TABLES, status=Status.FAIL,
                        code=DoctorCode.LISTEN_ERROR, params={"error": error})]
    if not heard:
        return [Finding(section=Section.TABLES, status=Status.WARN,
                        code=DoctorCode.NO_TABLES, params={"listen_s": listen_s})]
    out = [Finding(section=Section.TABLES, status=Status.OK, code=DoctorCode.TABLES_HEARD,
                   params={"n": len(heard)})]
    for i, table in enumerate(heard):
        out.append(Finding(section=Section.TABLES, status=Status.OK, code=DoctorCode.TABLE,
                           params={"table": table}))
        later = heard[i + 1] if i + 1 < len(heard) else None
        if table.table_id and not table.playing and (
                later is None or later.table_id != table.table_id):
            n = sum(t.table_id == table.table_id and not t.playing for t in heard)
            if n > 1:
                out.append(Finding(section=Section.TABLES, status=Status.WARN,
                                   code=DoctorCode.SAME_ID, params={"n": n}))
    return out


_REACH = {Reach.OPEN: (Status.OK, DoctorCode.REACHED),
          Reach.TABLE: (Status.OK, DoctorCode.REACHED_TABLE),
          Reach.TABLE_BUSY: (Status.WARN, DoctorCode.REACHED_BUSY),
          Reach.NOT_P2P8S: (Status.FAIL, DoctorCode.NOT_P2P8S),
          Reach.REFUSED: (Status.FAIL, DoctorCode.REFUSED),
          Reach.TIMED_OUT: (Status.FAIL, DoctorCode.TIMED_OUT),
          Reach.NO_ROUTE: (Status.FAIL, DoctorCode.UNREACHABLE),
          Reach.UNKNOWN_HOST: (Status.FAIL, DoctorCode.UNKNOWN_HOST),
          Reach.OTHER: (Status.FAIL, DoctorCode.CONNECT_ERROR)}


def check_reach(host: str, port: int, outcome: Reach, *, error: str | None = None,
                timeout_s: float = CONNECT_S) -> Finding:
    """The TCP check to ``host:port``: OK when it connected, else FAIL with the way it
    failed (``error``: the errno name)."""
    status, code = _REACH[outcome]
    return Finding(section=Section.REACH, status=status, code=code,
                   params={"host": host, "port": port, "timeout_s": timeout_s,
                           "error": error})


#: Findings about the kernel's default multicast path, which zeroconf does not use: it
#: joins the group and sends on each interface's own address.
_DEFAULT_PATH = frozenset({DoctorCode.NO_ROUTE, DoctorCode.GROUP_FAILED})


def follow_heard(findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` with the verdict following what was heard: when the mDNS self-test
    heard its own service or a table answered, mDNS works here, so a missing route for
    multicast (``NO_ROUTE``) or a failed join of the group on the default interface
    (``GROUP_FAILED``) is only a note (OK, ``heard=True``: nothing to fix, so it is not
    counted among the lines that may explain trouble): zeroconf binds and joins per
    interface, and needs neither. A self-test heard on a machine on no network
    (loopback or link-local only) proves nothing past loopback: it does not count."""
    codes = {f.code for f in findings}
    offline = bool(codes & {DoctorCode.LOOPBACK_ONLY, DoctorCode.LINK_LOCAL_ONLY,
                            DoctorCode.NO_INTERFACES})
    heard = DoctorCode.TABLES_HEARD in codes or (DoctorCode.SELF_SEEN in codes
                                                 and not offline)
    if not heard:
        return list(findings)
    return [Finding(section=f.section, status=Status.OK, code=f.code,
                    params={**f.params, "heard": True})
            if f.code in _DEFAULT_PATH and f.status is Status.FAIL else f for f in findings]


def read_env(*, system: str, proc_version: str | None = None, dockerenv: bool = False,
             containerenv: bool = False, cgroup: str | None = None) -> Env:
    """What this machine is, from ``platform.system()``, the text of ``/proc/version``
    (WSL: it names Microsoft), whether ``/.dockerenv`` or ``/run/.containerenv``
    exist, and the text of ``/proc/1/cgroup`` (docker, kubepods, containerd, lxc)."""
    wsl = proc_version is not None and "microsoft" in proc_version.lower()
    boxed = cgroup is not None and re.search(r"docker|kubepods|containerd|lxc|libpod",
                                             cgroup) is not None
    return Env(system=system, wsl=wsl, container=dockerenv or containerenv or boxed)


def causes(findings: Iterable[Finding], env: Env) -> tuple[Cause, ...]:
    """The likely causes of what went wrong, most likely first: each is chosen by the
    findings that failed or warned and by ``env``. Nothing wrong: no causes."""
    found = list(findings)
    codes = {f.code for f in found}
    bad = {f.code for f in found if f.status is not Status.OK}
    # a refused connection, an unknown name or another program there: the way to that
    # machine works, so nothing of this machine's network is to blame for them
    path_ok = {DoctorCode.REFUSED, DoctorCode.UNKNOWN_HOST, DoctorCode.NOT_P2P8S}
    path_failed = any(f.status is Status.FAIL and f.code not in path_ok for f in found)
    out: list[Cause] = []
    if codes & {DoctorCode.LOOPBACK_ONLY, DoctorCode.LINK_LOCAL_ONLY,
                DoctorCode.NO_INTERFACES}:
        out.append(Cause.NOT_CONNECTED)
    broken = {f.code for f in found if f.status is Status.FAIL}  # a note is not broken
    mdns_broken = bool(broken & {DoctorCode.NO_ROUTE, DoctorCode.GROUP_FAILED,
                                 DoctorCode.SELF_NOT_SEEN, DoctorCode.SELF_ERROR,
                                 DoctorCode.LISTEN_ERROR})
    unheard = DoctorCode.NO_TABLES in codes
    if env.wsl and (mdns_broken or unheard or path_failed):
        out.append(Cause.WSL)
    if env.container and path_failed:  # a container with the host's network passes all
        out.append(Cause.CONTAINER)
    if mdns_broken and not (env.wsl or env.container or Cause.NOT_CONNECTED in out):
        out.append(Cause.LOCAL_FIREWALL)
    if unheard and not mdns_broken:
        out.append(Cause.ISOLATION)
    if mdns_broken or unheard or path_failed:
        if env.system == "Windows":
            out.append(Cause.WINDOWS_PROFILE)
        if env.system == "Darwin":
            out.append(Cause.MACOS_PERMISSION)
    if DoctorCode.REFUSED in codes:
        out.append(Cause.NOTHING_LISTENS)
    if DoctorCode.TIMED_OUT in codes:
        out.extend(c for c in (Cause.HOST_FIREWALL, Cause.ISOLATION) if c not in out)
    if DoctorCode.NOT_P2P8S in codes:
        out.append(Cause.WRONG_PORT)
    if DoctorCode.UNREACHABLE in codes:
        out.append(Cause.OTHER_NETWORK)
    if DoctorCode.UNKNOWN_HOST in codes:
        out.append(Cause.CHECK_NAME)
    if bad & {DoctorCode.VPN}:
        out.append(Cause.VPN)
    elif bad & {DoctorCode.SEVERAL}:
        out.append(Cause.SEVERAL)
    if out and (mdns_broken or unheard):
        out.append(Cause.TYPE_ADDRESS)
    return tuple(out)
