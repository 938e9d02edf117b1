"""``p2p8s tables``, ``host``, ``join`` and ``audit``: friends' tables on the local network.

When the host deals, every node builds the full mesh and hands it to a game runner
(:func:`table_runner`, installed as :data:`GAME_RUNNER`): the replicated table
(:mod:`p2p8s.net.runner`) drawn by :class:`~p2p8s.cli.table_view.TableScreen`. Every
node keeps the signed log of the table (:mod:`p2p8s.store.tablelog`); ``p2p8s audit
FILE`` re-verifies the rounds of such a log offline.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import getpass
import hashlib
import secrets
import shutil
import signal
import sys
import threading
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any

import click
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p8s.cli.comeback import come_back_command
from p2p8s.cli.house import HouseChoice, house_choice, house_options
from p2p8s.cli.words import PLAIN, Speaker
from p2p8s.cli.words.doctor import DoctorLine
from p2p8s.cli.words.net import Line
from p2p8s.cli.words.rules import describe_changes, describe_rules
from p2p8s.codes import (
    Invite,
    fingerprint,
    format_address,
    format_link,
    new_code,
    normalize_code,
    parse_invite,
)
from p2p8s.errors import LocalError, MalformedInput, Note
from p2p8s.net.channel import SessionCode
from p2p8s.net.discovery import (
    Advertiser,
    Candidate,
    MdnsHandle,
    TableCard,
    browse,
    by_table,
    candidates,
    find_node,
    find_tables,
    follow_addresses,
    lan_addresses,
    lan_networks,
    open_zeroconf,
    with_free,
)
from p2p8s.net.lobby import GameRunner, Mesh, Seating, host_lobby, join_lobby
from p2p8s.net.node import JoinRefused, NetCode, Node, Reason, Unreachable
from p2p8s.net.redial import Finder
from p2p8s.net.runner import EOF_MARK, Options, play_table
from p2p8s.rules import Ruleset, default_target
from p2p8s.store.identity import identity_fingerprint, load_or_create_identity
from p2p8s.store.lastseen import last_addresses, save_where
from p2p8s.store.tablelock import HeldElsewhere, TableLock, lock_table
from p2p8s.wire import MAX_NAME, VERSION, Refusal, Roster, SeatEntry, public_key_bytes

#: The computer player that takes your seat with a bare ``--auto``.
AUTO_DEFAULT = "expert"
#: Times ``join`` tries again, a second apart, while the table still holds this key's
#: old connection (a node back from a crash before the others noticed).
REJOIN_TRIES = 8
#: Seconds one mDNS look-up for a lost peer may take (it runs while the known addresses
#: are dialled, and waits past a cached answer with only those).
FIND_PEER_S = 5.0
#: What the host may type in its lobby (p2p8s.net.lobby.host_lobby reads them).
LOBBY_WORDS = ("deal", "d", "start", "quit", "q", "exit")
#: Bytes of a table id (random, chosen by the host: it says nothing about the code).
TABLE_ID_BYTES = 8
#: Seconds ``join`` waits in all for tables that turn its attempts away (busy, or
#: slowing down an address after wrong codes) before it gives up.
BUSY_PATIENCE_S = 45.0


def busy_wait(exc: Unreachable) -> int | None:
    """Seconds to wait before trying again when a table turned the attempt away
    (``table-busy``: the longest wait any address said, each at most 30 s), or None."""
    failures = exc.params.get("failures", (exc,)) if exc.code is NetCode.NONE_REACHED \
        else (exc,)
    waits = [f.params["retry_s"] for f in failures if f.code is SessionCode.BUSY]
    return max(waits) if waits else None


def wrong_code(exc: Unreachable) -> bool:
    """Whether some address answered but did not prove the code (a table was there: the
    code was wrong, or it was another table), rather than none answering at all."""
    failures = exc.params.get("failures", (exc,)) if exc.code is NetCode.NONE_REACHED \
        else (exc,)
    return any(f.params.get("wrong_code") for f in failures)


def _tables_at(tried: Sequence[Candidate]) -> tuple[tuple[str, ...], ...]:
    """Where each table heard was tried: one tuple per table id, of one text per advert
    (its addresses, ``, ``-separated), in the order tried."""
    groups: dict[str, list[str]] = {}
    for candidate in tried:
        groups.setdefault(candidate.table_id, []).append(
            ", ".join(format_address(*a) for a in candidate.where))
    return tuple(tuple(g) for g in groups.values())


def where_key(code: str) -> bytes:
    """The name under which this node keeps where a table's seats listened
    (:mod:`p2p8s.store.lastseen`), found again from the code alone: the table id is
    random and the code is all a player types. ``H("p2p8s/v3/where" ‖ code)[:8]``; it
    stays on this disk (never on the network)."""
    return hashlib.sha256(b"p2p8s/v3/where" + normalize_code(code).encode()).digest()[:8]


def new_table_id() -> bytes:
    """A fresh random table id (never all zeros: that is a joiner's "unknown")."""
    while True:
        tid = secrets.token_bytes(TABLE_ID_BYTES)
        if any(tid):
            return tid


def _notice(note: Note) -> None:
    """Say a node's notice (wrong codes from an address: slowed down) on stderr."""
    click.echo(fit(PLAIN.note(note), _width(True)), err=True)


def fit(text: str, width: int | None) -> str:
    """``text`` with each of its lines wrapped to ``width`` columns at word boundaries
    (:func:`~p2p8s.cli.terminal.wrap_line`, as the game's lines are); None: as it is."""
    if width is None:
        return text
    from p2p8s.cli.terminal import wrap_line

    return "\n".join(part for line in text.split("\n") for part in wrap_line(line, width))


def _width(err: bool) -> int | None:
    """The terminal's width when that stream is a terminal (piped output is not
    wrapped), else None."""
    stream = sys.stderr if err else sys.stdout
    with contextlib.suppress(AttributeError, ValueError):
        if stream.isatty():
            return shutil.get_terminal_size().columns
    return None


def _say(line: Line, /, *, err: bool = False, nl: bool = True, **params: Any) -> None:
    """Print one line of the network commands, in words (wrapped to the terminal's
    width, but for a prompt: ``nl=False``)."""
    text = PLAIN.say(line, **params)
    click.echo(fit(text, _width(err)) if nl else text, err=err, nl=nl)


def _say_changes(rules: Ruleset, seats: int) -> None:
    """Say the house rules changed from the preset, if any (the lobby, the host)."""
    changes = describe_changes(rules, players=seats)
    if changes:
        _say(Line.HOUSE_RULES, preset=rules.name, changes=changes)


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


def _moved(addresses: list[str]) -> None:
    _say(Line.ADDRESS_CHANGED, err=True, addresses=tuple(addresses))


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
        _say(Line.NO_MDNS_IN_PLAY, err=True, error=str(exc))


class _CardUpdates:
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
            _say(Line.NO_MDNS_PLAY_CARD, err=True, error=str(exc))
    await follow_addresses(advertiser, changed=_moved)


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
    from p2p8s.cli.terminal import Terminal
    from p2p8s.solo import get_bot

    bot = get_bot(auto or AUTO_DEFAULT) if auto is not None else None

    async def run(mesh: Mesh) -> None:
        term = Terminal(ascii=ascii)
        screen = TableScreen(term, me=mesh.seat)
        options = Options(auto=bot, rounds=rounds, auto_delay_s=term.pace_s if bot else 0.0,
                          remember=functools.partial(
                              save_where, mesh.node.table if code is None else where_key(code)))
        if code is not None:  # how a lost player comes back: through this node, at the
            # address the table reached it at (the roster's) while it has it, else at
            # the one it has when the hint is said
            entry = mesh.roster.entry(mesh.seat)
            screen.come_back = come_back_command(
                code, entry.addrs if entry is not None else (), mesh.node.port,
                mdns=mdns or aiozc is not None)
            options.come_back = screen.come_back()
        advertising: asyncio.Task[None] | None = None
        if aiozc is not None:
            options.find_peer = _finder(aiozc, mesh.node.table)
            if advertiser is not None:
                advertising = asyncio.ensure_future(
                    _in_play(advertiser, mesh, replace=replace_card, settle=settle))
        elif mdns:
            ready: asyncio.Future[MdnsHandle | None] = asyncio.Future()
            advertising = asyncio.ensure_future(_advertise_in_play(mesh, ready))

            async def find(seat: int, known: Sequence[tuple[str, int]]
                           ) -> list[tuple[str, int]]:
                zc = await ready
                return [] if zc is None else await _finder(zc, mesh.node.table)(seat, known)

            options.find_peer = find
        try:
            await play_table(mesh, screen, options=options,
                             lines=lines if lines is not None else _stdin_lines())
        finally:
            if advertising is not None:
                advertising.cancel()
                with contextlib.suppress(BaseException):
                    await advertising

    return run


#: What runs a dealt table (the terminal client with default options).
GAME_RUNNER: GameRunner = table_runner()


class _TerminalView:
    """Prints lobby events for people."""

    def __init__(self, *, me: bytes, ascii: bool = False) -> None:
        self._me = me
        self._dots = "..." if ascii else "…"

    def table(self, roster: Roster) -> None:
        host = roster.entry(0)
        _say(Line.TABLE_OF, host=host.name if host else "?", rules=describe_rules(roster.rules))
        _say_changes(roster.rules, roster.size)
        _say(Line.SEATS, size=roster.size, taken=len(roster.seats), free=roster.free)
        for entry in roster.seats:
            _say(Line.SEAT, seat=entry.seat, name=entry.name,
                 fingerprint=fingerprint(entry.key))

    def sat_down(self, entry: SeatEntry) -> None:
        _say(Line.SAT_DOWN, name=entry.name, fingerprint=fingerprint(entry.key),
             seat=entry.seat, you=entry.key == self._me)

    def left(self, entry: SeatEntry, reason: Reason) -> None:
        _say(Line.LEFT_SEAT, name=entry.name, seat=entry.seat, reason=reason)

    def dealing(self, roster: Roster) -> None:
        _say(Line.DEALING, people=len(roster.seats),
             computers=roster.size - len(roster.seats), dots=self._dots)


def _default_name() -> str:
    with contextlib.suppress(Exception):
        return getpass.getuser().capitalize()[:MAX_NAME] or "Player"
    return "Player"


def _check_auto(auto: str | None) -> None:
    """Refuse an unknown ``--auto`` personality before anyone sits down."""
    if auto:
        from p2p8s.bots.registry import get_bot

        get_bot(auto)


def _check_name(name: str) -> str:
    name = name.strip()
    if not name or len(name) > MAX_NAME or not name.isprintable():
        raise click.BadParameter(PLAIN.say(Line.NAME_RULE, limit=MAX_NAME))
    return name


def _stdin_lines() -> asyncio.Queue[str]:
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


def _one_terminal(identity: Ed25519PrivateKey, table: bytes) -> TableLock:
    """This identity's lock at ``table`` (p2p8s.store.tablelock), held for the life of
    the process; when another terminal holds it, say so and exit 2 at once."""
    lock = lock_table(public_key_bytes(identity), table)
    if isinstance(lock, HeldElsewhere):
        click.echo("p2p8s: " + PLAIN.say(Line.ALREADY_HERE_LOCAL, pid=lock.pid,
                                         path=str(lock.path)), err=True)
        sys.exit(2)
    return lock


class Stage:
    """What a Ctrl-C stops, said then: ``line`` (``LEFT_TABLE`` once at a table,
    ``STOPPED_LOOKING`` while looking for it, ``DID_NOT_SIT`` at the sit-down prompt)."""

    def __init__(self, line: Line = Line.LEFT_TABLE) -> None:
        self.line = line


def _interrupted(stage: Stage | None, status: int) -> None:
    """Say what a Ctrl-C (or SIGTERM) stopped, and exit with ``status``."""
    _say(stage.line if stage is not None else Line.LEFT_TABLE, err=True)
    sys.exit(status)


def _run(main: Callable[[], Coroutine[Any, Any, int]], stage: Stage | None = None) -> None:
    """Run ``main``; Ctrl-C or SIGTERM leave the table cleanly (peers get ``bye``) and
    say what they stopped (``stage``)."""

    async def guarded() -> int:
        task = asyncio.current_task()
        if task is not None:
            with contextlib.suppress(NotImplementedError, RuntimeError):
                asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
        return await main()

    try:
        code = asyncio.run(guarded())
    except KeyboardInterrupt:
        click.echo(err=True)
        _interrupted(stage, 130)
    except asyncio.CancelledError:
        _interrupted(stage, 143)
    if code:
        sys.exit(code)


# --- tables -------------------------------------------------------------------------

@click.command("tables")
@click.option("--timeout", "timeout_s", type=click.FloatRange(0.1, 60), default=3.0,
              show_default=True, help="Seconds to listen for tables.")
def tables_cmd(timeout_s: float) -> None:
    """List the p2p8s tables on the local network (found by mDNS)."""

    async def main() -> int:
        async with open_zeroconf() as aiozc:
            cards = await browse(aiozc, timeout_s=timeout_s)
        if not cards:
            _say(Line.NO_TABLES, timeout_s=timeout_s)
            return 0
        from p2p8s.cli.terminal import Terminal

        term = Terminal()  # wraps to the terminal's width (piped output is not wrapped)
        tables = by_table(cards)  # a table in play answers once per node
        term.say(PLAIN.say(Line.TABLES_FOUND, n=len(tables)))
        for group in tables:
            if group[0].seat is None:  # every advert of an open table id (one may be fake)
                for card in group:
                    term.say(PLAIN.say(Line.CARD_OPEN, card=card))
                if len(group) > 1:
                    term.say(PLAIN.say(Line.SAME_ID, n=len(group)))
            else:
                term.say(PLAIN.say(Line.TABLE_IN_PLAY, cards=tuple(group)))
        term.say(PLAIN.say(Line.ASK_FOR_CODE))
        return 0

    _run(main)


def _game_options(command: Callable[..., None]) -> Callable[..., None]:
    """The options of a game in progress, shared by host and join."""
    command = click.option("--ascii", "ascii_", is_flag=True,
                           help="Write suits as letters C D H S instead of ♣ ♦ ♥ ♠.")(command)
    command = click.option("--rounds", type=click.IntRange(1, None), default=None,
                           metavar="N", help="Leave after N rounds (tests, demos).")(command)
    command = click.option("--auto", is_flag=False, flag_value="", default=None,
                           metavar="[PERSONALITY]",
                           help="Let the computer play your seat (default: the expert).")(
        command)
    return command


# --- host ---------------------------------------------------------------------------

def table_rules(choice: HouseChoice, seats: int) -> Ruleset:
    """The host's ruleset: the chosen preset with the single rules on top, and the match
    target the table plays to (the preset's friends'-table default when not given,
    R-TARGET-TABLE; countdown has none)."""
    rules = choice.ruleset(players=seats)
    if rules.target is None and not rules.countdown:
        rules = rules.with_changes(target=default_target(rules, seats, solo=False))
    return rules


@click.command("host")
@click.option("--name", default=None, help="Your name at the table.")
@click.option("--seats", type=click.IntRange(2, 7), default=4, show_default=True,
              help="Seats at the table (empty ones get computer players).")
@house_options()
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="TCP port to listen on (0: any free port).")
@click.option("--no-mdns", is_flag=True, help="Do not advertise the table by mDNS.")
@_game_options
def host_cmd(name: str | None, seats: int, port: int, no_mdns: bool, auto: str | None,
             rounds: int | None, ascii_: bool, **house: Any) -> None:
    """Open a table for friends on this network and print its code."""
    rules = table_rules(house_choice(house), seats)
    player = _check_name(name or _default_name())
    _check_auto(auto)
    identity = load_or_create_identity()
    code = new_code(secrets.token_bytes(4))
    tid = new_table_id()
    lock = _one_terminal(identity, where_key(code))

    async def main() -> int:
        commands = _stdin_lines()
        async with Node(identity=identity, name=player, code=code, table=tid,
                        port=port) as node:
            node.seat = 0
            node.on_notice = _notice
            addresses = lan_addresses()
            first = addresses[0]
            me = SeatEntry(seat=0, name=player, key=node.key, addrs=tuple(addresses),
                           port=node.port)
            seating = Seating(size=seats, rules=rules, host=me)
            card = TableCard(version=VERSION, table_id=tid.hex(), host_name=player,
                             rules=rules, seats=seats, free=seats - 1,
                             fingerprint=identity_fingerprint(identity))
            _say(Line.TABLE_OPEN, rules=describe_rules(rules), seats=seats)
            _say_changes(rules, seats)
            _say(Line.YOUR_KEY, fingerprint=card.fingerprint)
            _say(Line.TABLE_CODE, code=code)
            if no_mdns:  # the code alone cannot find this table: say where it is
                _say(Line.RUN_JOIN_LINK, code=code, where=format_address(first, node.port))
            else:
                _say(Line.RUN_JOIN, code=code)
                _say(Line.RUN_JOIN_AT, code=code, where=format_address(first, node.port))
            _say(Line.LINK, link=format_link(code, first, node.port))
            async with contextlib.AsyncExitStack() as stack:
                updates: _CardUpdates | None = None
                aiozc: MdnsHandle | None = None
                advertiser: Advertiser | None = None
                if not no_mdns:
                    try:
                        aiozc = await stack.enter_async_context(open_zeroconf())
                        advertiser = await stack.enter_async_context(
                            Advertiser(aiozc, card, port=node.port, addresses=addresses))
                    except Exception as exc:  # multicast may be unavailable: link still works
                        _say(Line.NO_MDNS_HOST, err=True, error=str(exc))
                    else:
                        updates = _CardUpdates(advertiser, card)
                _say(Line.WAITING)
                _say(Line.HOST_SEAT, name=player)
                filtered: asyncio.Queue[str] = asyncio.Queue()

                async def forward() -> None:
                    while True:
                        line = await commands.get()
                        if line == EOF_MARK:  # nobody can type deal any more
                            _say(Line.INPUT_ENDED)
                            filtered.put_nowait("quit")
                            return
                        word = line.strip().lower()
                        if word in LOBBY_WORDS:
                            filtered.put_nowait(word)
                        elif word:  # a stray Enter does not deal; anything else is said
                            _say(Line.NOT_A_LOBBY_WORD, word=word)

                forwarder = asyncio.ensure_future(forward())
                try:
                    mesh = await host_lobby(node, seating,
                                            view=_TerminalView(me=node.key, ascii=ascii_),
                                            commands=filtered, on_change=updates.change
                                            if updates is not None else None)
                finally:
                    forwarder.cancel()
                if mesh is None:
                    if updates is not None:
                        await updates.stop()
                    _say(Line.TABLE_CLOSED)
                    return 0
                runner = table_runner(auto=auto, rounds=rounds, ascii=ascii_, lines=commands,
                                      code=code, aiozc=aiozc, advertiser=advertiser,
                                      replace_card=True,
                                      settle=updates.stop if updates is not None else None)
                await runner(mesh)
                await node.flush()
        return 0

    try:
        _run(main)
    finally:
        lock.release()


