"""The asyncio adapter around the replicated table: feed, process events, transmit.

:func:`play_table` runs one dealt table (a :class:`~p2p8s.net.lobby.Mesh`) to its end:

- builds the :class:`~p2p8s.table.TableConfig` from the roster (:func:`table_config`:
  the host's rules and target bind; empty seats get named computer regulars, run by the
  host's node; the table id and the roster digest — which every node echoed — are the
  table id and the seed);
- feeds every incoming ``game`` payload to :meth:`Table.receive` and sends every
  :class:`~p2p8s.table.Outgoing` with :meth:`Mesh.post`, chaining ``prev`` to the
  previous game message this node handled;
- drives :meth:`Table.handle_timer` from the loop's monotonic clock via
  :meth:`Table.get_timer` (the 30-second turn timer and the takeover grace live in the
  table);
- takes typed lines from a queue (filled by a reader thread; the loop never blocks on
  input) and hands them to the :class:`Frontend`, which turns them into actions;
- lets a computer play the local seat (``auto``);
- runs the bots' thinking (the auto player, a hint) in a worker thread
  (:class:`Think`), so heartbeats, messages and timers go on while the expert plays out
  its futures: the thread gets a snapshot (a :class:`~p2p8s.bots.base.View`, the legal
  actions, its own RNG) and the choice is applied on the loop, only if the decision it
  was for still stands — the table itself is only ever touched by the loop;
- appends every signed game frame sent or received to the table log
  (:mod:`p2p8s.store.tablelog`), fsynced at every round end;
- keeps the table alive when a node goes (issue #6, protocol/table.md "Dropped nodes",
  "Coming back"): a lost connection calls :meth:`Table.peer_lost` (the others take the
  seat over, or — with no escrow — the game pauses until it is back); the node with the
  higher seat dials the lower one again with backoff (a restarted node dials everyone);
  a new connection of a roster member starts with a runner ``sync`` payload (how many
  game payloads each side received from the other, whether it restarted), each side
  resends exactly the missing suffix of what it posted for that peer, then
  :meth:`Table.peer_back`. A restarted node (``mesh.rejoined``) asks for the log
  instead: the peers answer with their signed game frames in ``log`` parts, and the
  table is rebuilt with :meth:`Table.restore` from the first complete answer. A node
  whose seats were taken over while payloads it sent were lost on the way (a
  blackholed link: sent before it noticed) learns it from the peer's ``sync``
  (``taken``) and rebuilds its table from the log in the same way, without restarting;
- notices when its own process did not run for a while (:data:`FROZEN_S`, a laptop that
  slept: every timer and buffered frame due at once) and sends nothing from its table
  until the peers' ``sync`` tells whether they took its seats over meanwhile (then it
  rebuilds from the log) or not (then it plays on);
- ``quit`` sends :meth:`Table.leave` (the others take the seat over at once).
  :class:`PeerLost` remains only where the match cannot go on: the only other person
  left for good, a peer stopped after the rounds it asked for, or a node restarted
  where nobody can rebuild its keys of the round (:attr:`Table.stranded`: two people).
  Connections of nodes not in the roster (a newcomer after the deal) are refused and
  their loss is ignored.

The frontend (the terminal client, or a test's recorder) does all the talking.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

import msgpack

from p2p8s.bots.base import Bot
from p2p8s.bots.registry import get_bot
from p2p8s.codes import format_address
from p2p8s.crypto.messages import decode as decode_crypto
from p2p8s.engine import Action
from p2p8s.errors import IllegalAction, LocalError, MalformedInput, RemoteError
from p2p8s.net.lobby import Mesh
from p2p8s.net.node import Connected, Connection, Incoming, JoinRefused, Lost, NetEvent, Reason
from p2p8s.rules import default_target
from p2p8s.solo import pick_opponents
from p2p8s.store.tablelog import TableLogWriter, log_path, table_secret
from p2p8s.table import Outgoing, Output, SeatInfo, Table, TableConfig
from p2p8s.table import events as tev
from p2p8s.table.actions import CRYPTO, LEAVE, RESYNC, encode_records
from p2p8s.table.core import STAND_IN
from p2p8s.table.logverify import records_from_frames
from p2p8s.wire import (
    MAX_GAME_PAYLOAD,
    MAX_NAME,
    Farewell,
    Game,
    Refusal,
    Role,
    Welcome,
    decode_body,
)

#: The ``bye`` reason of a node that played to the end (its peers let it go quietly).
DONE_REASON = Farewell.DONE
#: Seconds before the turn timer runs out when the player is warned.
WARN_S = 10.0
#: Seconds a person has for a turn (R-TIMER).
TURN_TIMEOUT_S = 30.0
#: The ``bye`` reason of a player who left the table (``quit``, Ctrl-C).
LEFT_REASON = Farewell.LEFT
#: Runner payload kinds (protocol/table.md, "Coming back"): carried in ``game`` envelopes
#: but never given to the table nor logged (the table kinds are 1..9).
#: ``sync`` = msgpack ``[received, posted, restarted]``: the first payload on a new
#: connection of two roster members after the deal.
SYNC = 64
#: ``log`` = msgpack ``[part, parts, [frame, …]]``: the sender's signed game frames, to a
#: restarted node that asked for them (its ``sync`` said ``restarted``).
LOG_PART = 65
#: ``relay`` = msgpack ``[seat, [frame, …]]``: the last crypto broadcasts this node
#: received from ``seat``'s node, sent to every other peer when it loses that node: a
#: node killed in the middle of a broadcast reached only some peers, and the others take
#: what they missed from it (the signed frames) before its seats are taken over.
RELAY = 66
RUNNER_KINDS = frozenset({SYNC, LOG_PART, RELAY})
#: How many of a peer's last crypto broadcasts a ``relay`` carries.
RELAY_FRAMES = 16
#: Seconds between dial attempts to a lost peer: from the first, doubling to the last.
REDIAL_FIRST_S = 0.5
REDIAL_MAX_S = 8.0
#: Seconds a restarted node waits for a complete log from a peer.
LOG_TIMEOUT_S = 60.0
#: Bytes of frames in one ``log`` part (the payload stays under the wire limit).
LOG_PART_BYTES = MAX_GAME_PAYLOAD - 4096
#: The runner's inbox wait is at most this long, so the loop's clock is read often.
TICK_S = 0.5
#: A gap of at least this many seconds between two loop iterations means this process
#: did not run (suspended, a laptop asleep): its peers may have declared it lost (after
#: 5 s of silence) and taken its seat over, so it sends nothing from its table until it
#: knows (protocol/table.md "The runner's part", "Frozen").
FROZEN_S = 3.0
#: After a freeze, seconds to wait for the ends of connections the peers closed meanwhile.
SETTLE_S = 1.0
#: After a freeze, seconds to wait for the peers it lost to connect again before playing
#: on without them (as after a lost connection).
ASLEEP_MAX_S = 30.0


def sync_payload(received: int, posted: int, *, restarted: bool, taken: bool = False
                 ) -> bytes:
    """A runner ``sync`` payload: ``received`` game payloads from the peer so far,
    ``posted`` game payloads meant for it so far, whether this node ``restarted`` (lost
    its state: it asks for the log instead of a resend) and whether this node has
    ``taken`` the peer's seats over while it was away (then the peer's payloads this
    node never received are void: the peer rebuilds its table from this node's log).

    >>> parse_sync(sync_payload(3, 5, restarted=False)[1:])
    (3, 5, False, False)
    """
    packed: bytes = msgpack.packb([received, posted, restarted, taken])
    return bytes([SYNC]) + packed


def parse_sync(body: bytes) -> tuple[int, int, bool, bool]:
    """The ``(received, posted, restarted, taken)`` of a ``sync`` body (a body of three
    fields has ``taken`` false); raises MalformedInput."""
    try:
        fields = msgpack.unpackb(body, raw=False)
        if type(fields) is not list or len(fields) not in (3, 4):
            raise ValueError("not a list of 3 or 4 fields")
        received, posted, restarted, taken = (*fields, False)[:4]
        if (type(received) is not int or type(posted) is not int or received < 0
                or posted < 0 or type(restarted) is not bool or type(taken) is not bool):
            raise ValueError("bad field")
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        raise MalformedInput(f"a bad sync payload: {exc}") from None
    return received, posted, restarted, taken


def log_parts(frames: Sequence[bytes], *, limit: int = LOG_PART_BYTES) -> list[bytes]:
    """Split signed frames into ``log`` payloads of at most ``limit`` bytes of frames
    each (every payload is under the 64 KiB wire frame). Raises ValueError for a frame
    larger than ``limit``.

    >>> [parse_log_part(p[1:]) for p in log_parts([b"a" * 10, b"b" * 10], limit=15)]
    [(0, 2, [b'aaaaaaaaaa']), (1, 2, [b'bbbbbbbbbb'])]
    """
    groups: list[list[bytes]] = [[]]
    size = 0
    for frame in frames:
        if len(frame) > limit:
            raise ValueError(f"a frame of {len(frame)} bytes does not fit a log part")
        if size + len(frame) > limit and groups[-1]:
            groups.append([])
            size = 0
        groups[-1].append(frame)
        size += len(frame) + 8
    out = []
    for i, group in enumerate(groups):
        packed: bytes = msgpack.packb([i, len(groups), group], use_bin_type=True)
        out.append(bytes([LOG_PART]) + packed)
    return out


def parse_log_part(body: bytes) -> tuple[int, int, list[bytes]]:
    """The ``(part, parts, frames)`` of a ``log`` body; raises MalformedInput."""
    try:
        part, parts, frames = msgpack.unpackb(body, raw=False)
        if (type(part) is not int or type(parts) is not int or not 0 <= part < parts
                or type(frames) is not list or any(type(f) is not bytes for f in frames)):
            raise ValueError("bad field")
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        raise MalformedInput(f"a bad log part: {exc}") from None
    return part, parts, frames


class _LogAnswer:
    """The ``log`` parts one peer sent so far."""

    def __init__(self) -> None:
        self.parts: dict[int, list[bytes]] = {}
        self.total = 0

    def add(self, body: bytes) -> list[bytes] | None:
        """Take one part; the frames in order once every part is in (else None)."""
        part, parts, frames = parse_log_part(body)
        if self.total and parts != self.total:
            raise MalformedInput("log parts of different lengths")
        self.total = parts
        self.parts[part] = frames
        if len(self.parts) < parts:
            return None
        return [f for i in range(parts) for f in self.parts[i]]


class PeerLost(LocalError):
    """A player's node left the table during the match; the match cannot go on."""

    def __init__(self, message: str, *, seat: int) -> None:
        super().__init__(message)
        self.seat = seat


