"""Where each seat's node listens, and dialling a lost one again (protocol/table.md, "Who
dials").

The :class:`~p2p8s.table.link.Link` decides *whether* this node dials a lost seat (the
higher seat dials the lower; a restarted node dials everyone); a :class:`Redial` does
it, in the background, with backoff (:data:`REDIAL_FIRST_S` doubling to
:data:`REDIAL_MAX_S`, ±25 % jitter): first the addresses known (the roster's, the last
connection's), then — when none answers — where mDNS says it listens now. A connection
made shows up as a ``Connected`` event of the node, which starts the ``sync``.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any

from p2p8s.codes import format_address
from p2p8s.errors import LocalError, RemoteError
from p2p8s.net.lobby import Mesh
from p2p8s.net.node import Connection, JoinRefused
from p2p8s.wire import Role

#: Seconds between dial attempts to a lost peer: from the first, doubling to the last.
REDIAL_FIRST_S = 0.5
REDIAL_MAX_S = 8.0
#: Seconds one dial attempt may take.
DIAL_TIMEOUT_S = 3.0

Address = tuple[str, int]
#: Where else a lost seat may listen now: ``find(seat, known) -> [(host, port), …]``, e.g.
#: by mDNS; it waits for an answer with an address not in ``known`` (a cached record of
#: the old address is no news) and returns only such addresses.
Finder = Callable[[int, Sequence[Address]], Awaitable[list[Address]]]


class Redial:
    """The addresses of ``mesh``'s seats, and the dialling of lost ones while
    ``away(seat)`` holds; ``find`` looks a seat up elsewhere (None: only the addresses
    known); ``rng`` jitters the backoff. ``found_by_mdns`` counts the connections made
    to an address found by ``find``."""

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
        for seat, conn in mesh.peers.items():
            self.note(seat, conn)
        self.where.update(where or {})  # what an earlier run of this table learnt
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self.found_by_mdns = 0

    def note(self, seat: int, conn: Connection) -> None:
        """Remember where ``seat``'s node listens (the address of ``conn``, its hello port)."""
        if conn.hello.port:
            where = (conn.address, conn.hello.port)
            known = self.where.setdefault(seat, [])
            if where in known:
                known.remove(where)
            known.insert(0, where)

    def moved(self, seat: int, conn: Connection) -> str | None:
        """``HOST:PORT`` where ``seat``'s node listens now (``conn``), if not where it did
        at the deal (its address changed), else None."""
        where = (conn.address, conn.hello.port)
        if not conn.hello.port or where in self._dealt_at.get(seat, {where}):
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
        time out."""
        delay = REDIAL_FIRST_S
        node = self.mesh.node
        entry = self.mesh.roster.entry(seat)
        while entry is not None and self._away(seat):
            if entry.key in node.peers:
                return
            known = list(self.where.get(seat, []))
            if await self._attempt(seat, known):
                return
            await asyncio.sleep(delay * (0.75 + 0.5 * self._rng.random()))
            delay = min(delay * 2, REDIAL_MAX_S)

    async def _attempt(self, seat: int, known: list[Address]) -> bool:
        """One round of dialling: the known addresses and, as soon as the look-up finds
        it elsewhere, there too; whether a connection was made."""
        finding = (asyncio.ensure_future(self._find(seat, tuple(known)))
                   if self._find is not None else None)
        waiting: set[asyncio.Future[Any]] = {asyncio.ensure_future(self._try(known)),
                                             *([finding] if finding else [])}
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
                    elif task.result():
                        return True
            return False
        finally:
            for task in waiting:
                task.cancel()

    def _count_found(self, dial: asyncio.Future[bool], _: object) -> None:
        if not dial.cancelled() and dial.exception() is None and dial.result():
            self.found_by_mdns += 1

    async def _try(self, addresses: list[Address]) -> bool:
        """Dial the first of ``addresses`` that answers; whether one did."""
        if not addresses:
            return False
        try:
            await self.mesh.node.connect_any(addresses, role=Role.PEER,
                                             timeout_s=DIAL_TIMEOUT_S)
        except (JoinRefused, LocalError, RemoteError, OSError):
            return False
        return True
