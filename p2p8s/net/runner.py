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
  :meth:`Table.get_timer` (the 30-second turn timer lives in the table);
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
- reports a lost peer: one that said it finished is let go if the match is over or this
  node stops with it; otherwise (it played only the rounds it asked for) and on any
  other loss the match ends with a message naming the player (taking over a lost seat
  is issue #6); a node never sends messages of a round past its ``rounds``. Connections
  of nodes not in the roster (a newcomer after the deal) are refused and their loss
  is ignored.

The frontend (the terminal client, or a test's recorder) does all the talking.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from p2p8s.bots.base import Bot
from p2p8s.bots.registry import get_bot
from p2p8s.crypto.messages import decode as decode_crypto
from p2p8s.engine import Action
from p2p8s.errors import IllegalAction, LocalError, RemoteError
from p2p8s.net.lobby import Mesh
from p2p8s.net.node import Connected, Incoming, Lost
from p2p8s.rules import default_target
from p2p8s.solo import pick_opponents
from p2p8s.store.tablelog import TableLogWriter, log_path
from p2p8s.table import Output, SeatInfo, Table, TableConfig
from p2p8s.table import events as tev
from p2p8s.table.actions import CRYPTO
from p2p8s.table.core import STAND_IN
from p2p8s.wire import MAX_NAME, Game

#: The ``bye`` reason of a node that played to the end (its peers let it go quietly).
DONE_REASON = "finished playing"
#: Seconds before the turn timer runs out when the player is warned.
WARN_S = 10.0
#: Seconds a person has for a turn (R-TIMER).
TURN_TIMEOUT_S = 30.0


class PeerLost(LocalError):
    """A player's node left the table during the match; the match cannot go on."""

    def __init__(self, message: str, *, seat: int) -> None:
        super().__init__(message)
        self.seat = seat


class TableFailed(LocalError):
    """The table stopped: a peer broke the rules or the logs disagree (the message says who)."""


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
                auto: Bot | None) -> None:
        """The match begins: who sits where, where the log goes."""

    def show(self, table: Table, events: Sequence[object], now: float) -> None:
        """Report the table's events (in order) after one step."""

    def presence(self, seat: int, name: str, *, connected: bool, reason: str) -> None:
        """A seat's node connected or left."""

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


#: Put on a lines queue at the end of input.
EOF_MARK = "\x04"


class _Run:
    """One table being played on this node (the state :func:`play_table` needs)."""

    def __init__(self, mesh: Mesh, frontend: Frontend, options: Options,
                 log: TableLogWriter | None, config: TableConfig) -> None:
        self.mesh = mesh
        self.frontend = frontend
        self.options = options
        self.auto = options.auto
        self.log = log
        self.loop = asyncio.get_running_loop()
        self.config = config
        self.table = Table(self.config, me=mesh.seat, rand=os.urandom, seed=mesh.digest)
        self.result = Result(log=log.path if log is not None else None)
        self.prev = b""
        self.done: str | None = None
        self.completed = False  # played to the end (rounds asked for, or the match)
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

    def now(self) -> float:
        return self.loop.time()

    # --- output ------------------------------------------------------------------------

    def process(self, out: Output) -> None:
        """Send the messages, log them, show the events, note round and match ends."""
        limit = self.options.rounds
        for msg in out.messages:
            if limit is not None and _round_of(msg.payload) > limit:
                continue  # a round this node will not play: the others must not wait on it
            digest, body = self.mesh.post(msg.to, msg.payload, prev=self.prev)
            self.prev = digest
            self.result.sent += 1
            if self.log is not None:
                self.log.append(body)
        shown: list[object] = []
        gone: str | None = None
        for event in out.events:
            if self.done is not None and not isinstance(event, tev.MatchOver):
                break  # the rounds asked for are played: later events are not shown
            shown.append(event)
            if isinstance(event, tev.RoundOver):
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
            raise TableFailed(f"the table stopped: {who} broke the rules ({fault.message}); "
                              f"the log is in {self.result.log}")
        if gone is not None and self.done is None:
            raise PeerLost(gone, seat=min(self.finished_peers))
        if self.table.finished and self.done is None:
            self.result.match_over = True
            self.done = "the match is over"
            self.completed = True

    # --- the local seat ----------------------------------------------------------------

    def decision_point(self) -> None:
        """Prompt the person (or arm the auto player) when the table waits for us."""
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
        self.answer(then(thought.result(), self.now()))

    def answer(self, answer: Typed) -> None:
        """Carry out a frontend's answer: act, leave, or think first."""
        if isinstance(answer, Leave):
            self.done = "you left the table"
        elif isinstance(answer, Think):
            self.think(answer)
        elif answer is not None:
            self.act(answer)

    def act(self, action: Action) -> None:
        try:
            out = self.table.act(action, self.now())
        except IllegalAction as exc:
            self.frontend.show(self.table, [tev.Info(text=f"{exc}")], self.now())
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
        if self.auto is not None:
            return
        self.answer(self.frontend.typed(self.table, line, self.now()))

    # --- the network ---------------------------------------------------------------------

    def incoming(self, event: object) -> None:
        if isinstance(event, Incoming):
            rec = event.received
            body = rec.message.body
            if not isinstance(body, Game):
                return  # late lobby echoes, roster repeats
            seat = rec.message.seat if rec.message.seat is not None else event.peer.seat
            if seat is None or (body.to is not None and body.to != self.mesh.seat):
                self.frontend.show(self.table, [tev.Fault(
                    seat=seat, message=f"{event.peer} sent a game message addressed to "
                    f"seat {body.to}")], self.now())
                return
            self.prev = rec.digest
            self.result.received += 1
            self.last_round[seat] = max(self.last_round.get(seat, 0),
                                        _round_of(body.payload))
            if self.log is not None:
                self.log.append(rec.body)
            try:
                out = self.table.receive(seat, body.payload, self.now())
            except RemoteError as exc:
                bad = exc.seat if exc.seat is not None else seat
                self.frontend.show(self.table, [tev.Fault(seat=bad, message=str(exc))],
                                   self.now())
                raise TableFailed(f"{self._who(bad)} sent invalid data: {exc}") from None
            self.process(out)
        elif isinstance(event, Lost):
            seat = event.peer.seat
            if seat is None or not 0 <= seat < len(self.names) or seat == self.mesh.seat:
                return  # not a seated player (a newcomer refused after the deal)
            name = self._who(seat)
            finished = event.reason == DONE_REASON
            self.frontend.presence(seat, name, connected=False, reason=event.reason)
            if finished:
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
            raise PeerLost(f"{left_the_table(name, event.reason)}; the match cannot go on "
                           "without them (taking over a lost seat comes in a later version)",
                           seat=seat)
        elif isinstance(event, Connected):
            seat = self.mesh.roster.seat_of(event.peer.key)
            if seat is None or seat == self.mesh.seat:
                self.mesh.node.close_peer(event.peer, "the game has started at this table",
                                          refuse="closed")
                return
            event.peer.set_seat(seat)
            self.frontend.presence(seat, self._who(seat), connected=True, reason="")

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
        while a thought runs)."""
        auto_at = self.auto_at if self.thought is None else None
        times = [t for t in (self.table.get_timer(), auto_at) if t is not None]
        deadline = self.table.deadline if self.table.my_turn else None
        if (deadline is not None and self.auto is None
                and self.warned != deadline):
            times.append(deadline - self.options.warn_s)
        return min(times) if times else None

    def on_wake(self) -> None:
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

    async def run(self, lines: asyncio.Queue[str] | None) -> Result:
        inbox = _Inbox(self.mesh, lines)
        try:
            self.process(self.table.start(self.now()))
            self.decision_point()
            while self.done is None:
                wake = self.next_wake()
                timeout = None if wake is None else max(0.0, wake - self.now())
                try:
                    item = await inbox.next(timeout, self.thought)
                except TimeoutError:
                    self.on_wake()
                else:
                    if self.thought is not None and item is self.thought:
                        self.thought_done()
                    elif isinstance(item, str):
                        self.typed(item)
                    else:
                        self.incoming(item)
                    if (wake := self.next_wake()) is not None and wake <= self.now():
                        self.on_wake()
                self.decision_point()
        finally:
            inbox.close()
            if self.thought is not None:
                self.thought.cancel()  # its thread runs on; the answer is dropped
        self.result.last = self.prev
        return self.result


async def play_table(mesh: Mesh, frontend: Frontend, *, options: Options | None = None,
                     lines: asyncio.Queue[str] | None = None) -> Result:
    """Play the dealt table on ``mesh`` until the match ends, ``options.rounds`` rounds are
    played, or the player leaves; then say goodbye to the peers.

    ``lines`` are typed lines (:data:`EOF_MARK` at the end of input). Raises
    :class:`PeerLost` when a player's node leaves mid-match, :class:`TableFailed` when a
    peer sends invalid data or the table fails; the log is closed (fsynced) either way.
    """
    options = options or Options()
    log: TableLogWriter | None = None
    run: _Run | None = None
    try:
        config = table_config(mesh, turn_timeout_s=options.turn_timeout_s)
        if options.write_log:
            path = log_path(mesh.node.table, mesh.seat, directory=options.log_dir)
            log = TableLogWriter.create(path, log_header(config, mesh))
        run = _Run(mesh, frontend, options, log, config)
        frontend.started(run.table, run.config, log=run.result.log, auto=options.auto)
        result = await run.run(lines)
        frontend.finished(run.table, run.done or "")
        return result
    finally:
        if log is not None:
            with contextlib.suppress(OSError):
                log.close()
        await mesh.node.flush()
        with contextlib.suppress(Exception):
            await mesh.node.aclose(DONE_REASON if run is not None and run.completed else
                                   "left the table")