class TableFailed(LocalError):
    """The table stopped: a peer broke the rules or the logs disagree (the message says who)."""


class _Rebuild(Exception):  # a signal inside the runner, not an error
    """This node's seats were taken over while some of its payloads were lost on the way
    (sent before it noticed the link was down): its table has taken in moves the others
    never saw. It rebuilds the table from a peer's log (as a restarted node does).
    ``note`` (else the default) tells the player why."""

    def __init__(self, seat: int, note: str | None = None) -> None:
        super().__init__(seat)
        self.seat = seat
        self.note = note


@dataclass(frozen=True, slots=True)
class Leave:
    """The player asked to leave the table."""


R = TypeVar("R")


@dataclass(frozen=True, slots=True, kw_only=True)
class Think(Generic[R]):
    """Slow thinking (a bot's choice, a hint) to run off the event loop.

    ``work()`` runs in a worker thread and may only read values nothing else changes
    while it runs: a :class:`~p2p8s.bots.base.View` snapshot, a list of legal actions, an
    RNG of its own — never the :class:`~p2p8s.table.Table`, which only the loop touches.
    ``then(result, now)`` runs on the loop afterwards and answers like
    :meth:`Frontend.typed` (it should check that the decision is still the same). One
    thought at a time: typed lines wait until it is done, so they keep their order.
    """

    work: Callable[[], R]
    then: Callable[[R, float], Typed]


#: What a frontend returns for a typed line: an action to play, a request to leave,
#: something to think out off the loop first, or None (the line was a command or a
#: mistake, already answered).
Typed = Action | Leave | Think[Any] | None


class Frontend(Protocol):
    """The people's side of a running table (the terminal client, a test recorder)."""

    def started(self, table: Table, config: TableConfig, *, log: Path | None,
                auto: Bot | None, rejoined: bool = False) -> None:
        """The match begins (``rejoined``: this node came back to a match in play): who
        sits where, where the log goes."""

    def show(self, table: Table, events: Sequence[object], now: float) -> None:
        """Report the table's events (in order) after one step."""

    def presence(self, seat: int, name: str, *, connected: bool, reason: str | Reason) -> None:
        """A seat's node connected or left (``reason``: why its connection ended, as data)."""

    def turn(self, table: Table, now: float) -> None:
        """It is this seat's decision now (a person plays it): show the table, prompt."""

    def warn(self, table: Table, seconds_left: float) -> None:
        """The turn timer is about to run out."""

    def typed(self, table: Table, line: str, now: float) -> Typed:
        """A line the person typed: answer with an action, :class:`Leave`, a
        :class:`Think` (slow work, such as a hint, done off the loop) or ``None``."""

    def finished(self, table: Table, why: str) -> None:
        """The runner stops (match over, rounds played, or the reason it cannot go on)."""


@dataclass(slots=True)
class Options:
    """How :func:`play_table` runs: ``auto`` plays the local seat, ``rounds`` stops after
    that many rounds, ``log_dir`` (None: the user data directory) holds the table log,
    ``auto_delay_s`` paces the auto player, ``warn_s`` is the timer warning and
    ``turn_timeout_s`` the turn timer (the same on every node)."""

    auto: Bot | None = None
    rounds: int | None = None
    log_dir: Path | None = None
    write_log: bool = True
    auto_delay_s: float = 0.0
    warn_s: float = WARN_S
    turn_timeout_s: float = TURN_TIMEOUT_S
    #: Dial a lost peer again (the higher seat dials; a restarted node dials everyone).
    redial: bool = True
    #: Where else a lost seat may listen now (``seat -> [(host, port), …]``, e.g. found
    #: by mDNS; None: only the roster's and the last connection's addresses).
    find_peer: Callable[[int], Awaitable[list[tuple[str, int]]]] | None = None
    log_timeout_s: float = LOG_TIMEOUT_S
    #: The command a lost player can run to come back through this node (told to the
    #: others when a peer is lost, so they can pass it on), e.g. ``p2p8s join CODE``.
    come_back: str | None = None


@dataclass(slots=True)
class Result:
    """How a run ended: rounds completed, whether the match ended, the log path, and
    the ``prev`` chain's last hash."""

    rounds: int = 0
    match_over: bool = False
    log: Path | None = None
    last: bytes = b""
    sent: int = 0
    received: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


# --- the configuration ------------------------------------------------------------------

def computer_seats(seed: bytes, count: int, taken: Sequence[str]) -> list[tuple[str, str]]:
    """``count`` computer players ``(name, personality)`` for the empty seats, chosen by
    ``seed`` (so every node picks the same), with names unlike the people's ``taken``.

    >>> computer_seats(bytes(32), 2, ["Karl"])[0][1] in ("Hanna", "Karl", "Vera", "Max")
    True
    """
    names, styles = pick_opponents(int.from_bytes(seed[:8], "big"), count)
    used = {n.lower() for n in taken}
    out = []
    for name, style in zip(names, styles, strict=True):
        unique, n = name, 2
        while unique.lower() in used:
            unique = f"{name} {n}"[:MAX_NAME]
            n += 1
        used.add(unique.lower())
        out.append((unique, style))
    return out


