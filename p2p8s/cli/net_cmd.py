
"""``p2p8s tables``, ``host`` and ``join``: friends' tables on the local network.

The host opens a table and prints its code; a joiner finds it (by mDNS, at a typed
``CODE@HOST:PORT``, or where it was the last time) and sits down. When the host deals,
every node plays the dealt table in its terminal (:mod:`p2p8s.cli.table_play`) and
keeps its signed log (:mod:`p2p8s.store.tablelog`, re-verified by ``p2p8s audit``,
:mod:`p2p8s.cli.audit_cmd`).
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import secrets
import signal
import sys
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any

import click
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p8s.cli.house import HouseChoice, house_choice, house_options
from p2p8s.cli.lines import Retries, echo, notice
from p2p8s.cli.lines import say as _say
from p2p8s.cli.table_play import (
    CardUpdates,
    LobbyEnd,
    LobbyLines,
    say_changes,
    seated_lobby,
    stdin_lines,
    table_runner,
    where_key,
)
from p2p8s.cli.terminal import return_patience
from p2p8s.cli.words import PLAIN
from p2p8s.cli.words.doctor import DoctorLine
from p2p8s.cli.words.net import Line
from p2p8s.cli.words.rules import describe_rules
from p2p8s.codes import (
    Invite,
    format_address,
    format_link,
    new_code,
    normalize_code,
    parse_invite,
)
from p2p8s.errors import LocalError, MalformedInput
from p2p8s.net.connecting import busy_wait
from p2p8s.net.discovery import (
    Advertiser,
    Candidate,
    MdnsHandle,
    TableCard,
    browse,
    by_table,
    candidates,
    find_tables,
    lan_addresses,
    lan_networks,
    open_zeroconf,
)
from p2p8s.net.lobby import Seating, host_lobby, join_lobby
from p2p8s.net.node import JoinRefused, NetCode, Node, Unreachable
from p2p8s.net.runner import EOF_MARK
from p2p8s.rules import Ruleset, default_target
from p2p8s.store.identity import identity_fingerprint, load_or_create_identity
from p2p8s.store.lastseen import Address, ended_at, last_addresses, load_where
from p2p8s.store.tablelock import HeldElsewhere, TableLock, clear_stale, lock_table
from p2p8s.wire import MAX_NAME, VERSION, Refusal, Roster, SeatEntry, public_key_bytes

#: What the host may type in its lobby (p2p8s.net.lobby.host_lobby reads them).
LOBBY_WORDS = ("deal", "d", "start", "quit", "q", "exit")
#: Bytes of a table id (random, chosen by the host: it says nothing about the code).
TABLE_ID_BYTES = 8
#: Seconds ``join`` waits in all for tables that turn its attempts away (busy, or
#: slowing down an address after wrong codes) before it gives up.
BUSY_PATIENCE_S = 45.0
#: Seconds ``join`` keeps looking for a table this node sat at (its addresses kept, see
#: :mod:`p2p8s.store.lastseen`) that answers nowhere — its Wi-Fi may be down — trying
#: again every :data:`RETURN_RETRY_S` and saying so every :data:`RETURN_SAY_EVERY_S`.
RETURN_PATIENCE_S = 600.0
RETURN_RETRY_S = 3.0
RETURN_SAY_EVERY_S = 30.0


def wrong_code(exc: Unreachable) -> bool:
    """Whether some address answered but did not prove the code (a table was there: the
    code was wrong, or it was another table), rather than none answering at all."""
    failures = exc.params.get("failures", (exc,)) if exc.code is NetCode.NONE_REACHED \
        else (exc,)
    return any(f.params.get("wrong_code") for f in failures)


def where_groups(heard: Sequence[Candidate], kept: Mapping[int, Sequence[Address]], *,
                 direct: Address | None = None) -> list[list[Address]]:
    """The groups of addresses ``join`` dials at once (:func:`~p2p8s.net.racing.
    connect_first`): a typed address, each advert heard, then where each seat of a
    table this node sat at listened (``kept``, seat → addresses: one group a seat, the
    host's first, no address twice). A player coming back gets in through whichever
    node answers first — not after the handshake attempts of a host that is asleep
    (3 × 5 s an address) — and a table heard that is another one costs nothing.

    >>> where_groups([], {1: [("10.0.0.2", 4243)], 0: [("10.0.0.1", 4242)]},
    ...              direct=("10.0.0.1", 4242))
    [[('10.0.0.1', 4242)], [('10.0.0.2', 4243)]]
    """
    groups: list[list[Address]] = []
    seen: set[Address] = set()
    for group in ([[direct]] if direct is not None else []) + [
            list(c.where) for c in heard] + [list(kept[s]) for s in sorted(kept)]:
        fresh = [a for a in group if a not in seen]
        seen.update(fresh)
        if fresh:
            groups.append(fresh)
    return groups


def _tables_at(tried: Sequence[Candidate]) -> tuple[tuple[str, ...], ...]:
    """Where each table heard was tried: one tuple per table id, of one text per advert
    (its addresses, ``, ``-separated), in the order tried."""
    groups: dict[str, list[str]] = {}
    for candidate in tried:
        groups.setdefault(candidate.table_id, []).append(
            ", ".join(format_address(*a) for a in candidate.where))
    return tuple(tuple(g) for g in groups.values())


def new_table_id() -> bytes:
    """A fresh random table id (never all zeros: that is a joiner's "unknown")."""
    while True:
        tid = secrets.token_bytes(TABLE_ID_BYTES)
        if any(tid):
            return tid


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



def _one_terminal(identity: Ed25519PrivateKey, table: bytes) -> TableLock:
    """This identity's lock at ``table`` (p2p8s.store.tablelock), held for the life of
    the process (its file is removed when it is released); when another terminal holds
    it, say so and exit 2 at once. The lock files no process holds any more (of a
    process killed, say) are cleared first."""
    clear_stale()
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
@click.option("--no-escrow", is_flag=True, help="Share no player's key with the others: "
              "if someone drops out, the game pauses until they are back.")
@_game_options
def host_cmd(name: str | None, seats: int, port: int, no_mdns: bool, no_escrow: bool,
             auto: str | None, rounds: int | None, ascii_: bool, **house: Any) -> None:
    """Open a table for friends on this network and print its code."""
    rules = table_rules(house_choice(house), seats)
    player = _check_name(name or _default_name())
    _check_auto(auto)
    identity = load_or_create_identity()
    code = new_code(secrets.token_bytes(4))
    tid = new_table_id()
    lock = _one_terminal(identity, where_key(code))

    async def main() -> int:
        commands = stdin_lines()
        async with Node(identity=identity, name=player, code=code, table=tid,
                        port=port) as node:
            node.seat = 0
            node.on_notice = notice
            addresses = lan_addresses()
            first = addresses[0]
            me = SeatEntry(seat=0, name=player, key=node.key, addrs=tuple(addresses),
                           port=node.port)
            seating = Seating(size=seats, rules=rules, host=me, escrow=not no_escrow)
            card = TableCard(version=VERSION, table_id=tid.hex(), host_name=player,
                             rules=rules, seats=seats, free=seats - 1,
                             fingerprint=identity_fingerprint(identity))
            _say(Line.TABLE_OPEN, rules=describe_rules(rules), seats=seats)
            say_changes(rules, seats)
            _say(Line.ESCROW, escrow=not no_escrow, seats=seats)
            _say(Line.YOUR_KEY, fingerprint=card.fingerprint)
            _say(Line.TABLE_CODE, code=code)
            if no_mdns:  # the code alone cannot find this table: say where it is
                _say(Line.RUN_JOIN_LINK, code=code, where=format_address(first, node.port))
            else:
                _say(Line.RUN_JOIN, code=code)
                _say(Line.RUN_JOIN_AT, code=code, where=format_address(first, node.port))
            _say(Line.LINK, link=format_link(code, first, node.port))
            async with contextlib.AsyncExitStack() as stack:
                updates: CardUpdates | None = None
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
                        updates = CardUpdates(advertiser, card)
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
                                            view=LobbyLines(me=node.key, ascii=ascii_),
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
        lines = stdin_lines()
        dots = "..." if ascii_ else "…"
        loop = asyncio.get_running_loop()
        since = loop.time()
        # where the table was the last time this node played at it: a player coming back
        kept_at = load_where(where_key(code))
        kept = last_addresses(where_key(code))
        ended = ended_at(where_key(code))
        if ended is not False:
            # this node played the match to its end: nobody is left to look for
            raise LocalError(Line.MATCH_ENDED_HERE, code=code,
                             log=None if isinstance(ended, bool) else str(ended))
        patience = return_patience(RETURN_PATIENCE_S)

        async def discover(*, quiet: bool = False
                           ) -> tuple[list[list[Address]], list[Candidate], tuple[str, ...]]:
            """Where to try (:func:`where_groups`), the adverts heard (one per advert)
            and the kept addresses tried, if any (``quiet``: said once before)."""
            last = tuple(format_address(*a) for a in kept)
            if parsed.host is not None and parsed.port is not None:
                if not quiet:
                    echo(PLAIN.say(DoctorLine.JOIN_DIRECT,
                                   where=format_address(parsed.host, parsed.port)))
                return where_groups([], kept_at, direct=(parsed.host, parsed.port)), [], ()
            if not quiet:
                _say(Line.LOOKING, code=code, dots=dots)
            cards: list[TableCard] = []
            with contextlib.suppress(OSError):  # multicast may be unavailable here
                async with open_zeroconf() as aiozc:
                    cards = await find_tables(aiozc, timeout_s=timeout_s)
            # the code says which table only once a node proves it: try every advert,
            # each at its own addresses (names on a card are nobody's word: none is shown);
            # a player coming back tries where its table was too, at once
            heard = candidates(cards, local=lan_networks())
            if heard:
                if not quiet:
                    _say(Line.FOUND, tables=_tables_at(heard))
                return where_groups(heard, kept_at), heard, last
            if not kept:
                raise LocalError(DoctorLine.JOIN_NOTHING, code=code, timeout_s=timeout_s)
            if not quiet:
                _say(Line.TRYING_LAST, addresses=last)
            return where_groups([], kept_at), [], last

        groups, tried, last = await discover()

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
            view = LobbyLines(me=node.key, ascii=ascii_)
            waited, busy, away = 0.0, Retries(), Retries(every_s=RETURN_SAY_EVERY_S)
            while True:
                try:
                    mesh = await seated_lobby(join_lobby(
                        node, [a for g in groups for a in g], view=view, confirm=confirm,
                        groups=groups,
                        slow=(lambda n: _say(Line.TRYING_AT_ONCE, n=n, dots=dots))
                        if len(groups) > 1 else None), view, lines)
                    break
                except Unreachable as exc:
                    wait = busy_wait(exc)
                    if wait is not None and waited + wait <= BUSY_PATIENCE_S:
                        # the table turned the attempt away (fixed words: it is unsigned)
                        busy.say(asyncio.get_running_loop().time(), Line.BUSY_RETRY,
                                 wait_s=wait)
                        await asyncio.sleep(wait)
                        waited += wait
                        continue
                    if kept and loop.time() - since < patience:
                        # this node sat at this table: it may be in play beyond a network
                        # that is down here (Wi-Fi, an address that changed) — keep looking,
                        # by mDNS and at the kept addresses (issue #11)
                        away.say(loop.time(), Line.STILL_RETURNING, code=code,
                                 retry_s=RETURN_RETRY_S,
                                 minutes=round(patience / 60, 1))
                        await asyncio.sleep(RETURN_RETRY_S)
                        groups, tried, last = await discover(quiet=True)
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
                    # this key is at the table from another process (a copy of this
                    # identity elsewhere): the table asked its connection, which answered
                    # (an old one of this node's, dead, is replaced instead): exit 2, like
                    # a second terminal here
                    if exc.refusal is not Refusal.DUPLICATE:
                        raise
                    click.echo("p2p8s: " + PLAIN.say(
                        Line.ALREADY_HERE, fingerprint=identity_fingerprint(identity)),
                        err=True)
                    return 2
            if mesh is LobbyEnd.LEFT:
                _say(Line.LEFT_TABLE)
                return 0
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


COMMANDS = [tables_cmd, host_cmd, join_cmd]
