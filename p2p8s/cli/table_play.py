"""A friends' table in this terminal, around the runner: the lobby's lines, and the
runner that plays a dealt table here and keeps its mDNS card.

:class:`LobbyLines` prints the lobby (:mod:`p2p8s.net.lobby`) for people;
:func:`seated_lobby` answers what a seated joiner types there. When the host
deals, every node hands the full mesh to a game runner (:func:`table_runner`, installed
as :data:`GAME_RUNNER`): the replicated table (:mod:`p2p8s.net.runner`) drawn by
:class:`~p2p8s.cli.table_view.TableScreen`, with this node advertised in play
(:func:`play_card`) so a lost peer finds it again; :class:`CardUpdates` keeps the open
table's card up to date meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import sys
import threading
from collections.abc import Awaitable, Callable, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any

from p2p8s.cli.comeback import come_back_command
from p2p8s.cli.grace import GONE_GRACE_S
from p2p8s.cli.lines import say
from p2p8s.cli.words import PLAIN
from p2p8s.cli.words.net import Line
from p2p8s.cli.words.rules import describe_changes, describe_rules
from p2p8s.codes import fingerprint, normalize_code
from p2p8s.errors import Note
from p2p8s.net.discovery import (
    Advertiser,
    MdnsHandle,
    TableCard,
    find_node,
    follow_addresses,
    open_zeroconf,
    with_free,
)
from p2p8s.net.lobby import GameRunner, Mesh
from p2p8s.net.node import Reason
from p2p8s.net.redial import Finder
from p2p8s.net.runner import EOF_MARK, LINGER_S, Options, play_table
from p2p8s.rules import Ruleset
from p2p8s.store.lastseen import load_where, mark_ended, save_where
from p2p8s.wire import VERSION, Roster, SeatEntry

if TYPE_CHECKING:
    from p2p8s.cli.table_view import TableScreen

#: Seconds between two looks at the clock for the screen's held lines.
TICK_S = 0.5
#: The computer player that takes your seat with a bare ``--auto``.
AUTO_DEFAULT = "expert"
#: Seconds one mDNS look-up for a lost peer may take (it runs while the known addresses
#: are dialled, and waits past a cached answer with only those).
FIND_PEER_S = 5.0


def where_key(code: str) -> bytes:
    """The name under which this node keeps where a table's seats listened
    (:mod:`p2p8s.store.lastseen`), found again from the code alone: the table id is
    random and the code is all a player types. ``H("p2p8s/v3/where" ‖ code)[:8]``; it
    stays on this disk (never on the network)."""
    return hashlib.sha256(b"p2p8s/v3/where" + normalize_code(code).encode()).digest()[:8]



def say_changes(rules: Ruleset, seats: int) -> None:
    """Say the house rules changed from the preset, if any (the lobby, the host)."""
    changes = describe_changes(rules, players=seats)
    if changes:
        say(Line.HOUSE_RULES, preset=rules.name, changes=changes)



def stdin_lines() -> asyncio.Queue[str]:
    """Lines typed on stdin, as a queue on the running loop; :data:`EOF_MARK` at the end.

    A daemon thread reads, so any stdin works (tty, pipe, file, /dev/null) and a
    blocked read never delays exit.
    """
    queue: asyncio.Queue[str] = asyncio.Queue()
    loop = asyncio.get_running_loop()

    def pump() -> None:
        try:
            for line in sys.stdin:
                loop.call_soon_threadsafe(queue.put_nowait, line)
        except (OSError, ValueError):
            pass
        with contextlib.suppress(RuntimeError):  # the loop may be closed already
            loop.call_soon_threadsafe(queue.put_nowait, EOF_MARK)

    threading.Thread(target=pump, name="p2p8s-stdin", daemon=True).start()
    return queue


def play_card(mesh: Mesh) -> TableCard:
    """The mDNS card of this node in play: table id (never the code), its seat, name and
    key fingerprint, so a peer that lost it (or a restarted player) finds it again."""
    entry, host = mesh.roster.entry(mesh.seat), mesh.roster.entry(0)
    return TableCard(version=VERSION, table_id=mesh.node.table.hex(),
                     host_name=entry.name if entry is not None else mesh.node.name,
                     rules=mesh.roster.rules, seats=mesh.roster.size, free=0,
                     fingerprint=fingerprint(mesh.node.key), seat=mesh.seat,
                     owner=host.name if host is not None else None)


def _finder(aiozc: MdnsHandle, table: bytes) -> Finder:
    async def find(seat: int, known: Sequence[tuple[str, int]]) -> list[tuple[str, int]]:
        return await find_node(aiozc, table.hex(), seat, timeout_s=FIND_PEER_S, avoid=known)

    return find


def _finder_when_ready(ready: asyncio.Future[MdnsHandle | None], table: bytes) -> Finder:
    """A peer finder (as :func:`_finder`) on the mDNS handle ``ready`` brings once the
    advertiser has one (no addresses if mDNS is unavailable). A look cut short (its
    caller's timeout) leaves ``ready`` as it is: cancelling it would make the advertiser
    fail when it sets it ("invalid state", newcomer QA) and stop advertising."""

    async def find(seat: int, known: Sequence[tuple[str, int]]) -> list[tuple[str, int]]:
        zc = await asyncio.shield(ready)
        return [] if zc is None else await _finder(zc, table)(seat, known)

    return find


def _moved(addresses: list[str]) -> None:
    say(Line.ADDRESS_CHANGED, err=True, addresses=tuple(addresses))


async def _advertise_in_play(mesh: Mesh, ready: asyncio.Future[MdnsHandle | None]) -> None:
    """Advertise this node in play until cancelled, following this machine's address
    changes (:func:`~p2p8s.net.discovery.follow_addresses`); mDNS errors are reported
    once."""
    try:
        async with open_zeroconf() as aiozc, Advertiser(aiozc, play_card(mesh),
                                                        port=mesh.node.port) as advertiser:
            ready.set_result(aiozc)
            await follow_addresses(advertiser, changed=_moved)
    except Exception as exc:  # multicast may be unavailable: the roster addresses remain
        if not ready.done():
            ready.set_result(None)
        say(Line.NO_MDNS_IN_PLAY, err=True, error=str(exc))


class CardUpdates:
    """The open table's mDNS card kept up to date in the background, so that a seat
    taken does not hold up the lobby (an mDNS update takes half a second): the latest
    roster wins; :meth:`stop` ends the updates, waiting for the one in flight."""

    def __init__(self, advertiser: Advertiser, card: TableCard) -> None:
        self.advertiser, self.card = advertiser, card
        self.latest: TableCard | None = None
        self.task: asyncio.Task[None] | None = None
        self.stopped = False

    async def change(self, roster: Roster) -> None:
        """The lobby's ``on_change``: publish the roster's free seats (returns at once)."""
        self.latest = with_free(self.card, roster.free)
        if not self.stopped and (self.task is None or self.task.done()):
            self.task = asyncio.ensure_future(self._publish())

    async def _publish(self) -> None:
        while self.latest is not None and not self.stopped:
            card, self.latest = self.latest, None
            with contextlib.suppress(Exception):
                await self.advertiser.async_update(card)

    async def stop(self) -> None:
        """No more updates; returns once the one in flight is done."""
        self.stopped = True
        if self.task is not None:
            with contextlib.suppress(Exception):
                await self.task


async def _in_play(advertiser: Advertiser, mesh: Mesh, *, replace: bool,
                   settle: Callable[[], Awaitable[None]] | None = None) -> None:
    """Follow this machine's address changes with ``advertiser``; ``replace``: first
    advertise the node in play instead of the open table (after ``settle``: the open
    table's updates are over), in the background: the first deal does not wait for
    mDNS, which takes seconds."""
    if replace:
        if settle is not None:
            await settle()
        try:  # dealt: the host is a node in play like the others
            await advertiser.async_replace(play_card(mesh))
        except Exception as exc:
            say(Line.NO_MDNS_PLAY_CARD, err=True, error=str(exc))
    await follow_addresses(advertiser, changed=_moved)


async def _tick(screen: TableScreen, loop: asyncio.AbstractEventLoop) -> None:
    """Give ``screen`` the clock now and then, so a held drop is said once its grace is
    over even when nothing else happens (:meth:`TableScreen.tick`)."""
    while True:
        await asyncio.sleep(TICK_S)
        screen.tick(loop.time())


def table_runner(*, auto: str | None = None, rounds: int | None = None,
                 ascii: bool = False, lines: asyncio.Queue[str] | None = None,
                 mdns: bool = False, aiozc: MdnsHandle | None = None,
                 advertiser: Advertiser | None = None, code: str | None = None,
                 replace_card: bool = False,
                 settle: Callable[[], Awaitable[None]] | None = None) -> GameRunner:
    """A game runner that plays the dealt table in this terminal.

    ``auto`` (a personality; ``""`` = the expert) lets the computer play the local seat,
    ``rounds`` stops after that many rounds, ``lines`` are the typed lines (default: a
    fresh reader of stdin). ``mdns`` advertises this node in play (:func:`play_card`)
    and looks lost peers up by mDNS; ``aiozc``: the caller advertises, look up with it
    (its ``advertiser``, if given, then follows this machine's address changes; with
    ``replace_card`` it first advertises this node in play, in the background, once
    ``settle`` returns).
    ``code``: the table code, to tell a lost player how to come back through this node.
    Raises :class:`~p2p8s.errors.LocalError` subclasses when the match cannot go on
    without a player who left, or the table fails.
    """
    from p2p8s.cli.table_view import TableScreen
    from p2p8s.cli.terminal import Terminal, linger_for
    from p2p8s.solo import get_bot

    bot = get_bot(auto or AUTO_DEFAULT) if auto is not None else None

    async def run(mesh: Mesh) -> None:
        term = Terminal(ascii=ascii)
        loop = asyncio.get_running_loop()
        screen = TableScreen(term, me=mesh.seat, grace_s=GONE_GRACE_S, clock=loop.time)
        kept = mesh.node.table if code is None else where_key(code)
        options = Options(auto=bot, rounds=rounds, auto_delay_s=term.pace_s if bot else 0.0,
                          linger_s=linger_for(LINGER_S),
                          remember=functools.partial(save_where, kept),
                          where=load_where(kept) if mesh.rejoined else None,
                          waiting=lambda said: screen.say(PLAIN.note(
                              Note(said.code, {**said.params, "mdns": screen.mdns}))))
        if code is not None:  # how a lost player comes back: through this node, at the
            # address the table reached it at (the roster's) while it has it, else at
            # the one it has when the hint is said
            entry = mesh.roster.entry(mesh.seat)
            screen.come_back = come_back_command(
                code, entry.addrs if entry is not None else (), mesh.node.port,
                mdns=mdns or aiozc is not None)
            options.come_back = screen.come_back()
        advertising: asyncio.Task[None] | None = None
        ticking = asyncio.ensure_future(_tick(screen, loop))
        if aiozc is not None:
            options.find_peer = _finder(aiozc, mesh.node.table)
            if advertiser is not None:
                advertising = asyncio.ensure_future(
                    _in_play(advertiser, mesh, replace=replace_card, settle=settle))
        elif mdns:
            ready: asyncio.Future[MdnsHandle | None] = asyncio.Future()
            advertising = asyncio.ensure_future(_advertise_in_play(mesh, ready))
            options.find_peer = _finder_when_ready(ready, mesh.node.table)
        screen.mdns = options.find_peer is not None  # what "still trying" tries
        try:
            result = await play_table(mesh, screen, options=options,
                                      lines=lines if lines is not None else stdin_lines())
            if result.match_over:  # a join of this table again has nobody to look for
                with contextlib.suppress(OSError):
                    mark_ended(kept, result.log)
        finally:
            ticking.cancel()
            if advertising is not None:
                advertising.cancel()
                with contextlib.suppress(BaseException):
                    await advertising

    return run


#: What runs a dealt table (the terminal client with default options).
GAME_RUNNER: GameRunner = table_runner()


class LobbyLines:
    """Prints lobby events for people (the lobby's :class:`~p2p8s.net.lobby.LobbyView`);
    :attr:`seated` is set once this node sat down."""

    def __init__(self, *, me: bytes, ascii: bool = False) -> None:
        self._me = me
        self._dots = "..." if ascii else "…"
        self.seated = asyncio.Event()

    def table(self, roster: Roster) -> None:
        host = roster.entry(0)
        say(Line.TABLE_OF, host=host.name if host else "?", rules=describe_rules(roster.rules))
        say_changes(roster.rules, roster.size)
        say(Line.ESCROW, escrow=roster.escrow, seats=roster.size)
        say(Line.SEATS, size=roster.size, taken=len(roster.seats), free=roster.free)
        for entry in roster.seats:
            say(Line.SEAT, seat=entry.seat, name=entry.name,
                 fingerprint=fingerprint(entry.key))

    def sat_down(self, entry: SeatEntry) -> None:
        say(Line.SAT_DOWN, name=entry.name, fingerprint=fingerprint(entry.key),
             seat=entry.seat, you=entry.key == self._me)
        if entry.key == self._me:
            self.seated.set()

    def left(self, entry: SeatEntry, reason: Reason) -> None:
        say(Line.LEFT_SEAT, name=entry.name, seat=entry.seat, reason=reason)

    def away(self, entry: SeatEntry, reason: Reason, grace_s: float) -> None:
        say(Line.SEAT_KEPT, name=entry.name, seat=entry.seat, reason=reason, grace_s=grace_s)

    def back(self, entry: SeatEntry) -> None:
        say(Line.BACK_AT_SEAT, name=entry.name, seat=entry.seat)

    def reconnecting(self, reason: Reason, grace_s: float) -> None:
        say(Line.RECONNECTING, reason=reason, grace_s=grace_s, dots=self._dots)

    def reconnected(self, entry: SeatEntry) -> None:
        say(Line.RECONNECTED, seat=entry.seat)

    def dealing(self, roster: Roster) -> None:
        say(Line.DEALING, people=len(roster.seats),
             computers=roster.size - len(roster.seats), dots=self._dots)
        if roster.escrow and len(roster.seats) >= 2:  # the card's trade-off, for these people
            say(Line.ESCROW_DEALT, people=len(roster.seats))



class LobbyEnd(Enum):
    """How a joiner's lobby ended without a dealt table."""

    LEFT = "left"  # the person typed quit while seated


#: What a seated joiner may type in the lobby to leave, and to ask what it can do.
LEAVE_WORDS = ("quit", "q", "exit")
HELP_WORDS = ("help", "h", "?")


async def seated_lobby(lobby: Awaitable[Mesh | None], view: LobbyLines,
                       lines: asyncio.Queue[str]) -> Mesh | LobbyEnd | None:
    """Run a joiner's ``lobby`` (:func:`~p2p8s.net.lobby.join_lobby`, which shows the
    table through ``view`` and asks to sit) and, once ``view`` is seated, answer the
    typed ``lines`` until the host deals: say once what the joiner can do, leave at
    ``quit`` (:attr:`LobbyEnd.LEFT`: the lobby is cancelled, the node says bye when it
    closes), answer ``help`` and any other word. The end of input is left for the
    table (the joiner stays seated). Returns the lobby's result; raises what it
    raises."""
    task = asyncio.ensure_future(lobby)
    seated = asyncio.ensure_future(view.seated.wait())
    reading: asyncio.Future[str] | None = None
    try:
        await asyncio.wait({task, seated}, return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            return task.result()
        say(Line.JOINER_WAITING)
        while True:
            if reading is None:
                reading = asyncio.ensure_future(lines.get())
            either: list[asyncio.Future[Any]] = [task, reading]
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
            if task.done():
                return task.result()
            line, reading = reading.result(), None
            if line == EOF_MARK:  # nobody types any more: wait for the deal, seated
                lines.put_nowait(EOF_MARK)  # (the table's reader sees the end too)
                return await task
            word = line.strip().lower()
            if word in LEAVE_WORDS:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
                return LobbyEnd.LEFT
            if word in HELP_WORDS:
                say(Line.JOINER_HELP)
            elif word:  # a stray Enter says nothing
                say(Line.NOT_A_JOINER_WORD, word=word)
    finally:
        seated.cancel()
        if reading is not None:
            if reading.done() and not reading.cancelled():
                lines.put_nowait(reading.result())  # typed as the deal came: the table's
            reading.cancel()
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