# --- join ---------------------------------------------------------------------------

def _invite_and_auto(invite: str | None, auto: str | None) -> tuple[str, str | None]:
    """The invite and ``--auto`` personality as meant: ``--auto`` takes an optional
    name, so ``join --auto CODE`` reads the invite as the name; a value that is no
    personality's name is the invite then (and ``--auto`` the expert). Raises
    click.UsageError when there is no invite at all."""
    if invite is None and auto:
        from p2p8s.bots.registry import known_names

        if auto.lower() not in {n.lower() for n in known_names()}:
            return auto, ""
    if invite is None:
        raise click.UsageError(PLAIN.say(Line.INVITE_MISSING))
    return invite, auto


def _parse_join(invite: str) -> Invite:
    """:func:`~p2p8s.codes.parse_invite`, with a plain word for an address without its
    code (``:35021``, ``192.168.1.20:4242``): raises MalformedInput."""
    text = invite.strip()
    if "@" not in text and ":" in text and not text.lower().startswith("p2p8s:"):
        raise MalformedInput(Line.CODE_MISSING, text=text)
    return parse_invite(invite)


@click.command("join")
@click.argument("invite", required=False)
@click.option("--name", default=None, help="Your name at the table.")
@click.option("--timeout", "timeout_s", type=click.FloatRange(0.5, 120), default=8.0,
              show_default=True, help="Seconds to look for the table by mDNS.")
