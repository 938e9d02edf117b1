"""Where each seat's node listens, and dialling a lost one again (protocol/table.md, "Who
dials").

The :class:`~p2p8s.table.link.Link` decides *whether* this node dials a lost seat (the
higher seat dials the lower; a restarted node dials everyone); a :class:`Redial` does
it, in the background, with backoff (:data:`REDIAL_FIRST_S` doubling to
:data:`REDIAL_MAX_S`, ±25 % jitter): first the addresses known (the roster's, the last
connection's, then those its peers reported in a ``where``: a restarted node's new port,
protocol/table.md "Who dials"), then — when none answers — where mDNS says it listens
now. A node that
turns an attempt away with a ``busy`` record (protocol/wire.md, "Limits") is there: the
next attempt waits the time it said (at most :data:`~p2p8s.net.handshake.MAX_RETRY_S`,
plus up to :data:`BUSY_JITTER` of it), and the backoff does not grow — a busy answer is
no failure of the address. A connection made shows up as a ``Connected`` event of the
node, which starts the ``sync``.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from p2p8s.codes import format_address
from p2p8s.errors import LocalError, RemoteError
from p2p8s.net.connecting import busy_wait
from p2p8s.net.errors import Unreachable
from p2p8s.net.handshake import MAX_RETRY_S
from p2p8s.net.lobby import Mesh
from p2p8s.net.node import Connection, JoinRefused
from p2p8s.table.sync import WHERE_MAX, Spot
from p2p8s.wire import Role

#: Seconds between dial attempts to a lost peer: from the first, doubling to the last.
REDIAL_FIRST_S = 0.5
REDIAL_MAX_S = 8.0
#: Seconds one dial attempt's handshake may take (a timed-out one is tried again on a
#: fresh connection, :data:`~p2p8s.net.connecting.HANDSHAKE_ATTEMPTS` in all).
DIAL_TIMEOUT_S = 3.0
#: The most added to a ``busy`` record's wait, as a fraction of it (never less: the
#: redial waits at least what the node said).
BUSY_JITTER = 0.25

Address = tuple[str, int]
#: Where else a lost seat may listen now: ``find(seat, known) -> [(host, port), …]``, e.g.
#: by mDNS; it waits for an answer with an address not in ``known`` (a cached record of
#: the old address is no news) and returns only such addresses.
Finder = Callable[[int, Sequence[Address]], Awaitable[list[Address]]]


@dataclass(frozen=True, slots=True)
class Tried:
    """How one round of dialling went: ``connected``, or not and ``busy_s`` the longest
    wait a node that turned it away asked for (None: none said busy)."""

    connected: bool
    busy_s: float | None = None


@dataclass(frozen=True, slots=True)
class Pause:
    """The wait before the next round of dialling (``sleep_s``) and the backoff delay
    after it (``delay_s``), in seconds."""

    sleep_s: float
    delay_s: float


_CONNECTED = Tried(connected=True)
_FAILED = Tried(connected=False)


def _longest(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else max(a, b)


class Redial:
    """The addresses of ``mesh``'s seats, and the dialling of lost ones while
    ``away(seat)`` holds; ``find`` looks a seat up elsewhere (None: only the addresses
    known); ``rng`` jitters the backoff and the busy waits. ``found_by_mdns`` counts the
    connections made to an address found by ``find``; ``busy`` the attempts turned away
    with a ``busy`` record."""

    def __init__(self, mesh: Mesh, *, away: Callable[[int], bool], find: Finder | None,
                 rng: random.Random, where: dict[int, list[Address]] | None = None) -> None:
        self.mesh = mesh
        self._away = away
        self._find = find
        self._rng = rng
        self.where: dict[int, list[Address]] = {
            e.seat: [(a, e.port) for a in e.addrs] for e in mesh.roster.seats}
        #: where each seat listened at the deal (a peer back from elsewhere moved)
        self._dealt_at = {s: set(w) for s, w in self.where.items()}
        #: where each seat's last connection came from (or went to): a peer back there
        #: did not move, even when that is not an address of the roster (a node on this
        #: machine comes from loopback, one behind a NAT from its outside address)
        self._last_at: dict[int, Address] = {}
        for seat, conn in mesh.peers.items():
            self.note(seat, conn)
            if conn.hello.port:
                self._last_at[seat] = (conn.address, conn.hello.port)
        self.where.update(where or {})  # what an earlier run of this table learnt
        #: where the peers' ``where`` payloads say each seat listens (newest first, at
        #: most :data:`~p2p8s.table.sync.WHERE_MAX` a seat): tried after the known ones
        self.reported: dict[int, list[Address]] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self.found_by_mdns = 0
        self.busy = 0

    def note(self, seat: int, conn: Connection) -> None:
        """Remember where ``seat``'s node listens (the address of ``conn``, its hello port)."""
        if conn.hello.port:
            where = (conn.address, conn.hello.port)
            known = self.where.setdefault(seat, [])
            if where in known:
                known.remove(where)
            known.insert(0, where)

    def heard(self, spots: Sequence[Spot], *, sender: int) -> None:
        """Keep where ``sender``'s node says other seats listen (never its own or this
        node's seat: its own connection says that); a hint, dialled after the addresses
        known, at most :data:`~p2p8s.table.sync.WHERE_MAX` a seat."""
        for spot in spots:
            if spot.seat in (sender, self.mesh.seat) or self.mesh.roster.entry(spot.seat) is None:
                continue
            where = (spot.host, spot.port)
            told = [w for w in self.reported.get(spot.seat, []) if w != where]
            self.reported[spot.seat] = [where, *told][:WHERE_MAX]

    def kept(self) -> dict[int, list[Address]]:
        """What to keep for the next run of this table (seat -> addresses, newest
        first): the addresses known, then those the peers reported that are not among
        them — so that a node restarted again still tries where it was told a peer
        listens (:mod:`p2p8s.store.lastseen`)."""
        out = {seat: list(known) for seat, known in self.where.items()}
        for seat, told in self.reported.items():
            known = out.setdefault(seat, [])
            known += [w for w in told if w not in known]
        return out

    def spots(self, *, but: int) -> list[Spot]:
        """Where this node last saw each other seat's node listen (not ``but``'s, not its
        own), for a ``where``."""
        return [Spot(seat=s, host=w[0][0], port=w[0][1]) for s, w in sorted(self.where.items())
                if w and s not in (but, self.mesh.seat)][:WHERE_MAX]

    def moved(self, seat: int, conn: Connection) -> str | None:
        """``HOST:PORT`` where ``seat``'s node listens now (``conn``), if it is new: neither
        where it listened at the deal nor where its last connection was (its address
        changed), else None. ``conn`` is its last connection from now on."""
        where = (conn.address, conn.hello.port)
        if not conn.hello.port:
            return None
        last, self._last_at[seat] = self._last_at.get(seat), where
        if where == last or where in self._dealt_at.get(seat, {where}):
            return None
        return format_address(*where)

    def start(self, seat: int) -> None:
        """Dial ``seat``'s node in the background, unless it is being dialled already."""
        if seat in self._tasks:
            return
        task = asyncio.ensure_future(self._dial(seat))
        self._tasks[seat] = task
        task.add_done_callback(partial(self._done, seat))

    def stop(self, seat: int) -> None:
        """Stop dialling ``seat`` (it is back)."""
        task = self._tasks.pop(seat, None)
        if task is not None:
            task.cancel()

    def close(self) -> None:
        """Stop every dialling."""
        for task in self._tasks.values():
            task.cancel()
        self._tasks.clear()

    def _done(self, seat: int, task: asyncio.Task[None]) -> None:
        if self._tasks.get(seat) is task:
            del self._tasks[seat]

    async def _dial(self, seat: int) -> None:
        """Try the seat's addresses with backoff until a connection is made or it is back
        by itself. The mDNS look-up runs while the known addresses are tried, and an
        address it finds is dialled at once, without waiting for a dead known address to
        time out. Between rounds it waits :meth:`pause`."""
        delay = REDIAL_FIRST_S
        node = self.mesh.node
        entry = self.mesh.roster.entry(seat)
        while entry is not None and self._away(seat):
            if entry.key in node.peers:
                return
            known = list(self.where.get(seat, []))
            known += [w for w in self.reported.get(seat, []) if w not in known]
            tried = await self._attempt(seat, known)
            if tried.connected:
                return
            pause = self.pause(tried, delay)
            await asyncio.sleep(pause.sleep_s)
            delay = pause.delay_s

    def pause(self, tried: Tried, delay_s: float) -> Pause:
        """What follows a round of dialling that made no connection, at backoff
        ``delay_s``: turned away busy (``tried.busy_s``), the wait the node said (at most
        :data:`~p2p8s.net.handshake.MAX_RETRY_S`, as a dialler reads it) plus a random
        part of up to :data:`BUSY_JITTER` of it, so that seats turned away together do not
        come back together, and the backoff unchanged; else ``delay_s`` ±25 % and the
        backoff doubled (to :data:`REDIAL_MAX_S`)."""
        if tried.busy_s is not None:
            wait = min(max(tried.busy_s, 0.0), float(MAX_RETRY_S))
            return Pause(sleep_s=wait * (1.0 + BUSY_JITTER * self._rng.random()),
                         delay_s=delay_s)
        return Pause(sleep_s=delay_s * (0.75 + 0.5 * self._rng.random()),
                     delay_s=min(delay_s * 2, REDIAL_MAX_S))

    async def _attempt(self, seat: int, known: list[Address]) -> Tried:
        """One round of dialling: the known addresses and, as soon as the look-up finds
        it elsewhere, there too; whether a connection was made, else the longest busy
        wait heard."""
        finding = (asyncio.ensure_future(self._find(seat, tuple(known)))
                   if self._find is not None else None)
        waiting: set[asyncio.Future[Any]] = {asyncio.ensure_future(self._try(known)),
                                             *([finding] if finding else [])}
        busy_s: float | None = None
        try:
            while waiting:
                done, waiting = await asyncio.wait(waiting,
                                                   return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    if task is finding:
                        found: list[Address] = []
                        if not task.cancelled() and task.exception() is None:
                            found = [f for f in task.result() if f not in known]
                        if found:
                            dial = asyncio.ensure_future(self._try(found))
                            dial.add_done_callback(partial(self._count_found, dial))
                            waiting.add(dial)
                    elif task.result().connected:
                        return _CONNECTED
                    else:
                        busy_s = _longest(busy_s, task.result().busy_s)
            return Tried(connected=False, busy_s=busy_s)
        finally:
            for task in waiting:
                task.cancel()

    def _count_found(self, dial: asyncio.Future[Tried], _: object) -> None:
        if not dial.cancelled() and dial.exception() is None and dial.result().connected:
            self.found_by_mdns += 1

    async def _try(self, addresses: list[Address]) -> Tried:
        """Dial the first of ``addresses`` that answers; whether one did, else how long
        the nodes that turned it away asked to wait."""
        if not addresses:
            return _FAILED
        try:
            await self.mesh.node.connect_any(addresses, role=Role.PEER,
                                             timeout_s=DIAL_TIMEOUT_S)
        except Unreachable as exc:
            wait = busy_wait(exc, recorded=True)  # a close before a byte: no word
            if wait is None:
                return _FAILED
            self.busy += 1
            return Tried(connected=False, busy_s=float(wait))
        except (JoinRefused, LocalError, RemoteError, OSError):
            return _FAILED
        return _CONNECTED
