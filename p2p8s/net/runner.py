"""The asyncio adapter around the replicated table: the loop, dialling, threads and files.

:func:`play_table` runs one dealt table (a :class:`~p2p8s.net.lobby.Mesh`) to its end.
What every node must decide alike, and the runners' own protocol (the sync / resend /
relay payloads, the frozen-process rule, the rebuild decision, the ``--rounds`` cut-off,
when the match cannot go on; protocol/table.md "The runner's part"), is the pure
:class:`~p2p8s.table.link.Link`; the table's configuration is
:func:`~p2p8s.table.roster.table_config`. This module feeds the link network events,
the loop's monotonic clock and the local player's moves, and carries out what it puts
out (:data:`~p2p8s.table.linkout.Out`): it signs and sends, chaining ``prev`` to the
last game message handled; appends every signed game frame sent or received to the
table log (:mod:`p2p8s.store.tablelog`, marked at every round end); dials a lost peer
again with backoff (roster addresses, the last connection's, then mDNS); and, for a
restarted node or a :class:`~p2p8s.table.linkout.Rebuild`, asks the peers for their
log and rebuilds the table with :meth:`Table.restore` off the loop.

Typed lines come from a queue (filled by a reader thread; the loop never blocks on
input) and go to the :class:`Frontend`, which turns them into actions; a computer may
play the local seat (``auto``). The bots' thinking (the auto player, a hint) runs in a
worker thread (:class:`Think`) on a snapshot (a :class:`~p2p8s.bots.base.View`, the
legal actions, its own RNG); its choice is applied on the loop only if the decision it
was for still stands — the table is only ever touched by the loop. The frontend (the
terminal client, or a test's recorder) does all the talking: it is given events and
:class:`~p2p8s.table.linkout.Note` values (codes and data).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from p2p8s.bots.base import Bot
from p2p8s.bots.registry import get_bot
from p2p8s.codes import format_address
from p2p8s.engine import Action
from p2p8s.errors import LocalError, MalformedInput, RemoteError
from p2p8s.net.lobby import Mesh
from p2p8s.net.node import Connected, Connection, Incoming, JoinRefused, Lost, NetEvent
from p2p8s.store.tablelog import TableLogWriter, log_path, table_secret
from p2p8s.table import Table, TableConfig
from p2p8s.table.core import STAND_IN
from p2p8s.table.link import Link
from p2p8s.table.linkout import (
    Conn,
    Dial,
    LinkCode,
    LogFailure,
    Note,
    Out,
    PeerBack,
    PeerGone,
    PeerLost,
    Post,
    Rebuild,
    Refused,
    Resend,
    RoundLogged,
    Send,
    SendLog,
    Show,
    TableFailed,
    Undial,
    Use,
    note,
)
from p2p8s.table.linkout import Log as LogFrame
from p2p8s.table.logverify import records_from_frames
from p2p8s.table.roster import TURN_TIMEOUT_S, table_config
from p2p8s.table.sync import LOG_PART, Bye, LogAnswer, Sync, log_parts
from p2p8s.wire import Game, Role, Welcome

__all__ = ["EOF_MARK", "Frontend", "Leave", "Options", "PeerLost", "Result", "TableFailed",
           "Think", "Typed", "play_table"]

#: Seconds before the turn timer runs out when the player is warned.
WARN_S = 10.0
#: Seconds between dial attempts to a lost peer: from the first, doubling to the last.
REDIAL_FIRST_S = 0.5
REDIAL_MAX_S = 8.0
#: Seconds a restarted node waits for a complete log from a peer.
LOG_TIMEOUT_S = 60.0
#: The runner's inbox wait is at most this long, so the loop's clock is read often.
TICK_S = 0.5
#: Typed words that leave the table even while the computer plays the seat (``--auto``).
QUIT_WORDS = frozenset({"quit", "q", "exit"})
#: Put on a lines queue at the end of input.
EOF_MARK = "\x04"


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
        """Report the table's events and the runner's :class:`Note` values (in order)."""

    def presence(self, seat: int, name: str, *, connected: bool, reason: Note) -> None:
        """Seat ``seat``'s node (``name``: the seat's name) connected or left; ``reason``
        says how (a ``GONE_*`` or ``BACK_*`` note)."""

    def turn(self, table: Table, now: float) -> None:
        """It is this seat's decision now (a person plays it): show the table, prompt."""

    def warn(self, table: Table, seconds_left: float) -> None:
        """The turn timer is about to run out."""

    def typed(self, table: Table, line: str, now: float) -> Typed:
        """A line the person typed: answer with an action, :class:`Leave`, a
        :class:`Think` (slow work, such as a hint, done off the loop) or ``None``."""

    def finished(self, table: Table, why: Note) -> None:
        """The runner stops (match over, rounds played, or the player left: a ``DONE_*``
        note)."""


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

    def count(self, counts: dict[str, int]) -> None:
        """Add ``counts`` to :attr:`extra`."""
        for key, n in counts.items():
            self.extra[key] = self.extra.get(key, 0) + n


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