@click.option("--yes", "-y", is_flag=True, help="Sit down without asking.")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="TCP port to listen on for the other players (0: any free port).")
@click.option("--no-mdns", is_flag=True,
              help="Do not advertise this node by mDNS while playing.")
@_game_options
def join_cmd(invite: str | None, name: str | None, timeout_s: float, yes: bool, port: int,
             no_mdns: bool, auto: str | None, rounds: int | None, ascii_: bool) -> None:
    """Join a friend's table: INVITE is CODE, CODE@HOST:PORT or p2p8s://CODE@HOST:PORT."""
    stage = Stage(Line.STOPPED_LOOKING)
    invite, auto = _invite_and_auto(invite, auto)
    parsed: Invite = _parse_join(invite)
    player = _check_name(name or _default_name())
    _check_auto(auto)
    try:
        identity = load_or_create_identity()
    except KeyboardInterrupt:
        click.echo(err=True)
        _interrupted(stage, 130)
    code = normalize_code(parsed.code)
    lock = _one_terminal(identity, where_key(code))  # before any log is touched

    async def main() -> int:
        lines = _stdin_lines()
        dots = "..." if ascii_ else "…"
        tried: list[Candidate] = []  # one per advert heard
        last: tuple[str, ...] = ()  # tried: where the table was the last time
        if parsed.host is not None and parsed.port is not None:
            addresses = [(parsed.host, parsed.port)]
            click.echo(fit(PLAIN.say(DoctorLine.JOIN_DIRECT,
                                     where=format_address(parsed.host, parsed.port)),
                           _width(False)))
        else:
            _say(Line.LOOKING, code=code, dots=dots)
            cards: list[TableCard] = []
            with contextlib.suppress(OSError):  # multicast may be unavailable here
                async with open_zeroconf() as aiozc:
                    cards = await find_tables(aiozc, timeout_s=timeout_s)
            # the code says which table only once a node proves it: try every advert,
            # each at its own addresses (names on a card are nobody's word: none is shown)
            tried = candidates(cards, local=lan_networks())
            if not tried:
                # where the table was the last time this node played at it, if it did
                addresses = last_addresses(where_key(code))
                if not addresses:
                    raise LocalError(DoctorLine.JOIN_NOTHING, code=code, timeout_s=timeout_s)
                last = tuple(format_address(*a) for a in addresses)
                _say(Line.TRYING_LAST, addresses=last)
            else:
                addresses = [a for c in tried for a in c.where]
                _say(Line.FOUND, tables=_tables_at(tried))

        async def confirm(roster: Roster) -> bool:
            if yes:
                stage.line = Line.LEFT_TABLE
                return True
            stage.line = Line.DID_NOT_SIT
            _say(Line.SIT_DOWN, nl=False)
            answer = await lines.get()
            if answer == EOF_MARK:  # nobody answered: do not sit down
                click.echo()
                return False
            sit = answer.strip().lower() in ("", "y", "yes")
            if sit:
                stage.line = Line.LEFT_TABLE
            return sit

        async with Node(identity=identity, name=player, code=code, table=None,
                        port=port) as node:
            _say(Line.YOUR_KEY, fingerprint=identity_fingerprint(identity))
            view = _TerminalView(me=node.key, ascii=ascii_)
            duplicates, waited = 0, 0.0
            while True:
                try:
                    mesh = await join_lobby(node, addresses, view=view, confirm=confirm)
                    break
                except Unreachable as exc:
                    wait = busy_wait(exc)
                    if wait is not None and waited + wait <= BUSY_PATIENCE_S:
                        # the table turned the attempt away (fixed words: it is unsigned)
                        _say(Line.BUSY_RETRY, wait_s=wait)
                        await asyncio.sleep(wait)
                        waited += wait
                        continue
                    if last:
                        raise LocalError(Line.NOT_AT_LAST, code=code, timeout_s=timeout_s,
                                         addresses=last) from None
                    if tried:
                        raise LocalError(Line.NO_TABLE_ANSWERED, code=code,
                                         tables=_tables_at(tried),
                                         answered=wrong_code(exc)) from None
                    raise
                except JoinRefused as exc:
                    # back after a crash: the table has not noticed the old connection
                    # die yet (at most a few seconds of missing heartbeats) — or this
                    # key is at the table from another terminal
                    if exc.refusal is not Refusal.DUPLICATE:
                        raise
                    duplicates += 1
                    if duplicates == REJOIN_TRIES:
                        raise LocalError(Line.ALREADY_HERE,
                                         fingerprint=identity_fingerprint(identity)) from None
                    if duplicates == 1:
                        _say(Line.ALREADY_HERE_WAIT, seconds=REJOIN_TRIES - 1, dots=dots)
                    await asyncio.sleep(1.0)
            if mesh is None:
                _say(Line.DID_NOT_SIT)
                return 0
            if mesh.rejoined:
                _say(Line.REJOINING, seat=mesh.seat, dots=dots, names=tuple(
                    e.name for e in mesh.roster.seats if e.seat in mesh.peers))
            await table_runner(auto=auto, rounds=rounds, ascii=ascii_, lines=lines, code=code,
                               mdns=not no_mdns)(mesh)
            await node.flush()
        return 0

    try:
        _run(main, stage)
    finally:
        lock.release()


