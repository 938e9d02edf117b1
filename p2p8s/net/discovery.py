"""Finding tables on the local network: mDNS / DNS-SD (RFC 6762, RFC 6763) via zeroconf.

A host registers one service of type :data:`SERVICE_TYPE` whose TXT record (RFC 6763 §6)
is the table card (:class:`TableCard`): protocol version, table id, host name, rules,
seats, free seats and the host key's fingerprint. The code itself is never published:
the TXT record carries the table's random id (it says nothing about the code), and a
joiner tries the tables it hears until one proves the code (protocol/wire.md,
"Discovery").

One :class:`~zeroconf.asyncio.AsyncZeroconf` per process: the caller creates it
(:func:`open_zeroconf`) and passes it in, as python-zeroconf recommends.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import re
import secrets
import unicodedata
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any

import ifaddr
from zeroconf import IPVersion, ServiceStateChange, Zeroconf
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from p2p8s.errors import Error
from p2p8s.net.errors import CardCode, NotATableCard
from p2p8s.rules import Ruleset
from p2p8s.wire import MAX_ADDRESSES

__all__ = [
    "SERVICE_TYPE",
    "Advertiser",
    "Candidate",
    "CardCode",
    "MdnsHandle",
    "NotATableCard",
    "TableCard",
    "browse",
    "candidates",
    "choose_addresses",
    "find_node",
    "find_tables",
    "follow_addresses",
    "lan_addresses",
    "lan_networks",
    "open_zeroconf",
    "untrusted_text",
    "with_free",
]

#: DNS-SD service type of a p2p8s table (RFC 6763 §7).
SERVICE_TYPE = "_p2p8s._tcp.local."
#: Seconds to wait for one service's SRV/TXT/A records.
RESOLVE_TIMEOUT_S = 3.0
#: Seconds a joiner keeps listening past the first table heard (others answer too).
SETTLE_S = 0.5
#: The process's zeroconf handle (:func:`open_zeroconf`), for callers outside p2p8s.net.
MdnsHandle = AsyncZeroconf
#: Seconds between two looks at this machine's addresses while a node is advertised in
#: play (:func:`follow_addresses`).
ADDRESS_POLL_S = 2.0
#: Characters of a name heard in an advert kept at most (a player's name is at most 32).
ADVERT_TEXT_MAX = 32
#: Unicode categories never printed from an advert: controls (escape sequences), format
#: characters (bidi overrides and isolates, zero-width ones), line and paragraph
#: separators, surrogates, private-use and unassigned code points.
_UNPRINTED = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
#: What a key fingerprint looks like (p2p8s.codes.fingerprint: 4 groups of 4).
_FINGERPRINT = re.compile(r"[0-9A-Z]{4}(-[0-9A-Z]{4}){3}")
#: What a table id looks like: lower-case hex (8 random bytes: 16 digits).
_TABLE_ID = re.compile(r"[0-9a-f]{2,64}")


def untrusted_text(text: str, *, limit: int = ADVERT_TEXT_MAX) -> str:
    """``text`` heard from the network before anybody proved anything, made safe to
    print: NFKC-normalised, every character of :data:`_UNPRINTED` (ESC and the other
    controls, bidi overrides U+202A–202E and U+2066–2069, zero-width characters)
    dropped, any run of white space (tabs and line breaks too) one space, cut to
    ``limit`` characters (the cut marked ``…``). Never raises.

    >>> untrusted_text("Evil\\x1b[2J\\u202eRED")
    'Evil[2JRED'
    """
    kept = "".join(" " if ch.isspace() else ch for ch in unicodedata.normalize("NFKC", text)
                   if ch.isspace() or unicodedata.category(ch) not in _UNPRINTED)
    kept = " ".join(kept.split())
    return kept if len(kept) <= limit else kept[:limit - 1] + "…"


@dataclass(frozen=True, slots=True, kw_only=True)
class TableCard:
    """A table as advertised: ``table_id`` in hex, the host player's name, the rules,
    ``seats`` (2–7) and ``free`` seats, the host key ``fingerprint``, and where the host
    listens (``addresses``, ``port``; filled in when browsing).

    Nobody signs an advert: anyone on the network can send one with any name, any
    table id and anyone's fingerprint. A card read by :meth:`from_txt` carries only
    printable text (:func:`untrusted_text`) and a fingerprint of the right form (else
    ``""``); the words show it as a claim."""

    version: int
    table_id: str
    host_name: str
    rules: Ruleset
    seats: int
    free: int
    fingerprint: str
    addresses: tuple[str, ...] = ()
    port: int = 0
    #: set once dealt: the advertising node's seat (every node of a table in play
    #: advertises itself, so a lost or restarted player finds any of them); then
    #: ``host_name`` is that node's player and ``fingerprint`` its key's
    seat: int | None = None
    #: once dealt: the name of the table's host (seat 0), to name the table by
    owner: str | None = None

    def to_txt(self) -> dict[str, str]:
        """TXT key/value pairs (each well under the 255-byte limit of RFC 6763 §6.1)."""
        txt = {"v": str(self.version), "id": self.table_id, "host": self.host_name[:63],
               "rules": rules_to_txt(self.rules),
               "seats": str(self.seats), "free": str(self.free), "fp": self.fingerprint}
        if self.seat is not None:
            txt["play"] = "1"
            txt["seat"] = str(self.seat)
            if self.owner is not None:
                txt["owner"] = self.owner[:63]
        return txt

    @classmethod
    def from_txt(cls, txt: dict[str, str | None], *, addresses: tuple[str, ...] = (),
                 port: int = 0) -> TableCard:
        """Parse a TXT record; raises :class:`NotATableCard` if it is not a p2p8s table
        card."""
        try:
            fp, table_id = str(txt.get("fp") or ""), str(txt["id"])
            if not _TABLE_ID.fullmatch(table_id):
                raise ValueError("id")
            owner = txt.get("owner") if txt.get("play") == "1" else None
            return cls(version=int(txt.get("v") or ""),
                       table_id=table_id,
                       host_name=untrusted_text(str(txt.get("host") or "")) or "?",
                       rules=rules_from_txt(txt.get("rules") or ""),
                       seats=int(txt.get("seats") or ""),
                       free=int(txt.get("free") or ""),
                       fingerprint=fp if _FINGERPRINT.fullmatch(fp) else "",
                       addresses=addresses, port=port,
                       seat=int(txt.get("seat") or "") if txt.get("play") == "1" else None,
                       owner=(untrusted_text(owner) or None) if owner is not None else None)
        except Error as exc:
            raise NotATableCard(CardCode.NOT_A_CARD, cause=exc) from None
        except (KeyError, ValueError, TypeError) as exc:
            raise NotATableCard(CardCode.NOT_A_CARD, cause=None,
                                error=type(exc).__name__) from None


#: Short TXT names of the ruleset's options (RULES.md §2); any other option goes by
#: its own name.
_SHORT = {"action_cards": "a", "multi_play": "m", "draw_limit": "d",
          "draw_when_playable": "w", "reshuffle": "r", "hand_size": "h", "target": "t",
          "variant": "v"}
_LONG = {short: name for name, short in _SHORT.items()}


def _txt_value(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def rules_to_txt(rules: Ruleset) -> str:
    """The ruleset as a TXT value: its preset's name, then ``;name=value`` for each
    option that differs from the preset (short names, booleans as 1/0, none as
    nothing), e.g. ``zimbabwe;d=2;h=6;t=200`` — a few dozen bytes, far under the
    255-byte limit of a TXT string (RFC 6763 §6.1).

    >>> rules_to_txt(Ruleset.classic(multi_play=False, target=200))
    'classic;m=0;t=200'
    """
    changes = [f"{_SHORT.get(k, k)}={_txt_value(v)}"
               for k, v in sorted(rules.changes().items())]
    return ";".join([rules.name, *changes])


def rules_from_txt(text: str) -> Ruleset:
    """Inverse of :func:`rules_to_txt`; also reads the JSON object of older cards.
    Raises MalformedInput (a bad preset or option), ValueError or TypeError."""
    if text.startswith("{"):
        return Ruleset.from_dict(json.loads(text))
    name, *changes = text.split(";")
    base = Ruleset.for_preset(name).to_dict()
    data: dict[str, object] = {}
    for change in changes:
        short, _, raw = change.partition("=")
        key = _LONG.get(short, short)
        was = base.get(key)
        value: object
        if raw == "":
            value = None
        elif isinstance(was, bool):
            value = {"1": True, "0": False}[raw]
        elif raw.isdigit():
            value = int(raw)
        else:
            value = raw
        data[key] = value
    return Ruleset.for_preset(name, **data)


#: Name beginnings of interfaces that are rarely the LAN the players share: container
#: bridges, virtual machines' networks, VPN tunnels (their addresses are listed last).
VIRTUAL_INTERFACES = ("docker", "br-", "veth", "virbr", "vmnet", "vboxnet", "lxc",
                      "cni", "flannel", "tun", "tap", "wg", "zt", "tailscale", "utun")


def choose_addresses(found: Sequence[tuple[str, str]], *,
                     limit: int = MAX_ADDRESSES) -> list[str]:
    """The addresses a node lists (its roster entry, its adverts), best first and at
    most ``limit`` (the bound a roster's decoder takes, :data:`~p2p8s.wire.MAX_ADDRESSES`):
    ``found`` is ``(interface name, address text)`` pairs in the order the system gives
    them. Loopback, link-local, multicast, unspecified and repeated addresses are left
    out; then private IPv4 (RFC 1918) on an interface that is not virtual
    (:data:`VIRTUAL_INTERFACES`), private IPv4 on a virtual one, other IPv4, unique
    local IPv6 (RFC 4193), other IPv6; the system's order within each. Only loopback
    (``127.0.0.1``) if there is nothing else.

    >>> choose_addresses([("docker0", "172.17.0.1"), ("lo", "127.0.0.1"),
    ...                   ("eth0", "2001:db8::1"), ("eth0", "192.168.1.5")])
    ['192.168.1.5', '172.17.0.1', '2001:db8::1']
    """
    ranked: dict[str, int] = {}
    for interface, text in found:
        try:
            addr = ipaddress.ip_address(text.split("%", 1)[0])
        except ValueError:
            continue
        if (addr.is_loopback or addr.is_link_local or addr.is_multicast
                or addr.is_unspecified or str(addr) in ranked):
            continue
        virtual = interface.lower().startswith(VIRTUAL_INTERFACES)
        if addr.version == 4:
            rank = (1 if virtual else 0) if any(addr in n for n in _PRIVATE_V4) else 2
        else:
            rank = 3 if addr in _ULA else 4
        ranked[str(addr)] = rank
    best = sorted(ranked, key=ranked.__getitem__)[:limit]  # a stable sort
    return best or ["127.0.0.1"]


_PRIVATE_V4 = [ipaddress.IPv4Network(n) for n in ("10.0.0.0/8", "172.16.0.0/12",
                                                  "192.168.0.0/16")]
_ULA = ipaddress.IPv6Network("fc00::/7")


def lan_addresses() -> list[str]:
    """This machine's addresses to advertise and list in its roster entry, best first
    and at most :data:`~p2p8s.wire.MAX_ADDRESSES` (:func:`choose_addresses` of the
    addresses of every interface, ifaddr)."""
    return choose_addresses([
        (adapter.nice_name or adapter.name,
         ip.ip if isinstance(ip.ip, str) else ip.ip[0])
        for adapter in ifaddr.get_adapters() for ip in adapter.ips])


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def lan_networks() -> list[Network]:
    """The networks this machine's interfaces are on (address and prefix, ifaddr),
    loopback left out."""
    nets: list[Network] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            text = ip.ip if isinstance(ip.ip, str) else ip.ip[0]
            with contextlib.suppress(ValueError):
                net = ipaddress.ip_network(f"{text}/{ip.network_prefix}", strict=False)
                if not net.is_loopback and net not in nets:
                    nets.append(net)
    return nets


@dataclass(frozen=True, slots=True)
class Candidate:
    """One advert's place to try: the ``table_id`` it claims and its ``where``
    (``(address, port)`` pairs, in the order to try)."""

    table_id: str
    where: tuple[tuple[str, int], ...]


def candidates(cards: Sequence[TableCard], *, local: Sequence[Network] = ()
               ) -> list[Candidate]:
    """Where to try the tables of ``cards``: one candidate per advert (its own
    addresses, each with its own port: an advert's addresses never mix with another's,
    even of the same table id), adverts without an address or port left out. In the
    order of ``cards`` (open tables first, :func:`find_tables`), except that of the
    adverts of one table id those with an address on one of the ``local`` networks
    come first; within an advert, addresses on a ``local`` network first, then IPv4.
    """
    def near(address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address.split("%", 1)[0])
        except ValueError:
            return False
        return any(ip in net for net in local)

    out: list[Candidate] = []
    for group in by_table(cards):
        adverts = []
        for card in group:
            if card.port <= 0 or not card.addresses:
                continue
            where = sorted(card.addresses, key=lambda a: (not near(a), ":" in a))
            adverts.append(Candidate(card.table_id, tuple((a, card.port) for a in where)))
        adverts.sort(key=lambda c: not near(c.where[0][0]))
        out += adverts
    return out


def open_zeroconf() -> AsyncZeroconf:
    """The process's one AsyncZeroconf (IPv4 multicast on all interfaces)."""
    return AsyncZeroconf(ip_version=IPVersion.V4Only)


def _instance_name(card: TableCard) -> str:
    label = re.sub(r"[^\w' -]", "", card.host_name)[:40].strip() or "p2p8s"
    if card.seat is not None:
        return f"{label} seat {card.seat} at {card.table_id[:6]}.{SERVICE_TYPE}"
    return f"{label}'s table {card.table_id[:6]}.{SERVICE_TYPE}"


class Advertiser:
    """Publishes one table card; async context manager (unregisters on exit)."""

    def __init__(self, aiozc: AsyncZeroconf, card: TableCard, *, port: int,
                 addresses: list[str] | None = None) -> None:
        self._aiozc = aiozc
        self.card = card
        self._port = port
        self._addresses = addresses if addresses is not None else lan_addresses()
        # the SRV target is this advert's own: two adverts never share the A records
        # of one host name (a copy of the table id would merge its addresses)
        self._target = secrets.token_hex(4)
        self._info = self._service_info(_instance_name(card))

    def _service_info(self, name: str) -> AsyncServiceInfo:
        seat = "" if self.card.seat is None else f"-s{self.card.seat}"
        return AsyncServiceInfo(SERVICE_TYPE, name, port=self._port,
                                properties=self.card.to_txt(),
                                server=f"p2p8s-{self.card.table_id}{seat}-{self._target}.local.",
                                parsed_addresses=self._addresses)

    async def __aenter__(self) -> Advertiser:
        await (await self._aiozc.async_register_service(self._info, allow_name_change=True))
        return self

    async def __aexit__(self, *exc: object) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(
                await self._aiozc.async_unregister_service(self._info), 2.0)

    async def async_update(self, card: TableCard) -> None:
        """Publish a changed card (e.g. fewer free seats)."""
        self.card = card
        self._info = self._service_info(self._info.name)
        await (await self._aiozc.async_update_service(self._info))

    @property
    def addresses(self) -> list[str]:
        """The addresses advertised now (A/AAAA records of the SRV target)."""
        return list(self._addresses)

    async def async_readdress(self, addresses: list[str]) -> None:
        """Advertise ``addresses`` instead (this machine's addresses changed): zeroconf
        first rescans the interfaces (a socket for a new address, none for a gone one;
        zeroconf >= 0.150), then the records are announced again with the cache-flush
        bit, so peers drop the old address (RFC 6762 §10.2)."""
        before, self._addresses = self._addresses, list(addresses)
        try:
            rescan = getattr(self._aiozc, "async_update_interfaces", None)
            if rescan is not None:
                await rescan()
            self._info = self._service_info(self._info.name)
            await (await self._aiozc.async_update_service(self._info))
        except BaseException:
            self._addresses = before  # not advertised: the next look tries again
            raise

    async def async_replace(self, card: TableCard) -> None:
        """Publish ``card`` under its own name instead (the table is dealt: the host
        now advertises itself as a node in play, like every other node)."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(
                await self._aiozc.async_unregister_service(self._info), 2.0)
        self.card = card
        self._info = self._service_info(_instance_name(card))
        await (await self._aiozc.async_register_service(self._info, allow_name_change=True))


async def follow_addresses(advertiser: Advertiser, *, poll_s: float = ADDRESS_POLL_S,
                           addresses: Callable[[], list[str]] = lan_addresses,
                           changed: Callable[[list[str]], None] | None = None) -> None:
    """Keep ``advertiser`` on this machine's current addresses until cancelled: every
    ``poll_s`` seconds compare ``addresses()`` with the advertised ones and, on a
    change, :meth:`Advertiser.async_readdress` (then ``changed(new)`` is called). A
    failed update is tried again at the next look."""
    while True:
        await asyncio.sleep(poll_s)
        now = addresses()
        if sorted(now) == sorted(advertiser.addresses):
            continue
        try:
            await advertiser.async_readdress(now)
        except Exception:  # multicast trouble: the next look tries again
            continue
        if changed is not None:
            changed(now)


async def find_node(aiozc: AsyncZeroconf, table_id_hex: str, seat: int, *,
                    timeout_s: float,
                    avoid: Collection[tuple[str, int]] = ()) -> list[tuple[str, int]]:
    """Where the node at ``seat`` of the table in play with this id listens now, as
    advertised by itself (``[(address, port), …]``; empty if it did not answer), other
    than the addresses in ``avoid``: a (cached) answer with only those is waited past."""
    def match(card: TableCard) -> bool:
        return (card.table_id == table_id_hex and card.seat == seat
                and any((a, card.port) not in avoid for a in card.addresses))

    cards = await browse(aiozc, timeout_s=timeout_s, until=match)
    return [(a, c.port) for c in cards if match(c) for a in c.addresses
            if (a, c.port) not in avoid]


async def browse(aiozc: AsyncZeroconf, *, timeout_s: float,
                 until: Callable[[TableCard], bool] | None = None,
                 settle_s: float = 0.0) -> list[TableCard]:
    """Browse for tables for ``timeout_s`` seconds (or until a card satisfies ``until``,
    then ``settle_s`` seconds more on the same browser, within ``timeout_s``) and return
    their cards, resolved with addresses and port, by host name: one card per service
    heard, none of a service that said goodbye (RFC 6762 §10.1)."""
    found: dict[str, TableCard] = {}
    tasks: set[asyncio.Task[None]] = set()
    done = asyncio.Event()

    async def resolve(zc: Zeroconf, service_type: str, name: str) -> None:
        info = AsyncServiceInfo(service_type, name)
        if not await info.async_request(zc, int(RESOLVE_TIMEOUT_S * 1000)):
            return
        txt: dict[str, Any] = info.decoded_properties
        try:
            card = TableCard.from_txt(txt, addresses=tuple(info.parsed_addresses()),
                                      port=info.port or 0)
        except NotATableCard:
            return
        found[name] = card
        if until is not None and until(card):
            done.set()

    def on_change(zeroconf: Zeroconf, service_type: str, name: str,
                  state_change: ServiceStateChange) -> None:
        if state_change is ServiceStateChange.Removed:
            found.pop(name, None)
            return
        task = asyncio.ensure_future(resolve(zeroconf, service_type, name))
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    loop = asyncio.get_running_loop()
    end = loop.time() + timeout_s
    browser = AsyncServiceBrowser(aiozc.zeroconf, [SERVICE_TYPE], handlers=[on_change])
    try:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done.wait(), timeout_s)
        if done.is_set() and settle_s > 0 and loop.time() < end:
            await asyncio.sleep(min(settle_s, end - loop.time()))
    finally:
        await browser.async_cancel()
        for task in list(tasks):
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return sorted(found.values(), key=lambda c: (c.host_name, c.table_id))


async def find_tables(aiozc: AsyncZeroconf, *, timeout_s: float,
                      settle_s: float = SETTLE_S) -> list[TableCard]:
    """The cards heard within ``timeout_s`` seconds, ``settle_s`` past the first one
    (others answer at about the same time), open tables first, then tables in play;
    empty if none answered. The table id says nothing about the code: a joiner tries
    them all, and a node that proves the code is the table."""
    cards = await browse(aiozc, timeout_s=timeout_s, until=lambda card: True,
                         settle_s=settle_s)
    return sorted(cards, key=lambda c: (c.seat is not None, c.table_id,
                                        c.seat if c.seat is not None else -1))


def by_table(cards: Sequence[TableCard]) -> list[list[TableCard]]:
    """``cards`` grouped by table id, in the order first seen; a table in play has one
    card per node, sorted by seat."""
    groups: dict[str, list[TableCard]] = {}
    for card in cards:
        groups.setdefault(card.table_id, []).append(card)
    return [sorted(g, key=lambda c: -1 if c.seat is None else c.seat)
            for g in groups.values()]


def with_free(card: TableCard, free: int) -> TableCard:
    """A copy of ``card`` with ``free`` seats."""
    return replace(card, free=free)