def table_config(mesh: Mesh, *, turn_timeout_s: float = TURN_TIMEOUT_S) -> TableConfig:
    """The table configuration every node derives from the final roster alike.

    Seat ``s`` is the person seated there, or a computer regular (its key is the host's:
    the host's node runs it). Target: the roster's rules, else the friends' default.
    ``turn_timeout_s`` must be the same on every node (tests shorten it).
    """
    roster = mesh.roster
    host = roster.entry(0)
    if host is None:
        raise LocalError("the roster has no host (seat 0)")
    empty = [s for s in range(roster.size) if roster.entry(s) is None]
    computers = iter(computer_seats(mesh.digest, len(empty), [e.name for e in roster.seats]))
    seats = []
    for s in range(roster.size):
        entry = roster.entry(s)
        if entry is not None:
            seats.append(SeatInfo(seat=s, name=entry.name, key=entry.key, computer=None))
        else:
            name, style = next(computers)
            seats.append(SeatInfo(seat=s, name=name, key=host.key, computer=style))
    target = default_target(roster.rules, roster.size, solo=False)
    return TableConfig(table=mesh.node.table, rules=roster.rules, target=target,
                       seats=tuple(seats), turn_timeout_s=turn_timeout_s)


def log_header(config: TableConfig, mesh: Mesh) -> dict[str, Any]:
    """The header record of this node's table log (JSON): table, seats, rules, target."""
    return {
        "format": 1,
        "table": config.table.hex(),
        "seed": mesh.digest.hex(),
        "me": mesh.seat,
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "rules": mesh.roster.rules.to_dict(),
        "target": config.target,
        "turn_timeout_s": config.turn_timeout_s,
        "seats": [{"seat": s.seat, "name": s.name, "key": s.key.hex(),
                   "computer": s.computer} for s in config.seats],
    }


# --- the runner --------------------------------------------------------------------------

class _Inbox:
    """Network events and typed lines, merged without losing any."""

    def __init__(self, mesh: Mesh, lines: asyncio.Queue[str] | None) -> None:
        self._mesh = mesh
        self._lines = lines
        self._net: asyncio.Task[object] | None = None
        self._typed: asyncio.Task[str] | None = None

    async def next(self, timeout_s: float | None,
                   thought: asyncio.Future[Any] | None = None) -> object:
        """The next event, line (a ``str``) or — once it is done — ``thought`` itself;
        while a thought runs, typed lines wait. Raises TimeoutError after ``timeout_s``."""
        if self._net is None:
            self._net = asyncio.ensure_future(self._mesh.next_event())
        if self._typed is None and self._lines is not None:
            self._typed = asyncio.ensure_future(self._lines.get())
        waiting: set[asyncio.Future[Any]] = {self._net}
        if thought is not None:
            waiting.add(thought)
        elif self._typed is not None:
            waiting.add(self._typed)
        done, _ = await asyncio.wait(waiting, timeout=timeout_s,
                                     return_when=asyncio.FIRST_COMPLETED)
        if self._net in done:
            event = self._net.result()
            self._net = None
            return event
        if thought is not None:
            if thought in done:
                return thought
            raise TimeoutError
        if self._typed is not None and self._typed in done:
            line = self._typed.result()
            self._typed = None
            return line
        raise TimeoutError

    def close(self) -> None:
        for task in (self._net, self._typed):
            if task is not None:
                task.cancel()


def left_the_table(name: str, reason: str) -> str:
    """``NAME left the table (reason)``, without repeating a reason that says the same.

    >>> left_the_table("Bob", "left the table")
    'Bob left the table'
    >>> left_the_table("Bob", "connection closed")
    'Bob left the table (connection closed)'
    """
    if not reason or reason == "left the table":
        return f"{name} left the table"
    return f"{name} left the table ({reason})"


def _round_of(payload: bytes) -> int:
    """The round a game payload belongs to (0: the setup, or not a crypto message)."""
    if payload[:1] != bytes([CRYPTO]):
        return 0
    try:
        return decode_crypto(payload[1:]).round_no
    except Exception:  # malformed: the table reports it when it receives the payload
        return 0


#: Typed words that leave the table even while the computer plays the seat (``--auto``).
QUIT_WORDS = frozenset({"quit", "q", "exit"})
#: Put on a lines queue at the end of input.
EOF_MARK = "\x04"