class _Run:
    """One table being played on this node: the :class:`Link` and what it drives."""

    def __init__(self, mesh: Mesh, frontend: Frontend, options: Options,
                 log: TableLogWriter | None, config: TableConfig, *,
                 table: Table | None = None, frames: Sequence[bytes] = (),
                 answers: dict[int, LogAnswer] | None = None,
                 notes: Sequence[Note] = ()) -> None:
        self.mesh = mesh
        self.frontend = frontend
        self.options = options
        self.auto = options.auto
        self.log = log
        self.loop = asyncio.get_running_loop()
        self.config = config
        self.names = config.names
        self.table = table if table is not None else Table(
            config, me=mesh.seat, rand=os.urandom, seed=mesh.digest,
            sign=mesh.node.identity.sign, key_secret=_key_secret(mesh, options))
        self.result = Result(log=log.path if log is not None else None)
        self.prev = b""
        self.decision: object = None
        self.warned: float | None = None
        self.auto_at: float | None = None
        self.rng = random.Random(os.urandom(16))
        self.thought: asyncio.Future[Any] | None = None
        self.then: Callable[[Any, float], Typed] | None = None
        #: every signed game frame this node logged, in order (a restarted peer's log)
        self.frames: list[bytes] = list(frames)
        self.conns: list[Connection] = []  # the connections the link knows, by number
        self.dialers: dict[int, asyncio.Task[None]] = {}
        self.where: dict[int, list[tuple[str, int]]] = {}
        for entry in mesh.roster.seats:
            self.where[entry.seat] = [(a, entry.port) for a in entry.addrs]
        #: where each seat listened at the deal (a peer back from elsewhere moved)
        self.dealt_at = {s: set(w) for s, w in self.where.items()}
        for seat, conn in mesh.peers.items():
            self._note_address(seat, conn)
        self.link = Link(self.table, peers={s: self._conn(s, c) for s, c in mesh.peers.items()},
                         rounds=options.rounds, restored=table is not None, seen=frames,
                         notes=notes, answers=answers, come_back=options.come_back,
                         log_name=str(log.path) if log is not None else None)

    def now(self) -> float:
        return self.loop.time()

    # --- what the link puts out ---------------------------------------------------------

    def execute(self, outs: Sequence[Out]) -> None:
        """Carry out the link's outputs in order; raise its failure, if it stopped."""
        node = self.mesh.node
        for out in outs:
            if isinstance(out, Post):
                self.prev, body = self.mesh.post(out.to, out.payload, prev=self.prev)
                self.result.sent += 1
                self._logged(body)
            elif isinstance(out, LogFrame):
                self.prev = out.head if out.head is not None else self.prev
                self._logged(out.frame)
            elif isinstance(out, Send):
                node.send(self.conns[out.conn], Game(to=out.to, payload=out.payload))
            elif isinstance(out, Resend):
                node.send(self.conns[out.conn], Game(to=out.to, payload=out.payload),
                          prev=self.prev)
            elif isinstance(out, SendLog):
                for part in log_parts(self.frames):
                    node.send(self.conns[out.conn], Game(to=out.seat, payload=part))
            elif isinstance(out, Use):
                self.mesh.peers[out.seat] = self.conns[out.conn]
            elif isinstance(out, Rebuild):
                self.mesh.peers.clear()
                self.mesh.peers.update({s: self.conns[c] for s, c in out.peers.items()})
            elif isinstance(out, Show):
                self.frontend.show(self.table, out.events, self.now())
            elif isinstance(out, PeerGone | PeerBack):
                self.frontend.presence(out.seat, self.names[out.seat],
                                       connected=isinstance(out, PeerBack),
                                       reason=out.how if isinstance(out, PeerBack) else out.why)
            elif isinstance(out, Dial):
                self.start_dial(out.seat)
            elif isinstance(out, Undial):
                task = self.dialers.pop(out.seat, None)
                if task is not None:
                    task.cancel()
            elif isinstance(out, RoundLogged):
                self._mark(out)
            elif isinstance(out, Refused):
                self.frontend.show(self.table, [note(LinkCode.REFUSED, error=out.error)],
                                   self.now())
                self.decision = None
        if self.link.failure is not None:
            raise self.link.failure

    def _logged(self, body: bytes) -> None:
        self.frames.append(body)
        if self.log is not None:
            self.log.append(body)

    def _mark(self, out: RoundLogged) -> None:
        if self.log is None:
            return
        if out.transcript is None:
            self.log.mark({"round_over": out.number, "audit_ok": out.audit_ok,
                           "replayed": True, "totals": list(out.totals)})
        else:
            self.log.mark({"round_over": out.number, "audit_ok": out.audit_ok,
                           "transcript": out.transcript.hex(), "totals": list(out.totals)})

    def _id(self, conn: Connection) -> int:
        """The number the link knows ``conn`` by (given on first sight)."""
        number = next((i for i, c in enumerate(self.conns) if c is conn), None)
        if number is None:
            number = len(self.conns)
            self.conns.append(conn)
        return number

    def _conn(self, seat: int, conn: Connection) -> Conn:
        """The link's record of ``seat``'s connection ``conn``: whether its node listens
        elsewhere than at the deal (its address changed), whether it came to join."""
        where = (conn.address, conn.hello.port)
        moved = (format_address(*where) if conn.hello.port
                 and where not in self.dealt_at.get(seat, {where}) else None)
        return Conn(id=self._id(conn), moved=moved, joined=conn.hello.role is Role.JOIN)

    def _note_address(self, seat: int, conn: Connection) -> None:
        """Remember where a peer listens (the address it came from, its hello port)."""
        if conn.hello.port:
            where = (conn.address, conn.hello.port)
            known = self.where.setdefault(seat, [])
            if where in known:
                known.remove(where)
            known.insert(0, where)

    # --- the local seat ----------------------------------------------------------------

    def decision_point(self) -> None:
        """Prompt the person (or arm the auto player) when the table waits for us."""
        if self.link.asleep:
            self.decision = self.auto_at = None  # prompted again once it knows
            return
        if self.link.done is not None or not self.table.my_turn:
            self.decision = None
            return
        view = self.table.view()
        if view is None:
            return
        key = (self.link.rounds, len(view.log), view.drawn, view.pending_draw)
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
            if (self.link.done is not None or self.decision != decision
                    or not self.table.my_turn):
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
        if self.link.asleep:
            return  # thought out before a freeze: the decision is made again afterwards
        self.answer(then(thought.result(), self.now()))

    def answer(self, answer: Typed) -> None:
        """Carry out a frontend's answer: act, leave, or think first."""
        if isinstance(answer, Leave):
            self.leave()
        elif isinstance(answer, Think):
            self.think(answer)
        elif answer is not None:
            self.execute(self.link.act(answer, self.now()))

    def leave(self, *, quietly: bool = False) -> None:
        """The local player leaves (``quietly``: on Ctrl-C / SIGTERM)."""
        self.execute(self.link.leave(self.now(), quietly=quietly))

    def typed(self, line: str) -> None:
        words = line.strip().lower()
        if line == EOF_MARK:
            if self.auto is None and self.link.done is None:
                self.auto = get_bot(STAND_IN)
                self.decision = None
                self.frontend.show(self.table, [note(LinkCode.INPUT_ENDED, bot=STAND_IN)],
                                   self.now())
        elif self.link.asleep and words not in QUIT_WORDS:
            self.frontend.show(self.table, [note(LinkCode.STILL_CATCHING_UP)], self.now())
        elif self.auto is not None:
            if words in QUIT_WORDS:
                self.leave()  # the computer plays, but the person may still leave
        else:
            if words:  # anything typed says the person is back (R-TIMER: no short grace)
                self.execute(self.link.present(self.now()))
            self.answer(self.frontend.typed(self.table, line, self.now()))

    # --- the network ---------------------------------------------------------------------

    def incoming(self, event: object) -> None:
        if isinstance(event, Incoming):
            rec = event.received
            body = rec.message.body
            if isinstance(body, Game):  # else: late lobby echoes, roster repeats
                seat = rec.message.seat if rec.message.seat is not None else event.peer.seat
                self.execute(self.link.received(seat, self._id(event.peer), body,
                                                frame=rec.body, digest=rec.digest,
                                                now=self.now()))
        elif isinstance(event, Lost):
            self.execute(self.link.lost(event.peer.seat, self._id(event.peer),
                                        event.reason, self.now(), error=event.error))
        elif isinstance(event, Connected):
            self.connected(event.peer)

    def connected(self, conn: Connection) -> None:
        """A node finished the handshake after the deal: a roster member coming back
        (the link starts the ``sync``), or a stranger (refused)."""
        seat = self.mesh.roster.seat_of(conn.key)
        if seat is None or not self.link.member(seat):
            self.mesh.node.close_peer(conn, "the game has started at this table",
                                      refuse="closed")
            return
        conn.set_seat(seat)
        self._note_address(seat, conn)
        if self.mesh.peers.get(seat) is conn:
            return  # already in use (a rejoined mesh)
        if conn.hello.role is Role.JOIN:  # `p2p8s join` again: it needs the roster
            self.mesh.node.send(conn, Welcome(seat=seat, roster=self.mesh.roster))
        self.execute(self.link.connected(seat, self._conn(seat, conn), self.now()))

    # --- dialling lost peers -------------------------------------------------------------

    def start_dial(self, seat: int) -> None:
        """Dial ``seat`` again in the background (the link said this node is the one)."""
        if not self.options.redial or seat in self.dialers:
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
        while self.link.done is None and seat in self.link.away:
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
                    self.result.count({"found_by_mdns": 1})
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

    # --- the loop ---------------------------------------------------------------------

    def next_wake(self) -> float | None:
        """The earliest of: the link's timer, the timer warning, the auto player (not
        while a thought runs); while asleep, only the link's."""
        timer = self.link.get_timer()
        if self.link.asleep:
            return timer
        auto_at = self.auto_at if self.thought is None else None
        times = [t for t in (timer, auto_at) if t is not None]
        deadline = self.table.deadline if self.table.my_turn else None
        if deadline is not None and self.auto is None and self.warned != deadline:
            times.append(deadline - self.options.warn_s)
        return min(times) if times else None

    def on_wake(self) -> None:
        now = self.now()
        timer = self.link.get_timer()
        if timer is not None and timer <= now:
            self.execute(self.link.handle_timer(now))
        if self.link.asleep:
            return  # no move while its seat may be someone else's
        if self.auto_at is not None and self.auto_at <= now and self.thought is None:
            self.play_auto()
        deadline = self.table.deadline if self.table.my_turn else None
        if (deadline is not None and self.auto is None and self.warned != deadline
                and deadline - self.options.warn_s <= now):
            self.warned = deadline
            if deadline > now:
                self.frontend.warn(self.table, deadline - now)

    def clock(self, waited_s: float) -> None:
        """Tell the link the loop's clock (it may find the process was frozen)."""
        self.execute(self.link.clock(self.now(), waited_s))
        if self.link.asleep:
            self.decision = self.auto_at = None

    async def run(self, lines: asyncio.Queue[str] | None) -> Result:
        """Play until the link is done (or fails: raised), or must be rebuilt."""
        inbox = _Inbox(self.mesh, lines)
        try:
            self.execute(self.link.start(self.now()))
            self.decision_point()
            self.link.clock(self.now())  # the first read (see Link.clock)
            while self.link.done is None and self.link.rebuild is None:
                wake = self.next_wake()
                timeout = TICK_S if wake is None else min(TICK_S, max(0.0, wake - self.now()))
                try:
                    item = await inbox.next(timeout, self.thought)
                except TimeoutError:
                    self.clock(timeout)
                    self.on_wake()
                else:
                    self.clock(timeout)  # before handling what it woke up for
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
        self.result.rounds = self.link.rounds
        self.result.match_over = self.link.match_over
        self.result.received += self.link.received_count
        self.result.count(self.link.counts)
        self.result.last = self.prev
        return self.result