# --- audit --------------------------------------------------------------------------

@click.command("audit")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
def audit_cmd(file: Path) -> None:
    """Re-verify a table log offline: every signature, every move, every round's audit.

    FILE is a node's log ('p2p8s host' and 'p2p8s join' print where it is written).
    Prints each round as ok or the cheater named, and the scores. A log cut short by a
    crash (its last record torn) is audited up to the cut; a damaged file (junk, a
    frame that does not verify, a missing message) is audited up to the damage, which
    is named with its byte offset.

    Exit status: 0 when everything read checks out, 1 when a round fails its audit (the
    seat at fault is named), 2 when the file is not a readable table log or is damaged.
    """
    from p2p8s.cli.words.table import report_lines, said
    from p2p8s.store.tablelog import CorruptLog, read_log
    from p2p8s.table.logverify import verify

    try:
        log = read_log(file, salvage=True)
    except CorruptLog as exc:
        click.echo(f"p2p8s: {PLAIN.error(exc)}", err=True)
        sys.exit(2)
    report = verify(log.frames)
    _say(Line.LOG_FRAMES, file=file, frames=report.frames, duplicates=report.duplicates,
         torn=log.end if log.torn else None, void=len(log.void))
    seat = log.header.get("me")
    if isinstance(seat, int) and report.config is not None and 0 <= seat < len(
            report.config.names):  # the header is not signed: named only as its claim
        _say(Line.KEPT_BY, name=report.config.names[seat], seat=seat)
    for line in report_lines(report):
        click.echo(f"  {line}")
    if not report.ok and (not report.damaged or not all(r.ok for r in report.rounds)):
        sys.exit(1)
    if report.damaged:
        assert report.fault is not None
        index = report.fault.params.get("index")
        at = log.offsets[index] if isinstance(index, int) and index < len(log.offsets) else None
        why = said(report.fault, Speaker(names=report.config.names if report.config else ()))
        _say(Line.LOG_DAMAGED, err=True, at=at, why=why,
             frames=index if isinstance(index, int) else None)
        sys.exit(2)
    if log.damage is not None:
        _say(Line.LOG_DAMAGED, err=True, at=log.damage.params.get("at"),
             why=PLAIN.error(log.damage), frames=len(log.frames))
        sys.exit(2)


COMMANDS = [tables_cmd, host_cmd, join_cmd, audit_cmd]