class _Run:
    """One table being played on this node (the state :func:`play_table` needs)."""

    def __init__(self, mesh: Mesh, frontend: Frontend, options: Options,
                 log: TableLogWriter | None, config: TableConfig, *,
                 table: Table | None = None, frames: Sequence[bytes] = ()) -> None:
        self.mesh = mesh
        self.frontend = frontend
        self.options = options
        self.auto = options.auto
        self.log = log
        self.loop = asyncio.get_running_loop()
        self.config = config
        self.restored = table is not None
        self.table = table if table is not None else Table(
            self.config, me=mesh.seat, rand=os.urandom, seed=mesh.digest,
            sign=mesh.node.identity.sign, key_secret=_key_secret(mesh, options))
        self.result = Result(log=log.path if log is not None else None)
        self.prev = b""
        self.done: str | None = None
        self.completed = False  # played to the end (rounds asked for, or the match)
        self.left = False  # the local player left the table
        self.finished_peers: set[int] = set()
        self.last_round: dict[int, int] = {}  # seat -> the last round it sent a message in
        self.input_closed = False
        self.decision: object = None
        self.warned: float | None = None
        self.auto_at: float | None = None
        self.rng = random.Random(os.urandom(16))
        self.thought: asyncio.Future[Any] | None = None
        self.then: Callable[[Any, float], Typed] | None = None
        self.names = [s.name for s in self.config.seats]
        me = mesh.seat
        self.others = [s.seat for s in config.seats if s.computer is None and s.seat != me]
        #: every signed game frame this node logged, in order (a restarted peer's log)
        self.frames: list[bytes] = list(frames)
        self.seen_frames: set[bytes] = set(self.frames)
        #: per peer seat: its last crypto broadcasts received (what a ``relay`` carries),
        #: and the frames other peers relayed (taken once this node lost it too)
        self.recent: dict[int, deque[bytes]] = {
            s: deque(maxlen=RELAY_FRAMES) for s in self.others}
        self.relayed: dict[int, list[bytes]] = {}
        #: per peer seat: the game payloads posted for it, in order ``(to, payload)``,
        #: and the count of game payloads received from it (the ``sync`` numbers)
        self.posted: dict[int, list[tuple[int | None, bytes]]] = {s: [] for s in self.others}
        self.got: dict[int, int] = dict.fromkeys(self.others, 0)
        self.pending: dict[int, Connection] = {}  # connected again, waiting for its sync
        self.expect: dict[int, int] = {}  # seat -> its posted count: peer_back once in
        self.lost: set[int] = set()  # seats whose node this runner misses
        self.gone_for_good: list[int] = []  # seats that left (leave payload), in order
        self.fresh: set[int] = set()  # peers told this node restarted (no resend due)
        #: a restored node: peers not reached yet, told ``restarted`` when they are, and
        #: those whose log answer is awaited before :meth:`Table.peer_back`
        self.restart_to: set[int] = set()
        self.await_log: set[int] = set()
        #: seat -> the connection whose ``sync`` told it its seats were taken over
        self.told_taken: dict[int, Connection] = {}
        self.answers: dict[int, _LogAnswer] = {}
        self.notes: list[str] = []  # said once the table is shown (a rebuilt table)
        #: when this process was last found to have been frozen (``FROZEN_S``), until it
        #: knows whether its seats were taken over meanwhile (None: playing normally);
        #: meanwhile it sends nothing from its table (``held``), drives no timer or
        #: move, calls no ``peer_lost`` (it was the one gone) and holds its ``sync`` on
        #: new connections (``unsynced``) until the peer's tells it ``taken``
        self.asleep: float | None = None
        self.asleep_lost: set[int] = set()  # peers whose connection ended meanwhile
        self.asleep_told = False  # the player was told what it waits for
        self.held: list[Outgoing] = []
        self.unsynced: dict[int, Connection] = {}
        self.dialers: dict[int, asyncio.Task[None]] = {}
        self.where: dict[int, list[tuple[str, int]]] = {}
        for entry in mesh.roster.seats:
            self.where[entry.seat] = [(a, entry.port) for a in entry.addrs]
        #: where each seat listened at the deal (a peer back from elsewhere moved)
        self.dealt_at = {s: set(w) for s, w in self.where.items()}
        for seat, conn in mesh.peers.items():
            self._note_address(seat, conn)

    def now(self) -> float:
        return self.loop.time()

    # --- output ------------------------------------------------------------------------

    def process(self, out: Output) -> None:
        """Send the messages, log them, show the events, note round and match ends."""
        if self.asleep is not None and out.messages:  # sent once it knows (_asleep_check)
            self.held.extend(out.messages)
            out = Output([], out.events)
        limit = self.options.rounds
        for msg in out.messages:
            if limit is not None and _round_of(msg.payload) > limit:
                continue  # a round this node will not play: the others must not wait on it
            digest, body = self.mesh.post(msg.to, msg.payload, prev=self.prev)
            self.prev = digest
            self.result.sent += 1
            for seat in self.others:
                if msg.to is None or msg.to == seat:
                    self.posted[seat].append((msg.to, msg.payload))
            self._logged(body)
        shown: list[object] = []
        gone: str | None = None
        for event in out.events:
            if self.done is not None and not isinstance(event, tev.MatchOver):
                break  # the rounds asked for are played: later events are not shown
            if isinstance(event, tev.SeatAway) and event.seat in self.gone_for_good:
                if not event.paused:
                    shown.append(tev.Info(f"{self.names[event.seat]} left the table: the "
                                          "computer plays their seat"))
                continue
            if (isinstance(event, tev.SeatAway) and event.paused and self.others
                    and all(s in self.gone_for_good for s in self.others)):
                continue  # nobody to wait for (below)
            shown.append(event)
            if isinstance(event, tev.SeatAway) and event.paused:
                if event.seat == self.mesh.seat:
                    shown.append(tev.Info("Waiting for the others to come back — Ctrl-C / "
                                          "quit to leave"))
                else:
                    shown.append(tev.Info(f"Waiting for {self.names[event.seat]} to come "
                                          "back — Ctrl-C / quit to leave"))
            elif isinstance(event, tev.RoundOver):
                self.result.rounds += 1
                if self.log is not None:
                    self.log.mark({"round_over": event.result.number,
                                   "audit_ok": bool(event.audit_ok),
                                   "transcript": self.table.transcript.hex(),
                                   "totals": list(self.table.match.totals)})
                if (self.options.rounds is not None
                        and self.result.rounds >= self.options.rounds):
                    n = self.result.rounds
                    self.done = f"played the {n} round{'s' if n != 1 else ''} asked for"
                    self.completed = True
                elif self.finished_peers and not self.table.finished:
                    gone = self._gone_message(sorted(self.finished_peers))
            elif isinstance(event, tev.MatchOver):
                self.result.match_over = True
                self.done = "the match is over"
                self.completed = True
        if shown:
            self.frontend.show(self.table, shown, self.now())
        fault = self.table.failed
        if fault is not None and self.done is None:
            who = self._who(fault.seat) if fault.seat is not None else "a player"
            raise TableFailed(f"the table stopped: {who} broke the rules "
                              f"({_said(self.names, fault)}); the log is in {self.result.log}")
        if gone is not None and self.done is None:
            raise PeerLost(gone, seat=min(self.finished_peers))
        if (self.done is None and self.others and not self.table.finished
                and all(s in self.gone_for_good for s in self.others)
                and self.table.paused & set(self.gone_for_good)):
            last = self.gone_for_good[-1]  # every other person left for good, and the
            # table cannot play their seats (they left before giving their keys)
            raise PeerLost(f"{self._who(last)} left the table; the match cannot go on "
                           "without them", seat=last)
        if self.table.finished and self.done is None:
            self.result.match_over = True
            self.done = "the match is over"
            self.completed = True
        stranded = self.table.stranded
        if stranded and self.done is None:
            raise PeerLost(self._stranded_message(min(stranded)), seat=min(stranded))

    def _stranded_message(self, node: int) -> str:
        """Why the match ends when ``node``'s program restarted and nobody can rebuild its
        keys of this round (:attr:`Table.stranded`)."""
        two = len(self.others) == 1
        who = ("Your program restarted and lost your cards" if node == self.mesh.seat
               else f"{self.names[node]}'s program restarted and lost their cards")
        why = "with two people nobody holds a share of them" if two else (
            "nobody holds a share of them yet")
        kept = "Both logs are kept" if two else "Every log is kept"
        audit = f" (p2p8s audit {self.result.log})" if self.result.log is not None else ""
        return f"{who} of this round; {why}, so this match cannot go on. {kept}{audit}."

    def _logged(self, body: bytes) -> None:
        self.frames.append(body)
        self.seen_frames.add(body)
        if self.log is not None:
            self.log.append(body)

    def restored_events(self) -> None:
        """The first output of a table restored from the log: count the rounds already
        played, show only the current round's events (and the scores so far)."""
        out = self.table.handle_timer(self.now())
        events = list(out.events)
        starts = [i for i, e in enumerate(events) if isinstance(e, tev.RoundStarted)]
        past = events[:starts[-1]] if starts else events
        current = events[starts[-1]:] if starts else []
        played = [e for e in past if isinstance(e, tev.RoundOver)]
        self.result.rounds += len(played)
        if self.log is not None:
            for e in played:
                self.log.mark({"round_over": e.result.number, "audit_ok": bool(e.audit_ok),
                               "replayed": True, "totals": list(e.result.points)})
        me = self.mesh.seat
        taken = me in self.table.taken_over
        when = ("from your next turn (your hand stays open to the others until this "
                "round ends)" if taken or played else "once the others deal you in")
        note = [tev.Info(
            f"Rejoined the table at seat {me}; "
            + ("the computer played your seat meanwhile; " if taken or played else "")
            + f"you play again {when}. {len(played)} round"
            f"{'s' if len(played) != 1 else ''} played so far, every one audited from "
            "the signed log.")]
        said: list[tev.Event] = [tev.Info(n) for n in self.notes]
        self.process(Output(out.messages, [*said, *note, *current]))

    # --- the local seat ----------------------------------------------------------------

    def decision_point(self) -> None:
        """Prompt the person (or arm the auto player) when the table waits for us."""
        if self.asleep is not None:
            self.decision = self.auto_at = None  # prompted again once it knows
            return
        if self.done is not None or not self.table.my_turn:
            self.decision = None
            return
        view = self.table.view()
        if view is None:
            return
        key = (self.result.rounds, len(view.log), view.drawn, view.pending_draw)
        if key == self.decision:
            return
        self.decision = key
        if self.auto is not None:
            self.auto_at = self.now() + self.options.auto_delay_s
        else:
            self.frontend.turn(self.table, self.now())

    def play_auto(self) -> None:
        """Let the auto player choose (in a worker thread) and act for the local seat."""
        self.auto_at = None
        view = self.table.view()
        bot = self.auto
        if bot is None or view is None or not self.table.my_turn:
            return
        legal = self.table.legal_actions()
        if not legal:
            return
        rng = random.Random(self.rng.getrandbits(64))
        decision = self.decision

        def chosen(action: Action, now: float) -> Typed:
            if self.done is not None or self.decision != decision or not self.table.my_turn:
                return None  # the turn moved on meanwhile (the turn timer played it)
            return action

        self.think(Think(work=lambda: bot.choose(view, legal, rng), then=chosen))

    def think(self, thought: Think[Any]) -> None:
        """Start ``thought.work`` in a worker thread; :meth:`thought_done` follows."""
        self.thought = asyncio.ensure_future(asyncio.to_thread(thought.work))
        self.then = thought.then

    def thought_done(self) -> None:
        """The worker thread is done: hand its result to ``then`` on the loop (a bot's
        exception is raised here, as if it had thought on the loop)."""
        thought, then = self.thought, self.then
        self.thought = self.then = None
        assert thought is not None and then is not None
        if self.asleep is not None:
            return  # thought out before a freeze: the decision is made again afterwards
        self.answer(then(thought.result(), self.now()))

    def answer(self, answer: Typed) -> None:
        """Carry out a frontend's answer: act, leave, or think first."""
        if isinstance(answer, Leave):
            self.leave()
        elif isinstance(answer, Think):
            self.think(answer)
        elif answer is not None:
            self.act(answer)

    def leave(self, *, quietly: bool = False) -> None:
        """The local player leaves: send ``leave`` (the others take the seat over at
        once) and stop. ``quietly``: on Ctrl-C / SIGTERM (nothing is shown)."""
        if self.left or self.completed or self.table.failed is not None:
            return
        self.left = True
        self.asleep = None  # after a freeze: the ``leave`` only, nothing it held
        self.held = []
        out = self.table.leave(self.now())
        self.process(Output(out.messages, []))
        if not quietly:
            self.frontend.show(self.table, [tev.Info(
                "You left the table; the computer plays your seat.")], self.now())
        if self.done is None:
            self.done = ""

    def act(self, action: Action) -> None:
        try:
            out = self.table.act(action, self.now())
        except IllegalAction as exc:
            self.frontend.show(self.table, [tev.Info.of(exc)], self.now())
            self.decision = None
            return
        self.process(out)

    def typed(self, line: str) -> None:
        if line == EOF_MARK:
            self.input_closed = True
            if self.auto is None and self.done is None:
                self.auto = get_bot(STAND_IN)
                self.decision = None
                self.frontend.show(self.table, [tev.Info(
                    f"Your input ended: the computer ({STAND_IN}) plays your seat from now "
                    "on.")], self.now())
            return
        if self.asleep is not None and line.strip().lower() not in QUIT_WORDS:
            self.frontend.show(self.table, [tev.Info(
                "Still catching up with the table after this computer did not run — "
                "wait a moment (quit to leave).")], self.now())
            return
        if self.auto is not None:
            if line.strip().lower() in QUIT_WORDS:
                self.leave()  # the computer plays, but the person may still leave
            return
        if line.strip():  # anything typed says the person is back (R-TIMER: no short grace)
            self.process(self.table.present(self.now()))
        self.answer(self.frontend.typed(self.table, line, self.now()))

    # --- the network ---------------------------------------------------------------------

    def incoming(self, event: object) -> None:
        if isinstance(event, Incoming):
            self.incoming_message(event)
        elif isinstance(event, Lost):
            self.lost_peer(event)
        elif isinstance(event, Connected):
            self.connected(event.peer)

    def incoming_message(self, event: Incoming) -> None:
        rec = event.received
        body = rec.message.body
        if not isinstance(body, Game):
            return  # late lobby echoes, roster repeats
        seat = rec.message.seat if rec.message.seat is not None else event.peer.seat
        if (seat is None or seat not in self.got
                or (body.to is not None and body.to != self.mesh.seat)):
            self.frontend.show(self.table, [tev.Fault.legacy(
                seat, f"{event.peer} sent a game message addressed to "
                f"seat {body.to}")], self.now())
            return
        kind = body.payload[0] if body.payload else 0
        if kind in RUNNER_KINDS:
            try:
                self.runner_payload(event.peer, seat, kind, body.payload[1:])
            except MalformedInput as exc:
                self.frontend.show(self.table, [tev.Fault.of(exc, seat)], self.now())
                raise TableFailed(f"{self._who(seat)} sent invalid data: {exc}") from None
            return
        self.prev = rec.digest
        self.result.received += 1
        if kind == LEAVE and seat not in self.gone_for_good:
            self.gone_for_good.append(seat)
            self.lost.add(seat)
        self._take_game(seat, rec.body, body)
        self._maybe_back(seat)

    def _take_game(self, seat: int, frame: bytes, body: Game) -> None:
        """A game payload of ``seat``'s node, received or relayed (``frame``: its signed
        frame): count it for ``sync``, log it, keep a crypto broadcast to relay, and give
        it to the table — invalid data shows a Fault and raises TableFailed."""
        self.got[seat] += 1
        self.last_round[seat] = max(self.last_round.get(seat, 0), _round_of(body.payload))
        self._logged(frame)
        if body.payload[:1] == bytes([CRYPTO]) and body.to is None:
            self.recent[seat].append(frame)
        try:
            out = self.table.receive(seat, body.payload, self.now())
        except RemoteError as exc:
            bad = exc.seat if exc.seat is not None else seat
            self.frontend.show(self.table, [tev.Fault.of(exc, bad)], self.now())
            raise TableFailed(f"{self._who(bad)} sent invalid data: {exc}") from None
        self.process(out)

    def lost_peer(self, event: Lost) -> None:
        seat = event.peer.seat
        if seat is None or seat not in self.got:
            return  # not a seated player (a newcomer refused after the deal)
        if self.pending.get(seat) is event.peer:
            del self.pending[seat]  # lost again before its sync: keep trying
            self.start_dial(seat)
            return
        if self.mesh.peers.get(seat) is not event.peer:
            return  # an old connection of that seat
        name = self._who(seat)
        if event.reason.code is DONE_REASON:
            self.frontend.presence(seat, name, connected=False, reason=event.reason)
            self.finished_peers.add(seat)
            if (self.done is None and not self.table.finished
                    and self.last_round.get(seat, 0) <= self.result.rounds):
                # It played its last round, and this node has finished that round
                # too and plays on: nobody plays that seat's part any more.
                raise PeerLost(self._gone_message([seat]), seat=seat)
            return  # this node finishes the round it played first (see process)
        if self.done is not None:
            return
        if event.error is not None:
            raise TableFailed(f"{name} sent invalid data and was disconnected: "
                              f"{event.error}")
        if seat in self.gone_for_good:
            return  # it said so (leave); its bye follows
        self.frontend.presence(seat, name, connected=False, reason=event.reason)
        if self.asleep is not None:
            # this node was the one gone (frozen): the peer most likely closed the
            # connection because of that; its table is not told (_asleep_check)
            self.lost.add(seat)
            self.expect.pop(seat, None)
            self.asleep_lost.add(seat)
            self.start_dial(seat)
            return
        if self.options.come_back is not None and seat not in self.lost:
            self.frontend.show(self.table, [tev.Info(
                f"If {self.names[seat]}'s program stopped, they come back by running: "
                f"{self.options.come_back}")], self.now())
        self.lost.add(seat)
        self.expect.pop(seat, None)
        self._relay(seat)
        self._take_relayed(seat)
        self.process(self.table.peer_lost(seat, self.now()))
        self.start_dial(seat)

    def _relay(self, seat: int) -> None:
        """Send every other connected peer the last crypto broadcasts received from
        ``seat``'s node, just lost: if it died in the middle of a broadcast, a peer it
        did not reach takes the rest from here (``relay``)."""
        frames: list[bytes] = []
        size = 0
        for frame in reversed(self.recent[seat]):
            size += len(frame) + 8
            if size > LOG_PART_BYTES:
                break
            frames.insert(0, frame)
        if not frames:
            return
        body = bytes([RELAY]) + msgpack.packb([seat, frames])
        for other, conn in list(self.mesh.peers.items()):
            if other != seat and other in self.got and other not in self.lost:
                self.mesh.node.send(conn, Game(to=other, payload=body))

    def _on_relay(self, sender: int, body: bytes) -> None:
        """A ``relay`` from ``sender``: keep the frames of the lost node it names (checked:
        signed by that node, crypto broadcasts of this table); take them in once this
        node lost that node too (before that, they still come straight from it)."""
        try:
            seat, frames = msgpack.unpackb(body)
            if (type(seat) is not int or seat not in self.got or seat == sender
                    or not isinstance(frames, list) or len(frames) > RELAY_FRAMES
                    or not all(isinstance(f, bytes) for f in frames)):
                raise ValueError("bad relay")
        except (ValueError, TypeError, msgpack.ExtraData, msgpack.FormatError,
                msgpack.StackError) as exc:
            raise MalformedInput(f"malformed relay: {exc}") from None
        key = self.config.seats[seat].key
        for frame in frames:
            try:
                received = decode_body(frame)
            except RemoteError as exc:
                raise MalformedInput(f"relayed a frame that does not verify: {exc}") from None
            content = received.message.body
            if (received.key != key or received.message.table != self.config.table
                    or not isinstance(content, Game) or content.to is not None
                    or content.payload[:1] != bytes([CRYPTO])):
                raise MalformedInput(f"relayed a frame that is not a crypto broadcast "
                                     f"signed by seat {seat}")
        kept = self.relayed.setdefault(seat, [])
        kept += [f for f in frames if f not in kept]
        del kept[:-RELAY_FRAMES * 4]
        if seat in self.lost:
            self._take_relayed(seat)

    def _take_relayed(self, seat: int) -> None:
        """Take in the relayed frames of ``seat``'s node (lost) this node never got, in
        order, as if they had come from it."""
        for frame in self.relayed.pop(seat, []):
            if frame in self.seen_frames:
                continue
            content = decode_body(frame).message.body
            assert isinstance(content, Game)  # checked when the relay came in
            self.result.extra["relayed"] = self.result.extra.get("relayed", 0) + 1
            self._take_game(seat, frame, content)

    def connected(self, conn: Connection) -> None:
        """A node finished the handshake after the deal: a roster member coming back
        (start the ``sync``), or a stranger (refused)."""
        seat = self.mesh.roster.seat_of(conn.key)
        if seat is None or seat == self.mesh.seat or seat not in self.got:
            self.mesh.node.close_peer(conn, Refusal.IN_PLAY)
            return
        conn.set_seat(seat)
        self._note_address(seat, conn)
        old = self.mesh.peers.get(seat)
        if old is conn:
            return  # already in use (a rejoined mesh)
        if conn.hello.role is Role.JOIN:  # `p2p8s join` again: it needs the roster
            self.mesh.node.send(conn, Welcome(seat=seat, roster=self.mesh.roster))
        self.pending[seat] = conn
        if self.asleep is not None:
            self.unsynced[seat] = conn  # its sync first: was this node taken over?
            return
        self._send_sync(seat, conn)

    def _send_sync(self, seat: int, conn: Connection) -> None:
        """This node's ``sync`` on a new connection of ``seat``'s node."""
        taken = self._took_over(seat)
        if taken:
            self.told_taken[seat] = conn
        self.mesh.node.send(conn, Game(to=seat, payload=sync_payload(
            self.got[seat], len(self.posted[seat]), restarted=seat in self.restart_to,
            taken=taken)))

    def _took_over(self, node: int) -> bool:
        """Whether the computer plays a seat of ``node``'s node at this table now (so its
        payloads this node never received are void)."""
        return any(self.config.node_of(d) == node for d in self.table.taken_over)

    def runner_payload(self, conn: Connection, seat: int, kind: int, body: bytes) -> None:
        """A ``sync``, ``log`` or ``relay`` payload (protocol/table.md, "Coming back")."""
        now = self.now()
        if kind == RELAY:
            self._on_relay(seat, body)
            return
        if kind == SYNC:
            received, posted, restarted, taken = parse_sync(body)
            if self.pending.get(seat) is not conn and self.mesh.peers.get(seat) is not conn:
                return  # a connection already replaced
            if self.unsynced.get(seat) is conn:  # this node was frozen (asleep)
                del self.unsynced[seat]
                if (taken and not restarted and seat not in self.fresh
                        and seat not in self.restart_to):
                    # its seats were taken over meanwhile: whatever its table did since
                    # is void; rebuild from the log instead of resending
                    self.pending.pop(seat, None)
                    self.mesh.peers[seat] = conn
                    raise _Rebuild(seat, self._asleep_note(
                        f"{self.names[seat]}'s node took your seat over meanwhile"))
                self._send_sync(seat, conn)
            if restarted:
                # its state is lost (or void): it gets the log (the signed frames this
                # node has), then everything from now on; the counts start again
                self.pending.pop(seat, None)
                self.told_taken.pop(seat, None)
                self.expect.pop(seat, None)
                self.posted[seat] = []
                self.got[seat] = 0
                for part in log_parts(self.frames):
                    self.mesh.node.send(conn, Game(to=seat, payload=part))
                self.mesh.peers[seat] = conn
                rejoined = conn.hello.role is Role.JOIN  # a new process: a new port
                self._back(seat, restarted=True, rejoined=rejoined,
                           moved=None if rejoined else self._moved(seat, conn))
                self.process(self.table.peer_back(seat, now))
                return
            if (self.told_taken.get(seat) is conn and posted > self.got[seat]
                    and seat not in self.restart_to):
                return  # it rebuilds from this node's log: its ``restarted`` sync follows
            if (taken and received < len(self.posted[seat]) and seat not in self.fresh
                    and seat not in self.restart_to):
                # what the peer missed of this node's payloads is void (its table took
                # this node's seats over without them): rebuild from a peer's log
                self.pending.pop(seat, None)
                self.mesh.peers[seat] = conn
                raise _Rebuild(seat)
            self.pending.pop(seat, None)
            self.told_taken.pop(seat, None)
            if seat in self.restart_to:
                # told it this node restarted: it starts counting again from 0, and its
                # log (coming) holds everything it sent; resend all posted since
                self.restart_to.discard(seat)
                for to, payload in self.posted[seat]:
                    self.mesh.node.send(conn, Game(to=to, payload=payload), prev=self.prev)
                self.await_log.add(seat)
            elif seat in self.fresh:  # this node restarted: nothing of the old run is due
                self.fresh.discard(seat)
            else:
                for to, payload in self.posted[seat][received:]:
                    self.mesh.node.send(conn, Game(to=to, payload=payload), prev=self.prev)
                    self.result.extra["resent"] = self.result.extra.get("resent", 0) + 1
                self.expect[seat] = posted
            self.mesh.peers[seat] = conn
            if seat in self.lost:
                self._back(seat, restarted=False, moved=self._moved(seat, conn))
            self._maybe_back(seat)
        elif kind == LOG_PART:
            answer = self.answers.setdefault(seat, _LogAnswer())
            frames = answer.add(body)
            if frames is None:
                return
            del self.answers[seat]
            records = records_from_frames(self.config, frames, me=self.mesh.seat)
            for frame in frames:
                self._logged(frame)
            self.process(self.table.receive(
                seat, bytes([RESYNC]) + encode_records(records), now))
            if seat in self.await_log:  # everything it sent is in now
                self.await_log.discard(seat)
                if seat in self.table.gone:
                    self.process(self.table.peer_back(seat, self.now()))

    def _moved(self, seat: int, conn: Connection) -> str | None:
        """``HOST:PORT`` where ``seat``'s node listens now, if not where it did at the
        deal (its address changed), else None."""
        where = (conn.address, conn.hello.port)
        if not conn.hello.port or where in self.dealt_at.get(seat, {where}):
            return None
        return format_address(*where)

    def _back(self, seat: int, *, restarted: bool, rejoined: bool = True,
              moved: str | None = None) -> None:
        self.lost.discard(seat)
        self.relayed.pop(seat, None)  # it resends, or rebuilds: relays are not due
        if seat in self.gone_for_good:
            self.gone_for_good.remove(seat)
        task = self.dialers.pop(seat, None)
        if task is not None:
            task.cancel()
        why = ("reconnected" if not restarted else "restarted; it gets the log" if rejoined
               else "reconnected; it gets the log")
        if moved is not None:
            why += f" at {moved}"
        self.frontend.presence(seat, self._who(seat), connected=True, reason=why)

    def _maybe_back(self, seat: int) -> None:
        """Every payload the peer resent is in: the table may count it back."""
        due = self.expect.get(seat)
        if due is not None and self.got[seat] >= due:
            del self.expect[seat]
            if seat in self.table.gone:
                self.process(self.table.peer_back(seat, self.now()))

    def _note_address(self, seat: int, conn: Connection) -> None:
        """Remember where a peer listens (the address it came from, its hello port)."""
        if conn.hello.port:
            where = (conn.address, conn.hello.port)
            known = self.where.setdefault(seat, [])
            if where in known:
                known.remove(where)
            known.insert(0, where)

    # --- dialling lost peers -------------------------------------------------------------

    def start_dial(self, seat: int) -> None:
        """Dial ``seat`` again in the background if this node is the one to dial: the
        higher seat dials the lower (a restarted node dials everyone)."""
        if (not self.options.redial or self.done is not None or seat in self.dialers
                or seat in self.gone_for_good or seat in self.finished_peers
                or (seat > self.mesh.seat and not self.restored)):
            return
        task = asyncio.ensure_future(self._dial(seat))
        self.dialers[seat] = task
        task.add_done_callback(partial(self._dial_done, seat))

    def _dial_done(self, seat: int, task: asyncio.Task[None]) -> None:
        if self.dialers.get(seat) is task:
            del self.dialers[seat]

    async def _dial(self, seat: int) -> None:
        """Try the seat's addresses with backoff until a connection is made (its
        ``Connected`` event then starts the sync) or it is back by itself: first the
        addresses known (the roster's, the last connection's), then — when none answers
        — where mDNS says it listens now (its address may have changed; the look-up
        runs meanwhile)."""
        delay = REDIAL_FIRST_S
        node = self.mesh.node
        key = self.config.seats[seat].key
        while self.done is None and seat in self.lost:
            if key in node.peers:
                return
            known = list(self.where.get(seat, []))
            finding = (asyncio.ensure_future(self.options.find_peer(seat))
                       if self.options.find_peer is not None else None)
            try:
                if await self._try(known):
                    return
                found: list[tuple[str, int]] = []
                if finding is not None:
                    with contextlib.suppress(Exception):
                        found = [f for f in await finding if f not in known]
                if found and await self._try(found):
                    self.result.extra["found_by_mdns"] = (
                        self.result.extra.get("found_by_mdns", 0) + 1)
                    return
            finally:
                if finding is not None:
                    finding.cancel()
            await asyncio.sleep(delay * (0.75 + 0.5 * self.rng.random()))
            delay = min(delay * 2, REDIAL_MAX_S)

    async def _try(self, addresses: list[tuple[str, int]]) -> bool:
        """Dial the first of ``addresses`` that answers; whether one did."""
        if not addresses:
            return False
        try:
            await self.mesh.node.connect_any(addresses, role=Role.PEER, timeout_s=3.0)
        except (JoinRefused, LocalError, RemoteError, OSError):
            return False
        return True

    def stop_dialling(self) -> None:
        for task in self.dialers.values():
            task.cancel()
        self.dialers.clear()

    def _gone_message(self, seats: Sequence[int]) -> str:
        who = " and ".join(self.names[s] for s in seats)
        return (f"{who} left after the rounds they asked for; the match cannot go on "
                "without them")

    def _who(self, seat: int) -> str:
        if 0 <= seat < len(self.names):
            return f"{self.names[seat]} (seat {seat})"
        return "an unknown player"

    # --- the loop ---------------------------------------------------------------------

    def next_wake(self) -> float | None:
        """The earliest of: the table's timer, the timer warning, the auto player (not
        while a thought runs); while asleep, only the end of the settling time."""
        if self.asleep is not None:
            settled = self.asleep + SETTLE_S
            return settled if settled > self.now() else None
        auto_at = self.auto_at if self.thought is None else None
        times = [t for t in (self.table.get_timer(), auto_at) if t is not None]
        deadline = self.table.deadline if self.table.my_turn else None
        if (deadline is not None and self.auto is None
                and self.warned != deadline):
            times.append(deadline - self.options.warn_s)
        return min(times) if times else None

    def on_wake(self) -> None:
        if self.asleep is not None:
            self._asleep_check()
            if self.asleep is not None:
                return  # no timer, no move while its seat may be someone else's
        now = self.now()
        timer = self.table.get_timer()
        if timer is not None and timer <= now:
            self.process(self.table.handle_timer(now))
        if self.auto_at is not None and self.auto_at <= now and self.thought is None:
            self.play_auto()
        deadline = self.table.deadline if self.table.my_turn else None
        if (deadline is not None and self.auto is None and self.warned != deadline
                and deadline - self.options.warn_s <= now):
            self.warned = deadline
            if deadline > now:
                self.frontend.warn(self.table, deadline - now)

    def _frozen(self, mark: float, timeout: float) -> float:
        """Check the loop's clock (returned) against its previous read ``mark`` and the
        inbox wait ``timeout`` since: a gap (not waiting) of ``FROZEN_S`` or more means
        the process did not run (or the loop was blocked) — this node may have been
        declared lost and its seats taken over meanwhile, while its table knows nothing
        of it (and its timers are all due at once). It then sends nothing more from that
        table until it knows (:meth:`_asleep_check`)."""
        now = self.now()
        gap = now - mark - timeout
        if gap < FROZEN_S or self.done is not None:
            return now
        self.asleep = self.now()
        self.asleep_told = False
        self.decision = self.auto_at = None
        self.result.extra["frozen"] = self.result.extra.get("frozen", 0) + 1
        self.frontend.show(self.table, [tev.Info(
            f"This computer did not run for {gap:.0f} s (asleep?): catching up with the "
            "table…")], self.now())
        return now

    def _asleep_note(self, why: str) -> str:
        return (f"This computer did not run for a while and {why}: rebuilding the table "
                "from the others' signed log.")

    def _asleep_check(self) -> None:
        """After a freeze: once the connections that ended meanwhile are back (each
        peer's ``sync`` said its table did not take this node's seats over, else the
        table is rebuilt) — or after ``ASLEEP_MAX_S`` — play on: send what the table
        held, and count the peers still missing as lost."""
        now = self.now()
        if self.asleep is None or now < self.asleep + SETTLE_S:
            return
        missing = sorted(self.asleep_lost & self.lost)
        if missing and now < self.asleep + ASLEEP_MAX_S:
            if not self.asleep_told:
                self.asleep_told = True
                who = " and ".join(self.names[s] for s in missing)
                self.frontend.show(self.table, [tev.Info(
                    f"Waiting for {who} to connect again, to learn whether the others "
                    "played your seat meanwhile…")], now)
            return
        self.asleep = None
        self.asleep_lost.clear()
        held, self.held = self.held, []
        for seat, conn in list(self.unsynced.items()):
            del self.unsynced[seat]
            if self.pending.get(seat) is conn:
                self._send_sync(seat, conn)
        said = ("Caught up with the table: play goes on." if not missing else
                f"{' and '.join(self.names[s] for s in missing)} did not connect again "
                f"within {ASLEEP_MAX_S:g} s (the table may have ended meanwhile): going on "
                "as after a lost connection.")
        self.process(Output(held, [tev.Info(said)]))
        for seat in missing:
            self.process(self.table.peer_lost(seat, now))

    async def run(self, lines: asyncio.Queue[str] | None) -> Result:
        inbox = _Inbox(self.mesh, lines)
        try:
            if self.restored:
                self.fresh = set(self.mesh.peers)
                self.restart_to = set(self.others) - self.fresh
                for seat in self.others:
                    if seat not in self.mesh.peers:  # not reachable now
                        self.lost.add(seat)
                        self.process(self.table.peer_lost(seat, self.now()))
                        self.start_dial(seat)
                self.restored_events()
            else:
                self.process(self.table.start(self.now()))
            self.decision_point()
            mark = self.now()  # the last clock read in the loop (see _frozen)
            while self.done is None:
                wake = self.next_wake()
                timeout = TICK_S if wake is None else min(TICK_S, max(0.0, wake - self.now()))
                try:
                    item = await inbox.next(timeout, self.thought)
                except TimeoutError:
                    mark = self._frozen(mark, timeout)
                    self.on_wake()
                else:
                    # before handling what it woke up for (a timer, a buffered payload)
                    mark = self._frozen(mark, timeout)
                    if self.thought is not None and item is self.thought:
                        self.thought_done()
                    elif isinstance(item, str):
                        self.typed(item)
                    else:
                        self.incoming(item)
                    if (wake := self.next_wake()) is not None and wake <= self.now():
                        self.on_wake()
                self.decision_point()
        except asyncio.CancelledError:
            self.leave(quietly=True)  # Ctrl-C / SIGTERM: the others take the seat over
            raise
        finally:
            inbox.close()
            self.stop_dialling()
            if self.thought is not None:
                self.thought.cancel()  # its thread runs on; the answer is dropped
        self.result.last = self.prev
        return self.result


