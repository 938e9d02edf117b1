"""The lobby: seating joiners at a host's table and building the full mesh.

Host (seat 0): a joiner who passed the handshake (it knows the code) is shown the table
(``roster``: rules and seats); when it answers ``sit`` the host gives it the lowest free
seat (``welcome``) and sends the new roster to everyone seated. Peers connect to each
other as the roster grows — the lower seat dials the higher one (DESIGN.md, "Lobby").
When the host deals, it sends the final roster with ``open = False``; each node waits
until it is connected to every other seat, sends ``echo`` (index 0, the roster digest)
to all, and once every peer's echo matches, hands a :class:`Mesh` to the game runner.

:class:`Seating` is the pure seat bookkeeping; :func:`host_lobby` and :func:`join_lobby`
are the asyncio drivers; :class:`LobbyView` is how they report to the terminal. Errors
carry a :class:`~p2p8s.net.errors.LobbyCode` and data; the CLI says them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from p2p8s.errors import LocalError, RemoteError
from p2p8s.net.connecting import HANDSHAKE_TIMEOUT_S
from p2p8s.net.errors import AlreadySeated, LobbyClosed, LobbyCode, NetCode, TableFull
from p2p8s.net.node import (
    Connected,
    Connection,
    Incoming,
    JoinRefused,
    Lost,
    NetEvent,
    Node,
    Reason,
)
from p2p8s.net.racing import connect_first
from p2p8s.rules import Ruleset
from p2p8s.wire import (
    MAX_NAME,
    Echo,
    Farewell,
    Game,
    Refusal,
    Role,
    Roster,
    RosterBody,
    SeatEntry,
    Sit,
    Welcome,
    message_hash,
    roster_digest,
)

__all__ = ["AlreadySeated", "GameRunner", "LobbyClosed", "LobbyCode", "LobbyView", "Mesh",
           "Seating", "TableFull", "host_lobby", "join_lobby", "unique_name"]

#: Seconds the nodes get to connect to each other once the host deals.
MESH_TIMEOUT_S = 15.0
#: Seconds a joiner waits for the host to show the table or answer ``sit``.
ANSWER_TIMEOUT_S = 10.0
#: Seconds a restarted node let back in spends reaching the other seats.
REJOIN_DIAL_S = 6.0
#: Seconds a seat is kept in the lobby for a player whose connection dropped with no
#: ``bye`` (a Wi-Fi drop, a reset), and that player's node dials the host again
#: (protocol/wire.md, "Lobby and mesh" step 2; issue #11).
LOBBY_GRACE_S = 30.0
#: Seconds between a joiner's dials of a host it lost in the lobby.
REDIAL_EVERY_S = 1.0


# --- pure seat bookkeeping ------------------------------------------------------------

def unique_name(name: str, taken: Iterable[str]) -> str:
    """``name``, or ``name 2``, ``name 3``… if a player of that name (in any case) sits
    already; at most :data:`~p2p8s.wire.MAX_NAME` characters.

    >>> unique_name("Ann", ["ann", "Bob"])
    'Ann 2'
    >>> unique_name("Cat", ["Ann"])
    'Cat'
    """
    used = {t.casefold() for t in taken}
    unique, n = name, 2
    while unique.casefold() in used:
        suffix = f" {n}"
        unique = name[:MAX_NAME - len(suffix)] + suffix
        n += 1
    return unique


class Seating:
    """Who sits where at the host's table (pure; the host's node owns it).

    >>> from p2p8s.rules import Ruleset
    >>> s = Seating(size=3, rules=Ruleset(), host=SeatEntry(seat=0, name="Ann",
    ...             key=bytes(32), addrs=(), port=1))
    >>> s.sit(name="Bob", key=b"b" * 32, addrs=("10.0.0.2",), port=2).seat
    1
    >>> s.roster.free
    1
    """

    def __init__(self, *, size: int, rules: Ruleset, host: SeatEntry,
                 escrow: bool = True) -> None:
        self._roster = Roster(size=size, rules=rules, seats=(replace(host, seat=0),),
                              escrow=escrow)

    @property
    def roster(self) -> Roster:
        """The current roster (seats in seat order)."""
        return self._roster

    def sit(self, *, name: str, key: bytes, addrs: tuple[str, ...], port: int) -> SeatEntry:
        """Seat a player at the lowest free seat and return the entry; a name already at
        the table gets a number (:func:`unique_name`), so every seat reads differently.

        Raises :class:`LobbyClosed` after :meth:`close`, :class:`TableFull` when full,
        :class:`AlreadySeated` for a key that sits already.
        """
        roster = self._roster
        if not roster.open:
            raise LobbyClosed(LobbyCode.ALREADY_DEALT)
        if roster.free <= 0:
            raise TableFull(LobbyCode.ALL_SEATS_TAKEN, seats=roster.size)
        if roster.seat_of(key) is not None:
            raise AlreadySeated(LobbyCode.ALREADY_SEATED)
        taken = {e.seat for e in roster.seats}
        seat = min(set(range(roster.size)) - taken)
        entry = SeatEntry(seat=seat, name=unique_name(name, [e.name for e in roster.seats]),
                          key=key, addrs=addrs, port=port)
        self._roster = replace(roster, seats=tuple(sorted((*roster.seats, entry),
                                                          key=lambda e: e.seat)))
        return entry

    def back(self, key: bytes, *, addrs: tuple[str, ...], port: int) -> tuple[SeatEntry, bool]:
        """The player holding ``key`` is back (on a new connection, from ``addrs`` and
        listening on ``port``): its entry (same seat and name; new addresses if they
        changed) and whether the roster changed. Raises :class:`LobbyClosed` after
        :meth:`close`, KeyError for a key with no seat (a programming error)."""
        roster = self._roster
        if not roster.open:
            raise LobbyClosed(LobbyCode.ALREADY_DEALT)
        seat = roster.seat_of(key)
        if seat is None:
            raise KeyError("no seat holds this key")
        old = roster.entry(seat)
        assert old is not None
        entry = replace(old, addrs=addrs, port=port)
        if entry == old:
            return old, False
        self._roster = replace(roster, seats=tuple(entry if e.seat == seat else e
                                                   for e in roster.seats))
        return entry, True

    def leave(self, key: bytes) -> SeatEntry | None:
        """Free the seat held by ``key`` (not the host's); returns the entry, or None."""
        seat = self._roster.seat_of(key)
        if seat is None or seat == 0 or not self._roster.open:
            return None
        entry = self._roster.entry(seat)
        self._roster = replace(self._roster, seats=tuple(e for e in self._roster.seats
                                                         if e.key != key))
        return entry

    def close(self) -> Roster:
        """Close the lobby (the host deals) and return the final roster."""
        self._roster = replace(self._roster, open=False)
        return self._roster


# --- what the game layer receives -------------------------------------------------------

@dataclass(eq=False, slots=True)
class Mesh:
    """A connected table, handed to the game runner.

    ``node`` is this node (its ``identity`` signs, ``next_event()`` yields further
    :class:`~p2p8s.net.node.Incoming` / :class:`~p2p8s.net.node.Lost` events);
    ``roster`` the final roster; ``seat`` this node's seat; ``peers`` the connection to
    every other seat; ``digest`` the roster digest all nodes echoed.
    """

    node: Node
    roster: Roster
    seat: int
    peers: dict[int, Connection]
    digest: bytes
    early: list[NetEvent] = field(default_factory=list)
    #: this node restarted and was let back in after the deal (:func:`join_lobby`): the
    #: runner rebuilds the table from a peer's log; ``peers`` holds the nodes reached
    rejoined: bool = False
    #: called with the body of each game frame :meth:`post` signs, before the frame goes
    #: to any socket: the runner's table log (a restarted node knows all it sent)
    log: Callable[[bytes], None] | None = None

    def send(self, seat: int, payload: bytes, *, prev: bytes = b"") -> bytes:
        """Send an opaque game ``payload`` to one seat; returns the message hash."""
        return self.node.send(self.peers[seat], Game(to=seat, payload=payload), prev=prev)

    def broadcast(self, payload: bytes, *, prev: bytes = b"") -> bytes:
        """Send the same signed game ``payload`` to every other seat; returns its hash."""
        return self.node.broadcast(Game(to=None, payload=payload), prev=prev,
                                   peers=self.peers.values())

    def post(self, to: int | None, payload: bytes, *, prev: bytes = b"") -> tuple[bytes, bytes]:
        """Sign a game ``payload`` once and send it to seat ``to`` (None: every other
        seat); returns ``(message hash, signed frame body)`` — the body is what a table
        log keeps (the same bytes every recipient receives). The body goes to
        :attr:`log` first, before any socket (protocol/table.md "Coming back"). A seat
        whose connection is missing or closed gets nothing (the runner resends when it
        is back)."""
        frame = self.node.frame(Game(to=to, payload=payload), prev=prev)
        if self.log is not None:
            self.log(frame[4:])
        for seat, conn in list(self.peers.items()):
            if to is None or seat == to:  # a seat not connected now gets nothing
                self.node.send_frame(conn, frame)
        return message_hash(frame[4:]), frame[4:]

    async def next_event(self, timeout_s: float | None = None) -> NetEvent:
        """The next network event (events that arrived during the handshake first)."""
        if self.early:
            return self.early.pop(0)
        return await self.node.next_event(timeout_s)


GameRunner = Callable[[Mesh], Awaitable[None]]


class LobbyView(Protocol):
    """How a lobby reports to the terminal (or a test's recording fake)."""

    def table(self, roster: Roster) -> None:
        """The table as first shown to a joiner (rules, seats)."""

    def sat_down(self, entry: SeatEntry) -> None:
        """Someone took a seat."""

    def left(self, entry: SeatEntry, reason: Reason) -> None:
        """Someone left the lobby, for ``reason``."""

    def away(self, entry: SeatEntry, reason: Reason, grace_s: float) -> None:
        """(Host) a seated player's connection dropped with no ``bye`` (``reason``); its
        seat is kept for ``grace_s`` seconds."""

    def back(self, entry: SeatEntry) -> None:
        """(Host) a player away (:meth:`away`) is back at its seat."""

    def reconnecting(self, reason: Reason, grace_s: float) -> None:
        """(Joiner) the connection to the host dropped with no ``bye`` (``reason``); it
        is dialled again for up to ``grace_s`` seconds."""

    def reconnected(self, entry: SeatEntry) -> None:
        """(Joiner) back at the table after :meth:`reconnecting`, at ``entry`` (its
        seat: the same one, unless the host had freed it meanwhile)."""

    def dealing(self, roster: Roster) -> None:
        """The host dealt; nodes now connect to each other."""


# --- the drivers ---------------------------------------------------------------------

class _Inbox:
    """Merge node events and typed commands without losing any (tasks kept alive)."""

    def __init__(self, node: Node, commands: asyncio.Queue[str] | None) -> None:
        self._node = node
        self._commands = commands
        self._event_task: asyncio.Task[NetEvent] | None = None
        self._command_task: asyncio.Task[str] | None = None

    async def next(self, timeout_s: float | None = None) -> NetEvent | str:
        if self._event_task is None:
            self._event_task = asyncio.ensure_future(self._node.next_event())
        if self._command_task is None and self._commands is not None:
            self._command_task = asyncio.ensure_future(self._commands.get())
        waiting: set[asyncio.Future[NetEvent] | asyncio.Future[str]] = {self._event_task}
        if self._command_task is not None:
            waiting.add(self._command_task)
        done, _ = await asyncio.wait(waiting, timeout=timeout_s,
                                     return_when=asyncio.FIRST_COMPLETED)
        if self._event_task in done:
            event = self._event_task.result()
            self._event_task = None
            return event
        if self._command_task is not None and self._command_task in done:
            command = self._command_task.result()
            self._command_task = None
            return command
        raise TimeoutError

    def close(self) -> None:
        for task in (self._event_task, self._command_task):
            if task is not None:
                task.cancel()


async def host_lobby(node: Node, seating: Seating, *, view: LobbyView,
                     commands: asyncio.Queue[str],
                     on_change: Callable[[Roster], Awaitable[None]] | None = None,
                     mesh_timeout_s: float = MESH_TIMEOUT_S) -> Mesh | None:
    """Run the host's lobby until ``deal`` (or an empty line) arrives on ``commands``;
    then close it and return the :class:`Mesh`. ``quit`` returns None.

    A seated player whose connection drops with no ``bye`` (:func:`dropped`) keeps its
    seat for :data:`LOBBY_GRACE_S` seconds (``view.away``): if the same key connects
    again (role ``join``) and sits within it, it gets that seat back (``welcome`` with
    its seat and the current roster; ``view.back``), else the seat is freed
    (``view.left``, reason ``not-back``). A seat still away when the host deals is
    freed first (reason ``away-at-deal``), so the mesh does not wait for it.

    ``on_change`` is awaited with each new roster (to update the mDNS card).
    Raises :class:`~p2p8s.errors.Error` if the mesh cannot be completed.
    """
    node.seat = 0
    loop = asyncio.get_running_loop()
    inbox = _Inbox(node, commands)
    shown: dict[bytes, Connection] = {}
    seated: dict[bytes, Connection] = {}
    away: dict[bytes, float] = {}  # a seat kept for a dropped player: key -> deadline (s)
    echoes: dict[bytes, bytes] = {}

    async def free(key: bytes, reason: Reason, *, tell: bool = True) -> None:
        """Free ``key``'s seat (it left, or is away for good) and say so."""
        gone = seating.leave(key)
        node.members = frozenset(e.key for e in seating.roster.seats)
        if gone is None:
            return
        if tell:
            node.broadcast(RosterBody(roster=seating.roster), peers=seated.values())
        view.left(gone, reason)
        if tell and on_change is not None:
            await on_change(seating.roster)

    try:
        while True:
            now = loop.time()
            for key in [k for k, until in away.items() if until <= now]:
                del away[key]
                await free(key, Reason(LobbyCode.NOT_BACK, {"grace_s": LOBBY_GRACE_S}))
            try:
                item = await inbox.next(max(0.0, min(away.values()) - now) if away
                                        else None)
            except TimeoutError:
                continue  # a grace ran out
            if isinstance(item, str):
                word = item.strip().lower()
                if word in ("", "deal", "d", "start"):
                    break
                if word in ("quit", "q", "exit"):
                    return None
                continue
            match item:
                case Connected(peer=conn):
                    if conn.hello.role is not Role.JOIN:
                        node.close_peer(conn, Refusal.IN_LOBBY)
                    elif seating.roster.free <= 0 and conn.key not in away:
                        node.close_peer(conn, Refusal.FULL, seats=seating.roster.size)
                    else:
                        if conn.key in away:  # back: a moment to sit (it does at once)
                            away[conn.key] = max(away[conn.key],
                                                 loop.time() + ANSWER_TIMEOUT_S)
                        shown[conn.key] = conn
                        node.send(conn, RosterBody(roster=seating.roster))
                case Incoming(peer=conn, received=rec) if isinstance(rec.message.body, Sit):
                    if shown.get(conn.key) is not conn:
                        continue
                    if conn.key in away:
                        entry, moved = seating.back(conn.key, addrs=(conn.address,),
                                                    port=conn.hello.port)
                        del away[conn.key], shown[conn.key]
                        seated[conn.key] = conn
                        conn.set_seat(entry.seat)
                        node.send(conn, Welcome(seat=entry.seat, roster=seating.roster))
                        view.back(entry)
                        if moved:  # a new address: the others dial it there
                            node.broadcast(RosterBody(roster=seating.roster),
                                           peers=[c for k, c in seated.items()
                                                  if k != conn.key])
                            if on_change is not None:
                                await on_change(seating.roster)
                        continue
                    try:
                        entry = seating.sit(name=conn.name, key=conn.key,
                                            addrs=(conn.address,), port=conn.hello.port)
                    except LocalError as exc:
                        refusal = _refusal(exc)
                        node.close_peer(conn, refusal, seats=seating.roster.size
                                        if refusal is Refusal.FULL else None)
                        continue
                    del shown[conn.key]
                    seated[conn.key] = conn
                    conn.set_seat(entry.seat)
                    node.members = frozenset(e.key for e in seating.roster.seats)
                    node.send(conn, Welcome(seat=entry.seat, roster=seating.roster))
                    node.broadcast(RosterBody(roster=seating.roster),
                                   peers=[c for k, c in seated.items() if k != conn.key])
                    view.sat_down(entry)
                    if on_change is not None:
                        await on_change(seating.roster)
                case Incoming(peer=conn, received=rec) if isinstance(rec.message.body, Echo):
                    echoes[conn.key] = rec.message.body.digest
                case Lost(peer=conn, reason=reason):
                    if shown.get(conn.key) is conn:
                        del shown[conn.key]
                    if seated.get(conn.key) is not conn:
                        continue  # not seated, or an old connection of a seated key
                    del seated[conn.key]
                    seat = seating.roster.seat_of(conn.key)
                    held = seating.roster.entry(seat) if seat is not None else None
                    if dropped(item) and held is not None:  # a drop: the seat waits
                        away[conn.key] = loop.time() + LOBBY_GRACE_S
                        view.away(held, reason, LOBBY_GRACE_S)
                        continue
                    await free(conn.key, reason)
        for key in list(away):  # the mesh does not wait for a seat that is not back
            del away[key]
            await free(key, Reason(LobbyCode.AWAY_AT_DEAL), tell=False)
        roster = seating.close()
        for conn in shown.values():
            node.close_peer(conn, Refusal.CLOSED)
        node.broadcast(RosterBody(roster=roster), peers=seated.values())
        view.dealing(roster)
        return await _complete_mesh(node, roster, 0, inbox, echoes,
                                    timeout_s=mesh_timeout_s)
    finally:
        inbox.close()


async def join_lobby(node: Node, addresses: Iterable[tuple[str, int]], *, view: LobbyView,
                     confirm: Callable[[Roster], Awaitable[bool]],
                     mesh_timeout_s: float = MESH_TIMEOUT_S,
                     groups: Sequence[Sequence[tuple[str, int]]] | None = None,
                     dial_timeout_s: float = HANDSHAKE_TIMEOUT_S,
                     slow: Callable[[int], None] | None = None) -> Mesh | None:
    """Join the table at the first of ``addresses`` that answers — or, given
    ``groups`` (one advert's addresses each), at the first advert that proves the
    code, all dialled at once (:func:`~p2p8s.net.racing.connect_first`, ``slow``) —
    show its rules (``view.table``), ask ``confirm``, sit, follow the roster and
    connect to the other seats; return the :class:`Mesh` once the host deals (None if
    ``confirm`` said no). ``dial_timeout_s``: each address's handshake.

    Once seated, a host connection that drops with no ``bye`` (:func:`dropped`) is
    dialled again at the host's address(es), every :data:`REDIAL_EVERY_S` seconds,
    for up to :data:`LOBBY_GRACE_S` (``view.reconnecting``); on the new connection
    this node sits again at once (no second ``confirm``) and, welcomed, carries on
    (``view.reconnected``): the roster is followed and the dials to the other seats
    already started stay.

    Raises :class:`~p2p8s.net.node.JoinRefused` (wrong code, full; a refusal on a
    new connection too: full, dealt), :class:`~p2p8s.net.node.Unreachable`, or
    :class:`~p2p8s.errors.LocalError` if the host leaves (``host-left``: a ``bye``, or
    no connection back within the grace, reason ``not-back``).
    """
    tried = [list(addresses)] if groups is None else [list(g) for g in groups]
    host = await connect_first(node, tried, role=Role.JOIN, timeout_s=dial_timeout_s,
                               slow=slow)
    if host.hello.role is Role.HOST:
        host.set_seat(0)
    again = _host_addresses(tried, host)
    loop = asyncio.get_running_loop()
    inbox = _Inbox(node, None)
    echoes: dict[bytes, bytes] = {}
    roster: Roster | None = None
    shown: Roster | None = None  # the table as shown before sitting down
    dialling: dict[bytes, asyncio.Task[None]] = {}
    lost: list[Lost] = []
    away_until: float | None = None  # seated, the host lost with no bye: the grace's end
    redial: asyncio.Task[None] | None = None
    try:
        while True:
            timeout = None if node.seat is not None else ANSWER_TIMEOUT_S
            if away_until is not None:
                timeout = away_until - loop.time()
                if timeout <= 0:
                    raise LocalError(LobbyCode.HOST_LEFT, reason=Reason(
                        LobbyCode.NOT_BACK, {"grace_s": LOBBY_GRACE_S}))
            try:
                item = await inbox.next(timeout)
            except TimeoutError:
                if away_until is not None:
                    continue
                raise LocalError(LobbyCode.NO_ANSWER) from None
            assert not isinstance(item, str)
            match item:
                case Connected(peer=conn) if away_until is not None and conn.key == host.key:
                    host = conn  # the host again: its roster comes next, and this node
                    if conn.hello.role is Role.HOST:  # sits again at once
                        host.set_seat(0)
                    away_until = max(away_until, loop.time() + ANSWER_TIMEOUT_S)
                case Incoming(peer=conn, received=rec) if (conn is host
                                                              and away_until is not None):
                    body = rec.message.body
                    if isinstance(body, RosterBody) and body.roster.open:
                        node.send(host, Sit())
                    elif isinstance(body, Welcome) and body.roster.open:
                        away_until = None
                        if redial is not None:
                            redial.cancel()
                        node.seat = body.seat  # the same seat, unless the host freed it
                        roster = _follow(node, roster, body.roster, view, dialling)
                        me = body.roster.entry(body.seat)
                        assert me is not None
                        view.reconnected(me)
                case Incoming(peer=conn, received=rec) if conn is host:
                    body = rec.message.body
                    if isinstance(body, Welcome) and node.seat is None and not body.roster.open:
                        # the game has started and this key holds a seat: a node of the
                        # table lets it back in (it restarted)
                        return await _rejoin_mesh(node, host, body, inbox,
                                                  timeout_s=REJOIN_DIAL_S)
                    if isinstance(body, Welcome):
                        node.seat = body.seat
                        before = roster or shown
                        # who sat down while this person looked at the table is said too
                        roster = _follow(node, before, body.roster, view, dialling)
                        if before is not None and before.seat_of(node.key) is not None:
                            # its seat was kept (this node restarted in the lobby)
                            me = body.roster.entry(body.seat)
                            assert me is not None
                            view.sat_down(me)
                    elif isinstance(body, RosterBody):
                        if roster is None and node.seat is None:
                            view.table(body.roster)
                            shown = body.roster
                            answer = asyncio.ensure_future(confirm(body.roster))
                            try:  # a person is answering: no timeout, but host news ends it
                                if not await _while_connected(answer, host):
                                    if host.closed:
                                        raise LocalError(LobbyCode.CLOSED_BEFORE_SEATED)
                                    node.close_peer(host, Farewell.CHANGED_MIND)
                                    return None
                            finally:
                                answer.cancel()
                            node.send(host, Sit())
                            continue
                        roster = _follow(node, roster, body.roster, view, dialling)
                    elif isinstance(body, Echo):
                        echoes[conn.key] = body.digest
                    if roster is not None and not roster.open:
                        break
                case Incoming(peer=conn, received=rec) if isinstance(rec.message.body, Echo):
                    echoes[conn.key] = rec.message.body.digest
                case Connected(peer=conn):
                    if roster is not None and (seat := roster.seat_of(conn.key)) is not None:
                        conn.set_seat(seat)
                case Lost(peer=conn, reason=reason) if conn is host:
                    if node.seat is not None and dropped(item):
                        # a Wi-Fi drop, a reset: the host keeps the seat for a while
                        if away_until is None:
                            away_until = loop.time() + LOBBY_GRACE_S
                            view.reconnecting(reason, LOBBY_GRACE_S)
                        if redial is None or redial.done():
                            redial = asyncio.ensure_future(_redial(
                                node, again, timeout_s=dial_timeout_s))
                        continue
                    if reason.code is NetCode.BAD_DATA:  # not a refusal: this node's limit
                        raise LocalError(LobbyCode.UNREADABLE, reason=reason)
                    if node.seat is None or (away_until is not None and isinstance(
                            reason.code, Refusal)):  # a new connection refused: full, dealt
                        refusal = reason.code if isinstance(reason.code, Refusal) else None
                        raise JoinRefused(LobbyCode.TABLE_REFUSED, refusal=refusal,
                                          reason=reason)
                    raise LocalError(LobbyCode.HOST_LEFT, reason=reason)
                case Lost(peer=conn) if conn.key == host.key:
                    pass  # an old connection to the host
                case Lost():
                    lost.append(item)  # another seat: the mesh's concern once dealt
        assert roster is not None and node.seat is not None
        view.dealing(roster)
        return await _complete_mesh(node, roster, node.seat, inbox, echoes,
                                    timeout_s=mesh_timeout_s, dialling=dialling, held=lost)
    finally:
        inbox.close()
        if redial is not None:
            redial.cancel()
        for task in dialling.values():
            task.cancel()


def _host_addresses(tried: Sequence[Sequence[tuple[str, int]]],
                    host: Connection) -> list[tuple[str, int]]:
    """Where to dial ``host`` again: the ``(address, port)`` pairs tried that have its
    address (the one that answered), else all of them."""
    flat = list(dict.fromkeys(a for group in tried for a in group))
    return [a for a in flat if a[0] == host.address] or flat


async def _redial(node: Node, addresses: Sequence[tuple[str, int]], *,
                  timeout_s: float) -> None:
    """Dial the host at ``addresses`` (role ``join``) until a connection is made (its
    :class:`~p2p8s.net.node.Connected` event follows), an attempt at most every
    :data:`REDIAL_EVERY_S` seconds, each handshake within ``timeout_s``; the caller
    cancels it when its grace ends. A refusal after the handshake is a
    :class:`~p2p8s.net.node.Lost` event; failures before it are tried again (a
    ``duplicate``: the host has not yet seen the old connection end)."""
    loop = asyncio.get_running_loop()
    while True:
        started = loop.time()
        try:
            await node.connect_any(addresses, role=Role.JOIN, timeout_s=timeout_s)
            return
        except (LocalError, RemoteError):
            pass
        await asyncio.sleep(max(0.0, REDIAL_EVERY_S - (loop.time() - started)))


async def _rejoin_mesh(node: Node, first: Connection, welcome: Welcome, inbox: _Inbox, *,
                       timeout_s: float) -> Mesh:
    """This node restarted and ``first`` (a node in play) let it back in at
    ``welcome.seat``: dial every other seat of the final roster it can reach (some may
    be gone) within ``timeout_s`` and return the :class:`Mesh` with ``rejoined`` set.
    Events that arrive meanwhile are kept for the runner (``early``)."""
    roster = welcome.roster
    node.seat = welcome.seat
    first.set_seat(roster.seat_of(first.key))
    others = [e for e in roster.seats if e.seat != welcome.seat and e.key != first.key]
    tasks = [asyncio.ensure_future(_dial(node, entry, attempts=3)) for entry in others]
    early: list[NetEvent] = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    try:
        while not all(t.done() for t in tasks) and loop.time() < deadline:
            try:
                item = await inbox.next(min(0.1, max(0.0, deadline - loop.time())))
            except TimeoutError:
                continue
            if isinstance(item, Connected):
                seat = roster.seat_of(item.peer.key)
                if seat is None:
                    node.close_peer(item.peer, Refusal.NOT_SEATED)
                else:
                    item.peer.set_seat(seat)
            elif not isinstance(item, str):
                early.append(item)
    finally:
        for task in tasks:
            task.cancel()
    peers = {seat: conn for key, conn in node.peers.items()
             if (seat := roster.seat_of(key)) is not None and seat != welcome.seat}
    for conn in peers.values():
        conn.set_seat(roster.seat_of(conn.key))
    return Mesh(node=node, roster=roster, seat=welcome.seat, peers=peers,
                digest=roster_digest(roster), early=early, rejoined=True)


async def _while_connected(answer: asyncio.Future[bool], host: Connection) -> bool:
    """The person's answer, or False if the host connection drops meanwhile."""
    while not host.closed:
        done, _ = await asyncio.wait({answer}, timeout=0.2)
        if done:
            return answer.result()
    return False


def _follow(node: Node, old: Roster | None, new: Roster, view: LobbyView,
            dialling: dict[bytes, asyncio.Task[None]]) -> Roster:
    """Apply a roster update on a joiner: report changes, label connections, dial the
    higher seats (the lower seat dials)."""
    before = {e.key: e for e in old.seats} if old is not None else {}
    after = {e.key: e for e in new.seats}
    node.members = frozenset(after)
    for key, entry in after.items():
        if key not in before and (old is not None or key == node.key):
            view.sat_down(entry)
    for key, entry in before.items():
        if key not in after:
            view.left(entry, Reason(Farewell.LEFT))
            task = dialling.pop(key, None)
            if task is not None:
                task.cancel()
    for key, conn in node.peers.items():
        if key in after:
            conn.set_seat(after[key].seat)
    me = node.seat
    for entry in new.seats:
        task = dialling.get(entry.key)
        if (me is not None and entry.seat > me and entry.key not in node.peers
                and (task is None or task.done())):  # a connection lost: dialled again
            dialling[entry.key] = asyncio.ensure_future(_dial(node, entry))
    return new


async def _dial(node: Node, entry: SeatEntry, *, attempts: int = 20) -> None:
    """Connect to a higher seat, retrying for a while (its listener may be starting)."""
    for attempt in range(attempts):
        if entry.key in node.peers:
            return
        try:
            conn = await node.connect_any([(a, entry.port) for a in entry.addrs],
                                          role=Role.PEER, timeout_s=3.0)
            conn.set_seat(entry.seat)
            return
        except (LocalError, RemoteError):
            await asyncio.sleep(min(0.1 * 2**attempt, 1.0))


# A lost connection that is the link's doing, not the person's (no bye, no bad data).
_DROPS = frozenset({NetCode.CONNECTION_CLOSED, NetCode.CONNECTION_ERROR, NetCode.NO_HEARTBEAT,
                    NetCode.BAD_DATA})


def dropped(lost: Lost) -> bool:
    """Whether ``lost`` is a drop — the connection ended with no ``bye`` or refusal and
    no evidence against the peer (a reset, silence, a frame cut short): the node may
    be back on a new connection (issue #11)."""
    return lost.error is None and lost.reason.code in _DROPS


async def _complete_mesh(node: Node, roster: Roster, seat: int, inbox: _Inbox,
                         echoes: dict[bytes, bytes], *, timeout_s: float,
                         dialling: dict[bytes, asyncio.Task[None]] | None = None,
                         held: Sequence[Lost] = ()) -> Mesh:
    """Wait for a connection to every other seat, echo the roster digest, and wait for
    every peer's matching echo. A connection that drops meanwhile, or dropped before
    the deal came (:func:`dropped`: a handshake timed out at the other end, a Wi-Fi
    drop), is dialled again by the lower seat, and the echo goes out again on the new
    one (protocol/wire.md, "Lobby and mesh" step 4). ``dialling``: the lobby's dials
    still under way, by key (none is started twice); ``held``: connections to other
    seats the lobby lost, taken first. Raises RemoteError on a mismatch, LocalError on
    timeout (naming who is not connected or not echoed) or when a seat leaves (a
    ``bye``)."""
    digest = roster_digest(roster)
    others = {e.key: e for e in roster.seats if e.seat != seat}
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    echoed: dict[bytes, Connection] = {}  # the connection each peer's echo went out on
    redials: dict[bytes, asyncio.Task[None]] = dialling if dialling is not None else {}
    early: list[NetEvent] = []
    conns: dict[bytes, Connection] = {}  # kept even if a ready peer leaves at once
    backlog: list[NetEvent | str] = list(held)
    try:
        while True:
            for key, entry in others.items():
                task = redials.get(key)
                if entry.seat > seat and key not in node.peers and (
                        task is None or task.done()):
                    redials[key] = asyncio.ensure_future(_dial(node, entry))
            for key, conn in node.peers.items():
                if key in others:
                    conn.set_seat(others[key].seat)
                    conns[key] = conn
            for key, theirs in echoes.items():
                if key in others and theirs != digest:
                    raise RemoteError(LobbyCode.OTHER_ROSTER, seat=others[key].seat,
                                      name=others[key].name)
            if all(k in node.peers for k in others):
                fresh = [node.peers[k] for k in others if echoed.get(k) is not node.peers[k]]
                if fresh:
                    node.broadcast(Echo(index=0, digest=digest), peers=fresh)
                    echoed.update((c.key, c) for c in fresh)
            if len(echoed) == len(others) and all(k in echoes for k in others):
                peers = {others[k].seat: conns[k] for k in others}
                return Mesh(node=node, roster=roster, seat=seat, peers=peers,
                            digest=digest, early=early)
            remaining = deadline - loop.time()
            if remaining <= 0:
                missing = [e.name for k, e in others.items()
                           if k not in node.peers or k not in echoes]
                raise LocalError(LobbyCode.MESH_TIMEOUT, names=tuple(missing))
            try:
                item = backlog.pop(0) if backlog else await inbox.next(remaining)
            except TimeoutError:
                continue
            match item:
                case Incoming(peer=conn, received=rec) if isinstance(rec.message.body, Echo):
                    echoes[conn.key] = rec.message.body.digest
                case Incoming(peer=conn, received=rec) if isinstance(rec.message.body,
                                                                     RosterBody):
                    pass
                case Incoming():
                    early.append(item)
                case Connected(peer=conn) if conn.key not in others:
                    node.close_peer(conn, Refusal.NOT_SEATED)
                case Lost(peer=conn, reason=reason) if conn.key in others:
                    entry = others[conn.key]
                    if echoes.get(conn.key) == digest and echoed.get(conn.key) is conn:
                        early.append(item)  # both echoed, then it left: the game layer's
                        continue           # (a node in play answers a late echo)
                    if conn.key in node.peers:
                        continue  # an old connection: a new one took its place
                    if not dropped(item):
                        raise LocalError(LobbyCode.LEFT_BEFORE_START, name=entry.name,
                                         seat=entry.seat, reason=reason)
                    echoed.pop(conn.key, None)  # the lower seat dials it again (above)
    finally:
        for task in redials.values():
            task.cancel()


def _refusal(exc: LocalError) -> Refusal:
    """The refusal a joiner gets when :meth:`Seating.sit` raised ``exc``."""
    if isinstance(exc, LobbyClosed):
        return Refusal.CLOSED
    if isinstance(exc, AlreadySeated):
        return Refusal.SEATED
    return Refusal.FULL