def _key_secret(mesh: Mesh, options: Options) -> bytes | None:
    """The per-table secret the round keys of this node derive from (a restarted node
    sends them back: protocol/table.md "Coming back"), kept beside the table log; None
    when no log is written. Raises CorruptSecret (MalformedInput) for a damaged file."""
    if not options.write_log:
        return None
    return table_secret(mesh.node.table, mesh.seat, options.log_dir)


@dataclass(slots=True)
class _Restored:
    """A table rebuilt from a peer's log: the frames it was rebuilt from, the other
    peers' partial answers (their further parts come to the link), what to tell."""

    table: Table
    frames: list[bytes]
    answers: dict[int, LogAnswer]
    notes: list[Note]


async def _restore(mesh: Mesh, config: TableConfig, notes: list[Note], *,
                   timeout_s: float, key_secret: bytes | None = None) -> _Restored:
    """A restarted node: ask every connected peer for its log (``sync`` with
    ``restarted``), rebuild the table with :meth:`Table.restore` from the first complete
    answer that checks out, and put every other event back for the runner (in order).
    Raises :class:`PeerLost` when no peer answers, :class:`TableFailed` when no answer
    checks out."""
    node = mesh.node
    for peer, conn in mesh.peers.items():
        node.send(conn, Game(to=peer, payload=Sync(received=0, posted=0,
                                                   restarted=True).payload()))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    held: list[NetEvent] = []
    answers: dict[int, LogAnswer] = {}
    failures: list[LogFailure] = []
    waiting = set(mesh.peers)
    while waiting:
        try:
            event = await mesh.next_event(max(0.0, deadline - loop.time()))
        except TimeoutError:
            break
        if isinstance(event, Lost) and event.peer.seat is not None:
            waiting.discard(event.peer.seat)
        body = event.received.message.body if isinstance(event, Incoming) else None
        seat = event.received.message.seat if isinstance(event, Incoming) else None
        if (not isinstance(body, Game) or body.payload[:1] != bytes([LOG_PART])
                or seat is None or seat not in waiting):
            held.append(event)
            continue
        try:
            frames = answers.setdefault(seat, LogAnswer()).add(body.payload[1:])
            if frames is None:
                continue
            waiting.discard(seat)
            records = await asyncio.to_thread(records_from_frames, config, frames,
                                              me=mesh.seat)
            table = await asyncio.to_thread(
                Table.restore, config, me=mesh.seat, records=records, rand=os.urandom,
                seed=mesh.digest, now=loop.time(), sign=mesh.node.identity.sign,
                key_secret=key_secret)
        except (MalformedInput, RemoteError) as exc:
            failures.append(LogFailure(seat=seat, name=config.names[seat], error=exc))
            continue
        if table.failed is not None:
            failures.append(LogFailure(seat=seat, name=config.names[seat],
                                       fault=table.failed.message))
            continue
        mesh.early[:0] = held
        del answers[seat]
        said = note(LinkCode.GOT_LOG, seat=seat, frames=len(frames))
        return _Restored(table=table, frames=frames, answers=answers, notes=[*notes, said])
    mesh.early[:0] = held
    if failures:
        raise TableFailed(LinkCode.REBUILD_FAILED, failures=failures)
    raise PeerLost(LinkCode.NO_LOG, seat=mesh.seat)


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
        config = table_config(mesh.roster, table=mesh.node.table, seed=mesh.digest,
                              turn_timeout_s=options.turn_timeout_s)
        restored: _Restored | None = None
        if mesh.rejoined:
            restored = await _restore(mesh, config, [], timeout_s=options.log_timeout_s,
                                      key_secret=_key_secret(mesh, options))
        if options.write_log:
            log = _new_log(mesh, config, options, restored.frames if restored else (),
                           rejoined=mesh.rejoined)
        run = _new_run(mesh, frontend, options, log, config, restored)
        frontend.started(run.table, run.config, log=run.result.log, auto=options.auto,
                         rejoined=restored is not None)
        while True:
            result = await run.run(lines)
            rebuild = run.link.rebuild
            if rebuild is None:
                break
            # Every peer connected now is asked for its log (the one that said so among
            # them); the seats still missed are dialled again afterwards.
            old = run
            restored = await _restore(mesh, config, [rebuild.why],
                                      timeout_s=options.log_timeout_s,
                                      key_secret=_key_secret(mesh, options))
            if log is not None:
                with contextlib.suppress(OSError):
                    log.close()
                log = None
            if options.write_log:
                log = _new_log(mesh, config, options, restored.frames, rejoined=True)
                restored.notes.append(note(LinkCode.LOG_GOES_ON, path=str(log.path)))
            run = _new_run(mesh, frontend, options, log, config, restored)
            run.where.update(old.where)
            run.result.count({**old.result.extra, "rebuilt": 1})
            run.result.sent += old.result.sent
            run.result.received += old.result.received
        assert run.link.done is not None
        frontend.finished(run.table, run.link.done)
        return result
    finally:
        if log is not None:
            with contextlib.suppress(OSError):
                log.close()
        await mesh.node.flush()
        with contextlib.suppress(Exception):
            await mesh.node.aclose(Bye.FINISHED.value if run is not None
                                   and run.link.completed else Bye.LEFT.value)


def _new_run(mesh: Mesh, frontend: Frontend, options: Options, log: TableLogWriter | None,
             config: TableConfig, restored: _Restored | None) -> _Run:
    if restored is None:
        return _Run(mesh, frontend, options, log, config)
    return _Run(mesh, frontend, options, log, config, table=restored.table,
                frames=restored.frames, answers=restored.answers, notes=restored.notes)