def _key_secret(mesh: Mesh, options: Options) -> bytes | None:
    """The per-table secret the round keys of this node derive from (a restarted node
    sends them back: protocol/table.md "Coming back"), kept beside the table log; None
    when no log is written. Raises CorruptSecret (MalformedInput) for a damaged file."""
    if not options.write_log:
        return None
    return table_secret(mesh.node.table, mesh.seat, options.log_dir)


async def _restore(mesh: Mesh, config: TableConfig, notes: list[str], *,
                   timeout_s: float, key_secret: bytes | None = None
                   ) -> tuple[Table, list[bytes], dict[int, _LogAnswer]]:
    """A restarted node: ask every connected peer for its log (``sync`` with
    ``restarted``), rebuild the table with :meth:`Table.restore` from the first complete
    answer that checks out, and put every other event back for the runner (in order);
    returns the table, the frames it was rebuilt from and the other peers' partial
    answers (their further parts come to the runner).
    Raises :class:`PeerLost` when no peer answers, :class:`TableFailed` when no answer
    checks out."""
    node = mesh.node
    for seat, conn in mesh.peers.items():
        node.send(conn, Game(to=seat, payload=sync_payload(0, 0, restarted=True)))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    held: list[NetEvent] = []
    answers: dict[int, _LogAnswer] = {}
    failures: list[str] = []
    waiting = set(mesh.peers)
    while waiting:
        try:
            event = await mesh.next_event(max(0.0, deadline - loop.time()))
        except TimeoutError:
            break
        if isinstance(event, Lost) and event.peer.seat is not None:
            waiting.discard(event.peer.seat)
        body = event.received.message.body if isinstance(event, Incoming) else None
        sender = event.received.message.seat if isinstance(event, Incoming) else None
        if (not isinstance(body, Game) or body.payload[:1] != bytes([LOG_PART])
                or sender is None or sender not in waiting):
            held.append(event)
            continue
        seat = sender
        try:
            frames = answers.setdefault(seat, _LogAnswer()).add(body.payload[1:])
            if frames is None:
                continue
            waiting.discard(seat)
            records = await asyncio.to_thread(records_from_frames, config, frames,
                                              me=mesh.seat)
            table = await asyncio.to_thread(
                Table.restore, config, me=mesh.seat, records=records, rand=os.urandom,
                seed=mesh.digest, now=loop.time(), sign=mesh.node.identity.sign,
                key_secret=key_secret)
        except MalformedInput as exc:
            failures.append(f"{config.names[seat]}'s log: {_said(config.names, exc)}")
            continue
        if table.failed is not None:
            failures.append(f"{config.names[seat]}'s log: "
                            f"{_said(config.names, table.failed)}")
            continue
        notes.append(f"Got the log of the table from {config.names[seat]} "
                     f"({len(frames)} signed frames, every signature checked).")
        mesh.early[:0] = held
        del answers[seat]
        return table, frames, answers
    mesh.early[:0] = held
    if failures:
        raise TableFailed("could not rebuild the table from the log: " + "; ".join(failures))
    raise PeerLost("no player of the table sent its log in time; the table cannot be "
                   "rebuilt", seat=mesh.seat)


def _new_log(mesh: Mesh, config: TableConfig, options: Options, frames: Sequence[bytes],
             *, rejoined: bool) -> TableLogWriter:
    """A new table log file (a ``-2``… name if one exists) starting with ``frames``."""
    path = log_path(mesh.node.table, mesh.seat, directory=options.log_dir)
    header = log_header(config, mesh)
    if rejoined:
        header["rejoined"] = True
    log = TableLogWriter.create(path, header)
    for frame in frames:
        log.append(frame)
    return log


async def play_table(mesh: Mesh, frontend: Frontend, *, options: Options | None = None,
                     lines: asyncio.Queue[str] | None = None) -> Result:
    """Play the dealt table on ``mesh`` until the match ends, ``options.rounds`` rounds are
    played, or the player leaves; then say goodbye to the peers. A ``mesh.rejoined``
    (a restarted node let back in) first rebuilds the table from a peer's log.

    ``lines`` are typed lines (:data:`EOF_MARK` at the end of input). Raises
    :class:`PeerLost` when the match cannot go on without a player who left,
    :class:`TableFailed` when a peer sends invalid data or the table fails; the log is
    closed (fsynced) either way.
    """
    options = options or Options()
    log: TableLogWriter | None = None
    run: _Run | None = None
    try:
        config = table_config(mesh, turn_timeout_s=options.turn_timeout_s)
        table: Table | None = None
        frames: list[bytes] = []
        answers: dict[int, _LogAnswer] = {}
        notes: list[str] = []
        if mesh.rejoined:
            table, frames, answers = await _restore(mesh, config, notes,
                                                    timeout_s=options.log_timeout_s,
                                                    key_secret=_key_secret(mesh, options))
        if options.write_log:
            log = _new_log(mesh, config, options, frames, rejoined=mesh.rejoined)
        run = _Run(mesh, frontend, options, log, config, table=table, frames=frames)
        run.answers.update(answers)
        run.notes = notes
        frontend.started(run.table, run.config, log=run.result.log, auto=options.auto,
                         rejoined=run.restored)
        while True:
            try:
                result = await run.run(lines)
                break
            except _Rebuild as rebuild:
                old = run
                # Every peer connected now is asked for its log (the one that said so
                # among them); the seats still missed are dialled again afterwards.
                mesh.peers.update(old.pending)
                for seat in old.lost:
                    if seat != rebuild.seat and seat not in old.pending:
                        mesh.peers.pop(seat, None)
                notes = [rebuild.note or (
                    f"Your seat was taken over while the connection was down, and "
                    f"{config.names[rebuild.seat]} never got your last moves: "
                    "rebuilding the table from the others' signed log.")]
                table, frames, answers = await _restore(
                    mesh, config, notes, timeout_s=options.log_timeout_s,
                    key_secret=_key_secret(mesh, options))
                if log is not None:
                    with contextlib.suppress(OSError):
                        log.close()
                    log = None
                if options.write_log:
                    log = _new_log(mesh, config, options, frames, rejoined=True)
                    notes.append(f"The log of the table goes on in {log.path}.")
                run = _Run(mesh, frontend, options, log, config, table=table, frames=frames)
                run.answers.update(answers)
                run.notes = notes
                run.where.update(old.where)
                run.result.extra.update(old.result.extra)
                run.result.extra["rebuilt"] = run.result.extra.get("rebuilt", 0) + 1
                run.result.sent += old.result.sent
                run.result.received += old.result.received
        frontend.finished(run.table, run.done or "")
        return result
    finally:
        if log is not None:
            with contextlib.suppress(OSError):
                log.close()
        await mesh.node.flush()
        with contextlib.suppress(Exception):
            await mesh.node.aclose(DONE_REASON if run is not None and run.completed else
                                   LEFT_REASON)


def _said(names: Sequence[str], what: tev.Fault | LocalError) -> str:
    """The words of a table fault or error (the runner says them in TableFailed)."""
    from p2p8s.cli.words import Speaker
    from p2p8s.cli.words.table import said

    speaker = Speaker(names=tuple(names))
    return speaker.error(what) if isinstance(what, LocalError) else said(what, speaker)
