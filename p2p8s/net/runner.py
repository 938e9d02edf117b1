"""The asyncio adapter around the replicated table: the loop, the local seat's threads, files.

:func:`play_table` runs one dealt table (a :class:`~p2p8s.net.lobby.Mesh`) to its end.
The runners' protocol (sync / resend / relay, the frozen-process rule, the rebuild, the
``--rounds`` cut-off, when the match cannot go on; protocol/table.md "The runner's part")
is the pure :class:`~p2p8s.table.link.Link`, the local seat's pace the pure
:class:`~p2p8s.table.pilot.Pilot`. This module feeds them network events, the loop's
clock and typed lines (a reader thread fills the queue), and carries out what the link
puts out: signing and sending (``prev`` chained to the last game message handled), the
table log (:mod:`p2p8s.net.catchup`), dialling (:mod:`p2p8s.net.redial`), the
:class:`Frontend`, which does all the talking. The bots think in a worker thread
(:class:`Think`) on a snapshot; the table is only ever touched by the run's coroutine —
on the loop, or for a game message in a worker thread while it waits (:data:`OFF_LOOP`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from p2p8s.bots.base import Bot
from p2p8s.bots.registry import get_bot
from p2p8s.engine import Action
from p2p8s.errors import Note, RemoteError
from p2p8s.net.catchup import (
    Restored,
    key_secret,
    mark_round,
    new_log,
    own_frames,
    restore,
)
from p2p8s.net.frontend import Frontend, Leave, Think, Typed
from p2p8s.net.lobby import Mesh
from p2p8s.net.node import Connected, Connection, Incoming, Lost
from p2p8s.net.redial import Finder, Redial
from p2p8s.store.tablelog import TableLogWriter, forget_secret
from p2p8s.table import Table, TableConfig
from p2p8s.table import linkout as lo
from p2p8s.table.core import STAND_IN
from p2p8s.table.link import Link
from p2p8s.table.linkout import LinkCode, PeerLost, TableFailed, note
from p2p8s.table.pilot import Decision, Move, Pilot, Warn
from p2p8s.table.roster import TURN_TIMEOUT_S, table_config
from p2p8s.table.sync import WHERE, Spot, Where, log_parts
from p2p8s.wire import Echo, Farewell, Game, Refusal, Role, Welcome, message_hash

__all__ = ["EOF_MARK", "Frontend", "Leave", "Options", "PeerLost", "Result", "TableFailed",
           "Think", "Typed", "play_table"]

#: Seconds before the turn timer runs out when the player is warned.
WARN_S = 10.0
#: Seconds a restarted node waits for a complete log from the peers it reached (from
#: its last ask; no deadline while it reaches none: :func:`~p2p8s.net.catchup.restore`).
LOG_TIMEOUT_S = 60.0
#: The runner's inbox wait is at most this long, so the loop's clock is read often.
TICK_S = 0.5
#: Typed words that leave the table even while the computer plays the seat (``--auto``).
QUIT_WORDS = frozenset({"quit", "q", "exit"})
#: Put on a lines queue at the end of input.
EOF_MARK = "\x04"
#: The table handles each game message in a worker thread, so the loop keeps serving
#: the sockets while it checks a shuffle step's proof (30-70 ms) or audits the round.
OFF_LOOP = True
#: Seconds a node whose match is over (or that played the rounds asked for) keeps
#: answering the nodes still owed, so a player who comes back is given what it missed
#: and told the result (protocol/table.md, "Coming back").
LINGER_S = 60.0


@dataclass(slots=True)
class Options:
    """How :func:`play_table` runs: ``auto`` plays the local seat, ``rounds`` stops after
    that many rounds, ``log_dir`` (None: the user data directory) holds the table log,
    ``auto_delay_s`` paces the auto player (read at each decision: it may be changed
    while the run goes on), ``warn_s`` is the timer warning and
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
    find_peer: Finder | None = None
    log_timeout_s: float = LOG_TIMEOUT_S
    #: The command a lost player can run to come back through this node (told to the
    #: others when a peer is lost, so they can pass it on), e.g. ``p2p8s join CODE``.
    come_back: str | None = None
    #: Seconds to keep answering the nodes still owed once the match is over here (or
    #: the rounds asked for are played).
    linger_s: float = LINGER_S
    #: Called with ``seat -> [(host, port), …]`` whenever a peer connects, so the next run
    #: at this table (``p2p8s join CODE`` without mDNS) knows where to look.
    remember: Callable[[dict[int, list[tuple[str, int]]]], None] | None = None
    #: Where the seats listened the last time this table ran here (``seat -> [(host,
    #: port), …]``, :func:`~p2p8s.store.lastseen.load_where`): a restarted node dials
    #: there too while it waits for a log (None: the roster's and its connections').
    where: dict[int, list[tuple[str, int]]] | None = None
    #: Says a runner note while no table is shown yet: a restarted node that reaches
    #: nobody to get the log from (None: not said; a rebuilt node tells its frontend).
    waiting: Callable[[Note], None] | None = None


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
    """One table played on this node: its link, pilot and dialling (``restored``: rebuilt
    from a peer's log; ``where``: the addresses an earlier run of it learnt)."""

    def __init__(self, mesh: Mesh, frontend: Frontend, options: Options,
                 log: TableLogWriter | None, config: TableConfig, *,
                 restored: Restored | None = None,
                 where: dict[int, list[tuple[str, int]]] | None = None) -> None:
        self.mesh = mesh
        self.frontend = frontend
        self.options = options
        self.log = log
        self.loop = asyncio.get_running_loop()
        self.names = config.names
        self.table = restored.table if restored is not None else Table(
            config, me=mesh.seat, rand=os.urandom, seed=mesh.digest,
            sign=mesh.node.identity.sign, key_secret=key_secret(
                mesh, write_log=options.write_log, log_dir=options.log_dir, fresh=True))
        self.result = Result(log=log.path if log is not None else None)
        #: the hash of the last game frame handled: a restored node's chain goes on from
        #: the last frame of the log it was rebuilt from (its own frames the peer lacked
        #: last)
        self.prev = (message_hash(restored.frames[-1])
                     if restored is not None and restored.frames else b"")
        self.pilot = Pilot(auto=options.auto, auto_delay_s=options.auto_delay_s,
                           warn_s=options.warn_s)
        self.rng = random.Random(os.urandom(16))
        self.thought: asyncio.Future[Any] | None = None
        self.then: Callable[[Any, float], Typed] | None = None
        #: every signed game frame this node logged, in order (a restarted peer's log)
        self.frames: list[bytes] = list(restored.frames) if restored is not None else []
        self.conns: list[Connection] = []  # the connections the link knows, by number
        self.redial = Redial(mesh, find=options.find_peer, rng=self.rng, where=where,
                             away=lambda s: s in self.link.away and (
                                 self.link.done is None or s in self.link.owed))
        self.linger_until: float | None = None
        self.acked_until: float | None = None  # the wait for the last acks (see over)
        self.working: asyncio.Future[list[lo.Out]] | None = None  # see OFF_LOOP
        self.echoed: set[Connection] = set()  # connections a late roster echo was answered on

        mesh.log = self._logged  # every frame it posts, before it is sent
        self.link = Link(
            self.table, peers={s: self._conn(s, c) for s, c in mesh.peers.items()},
            rounds=options.rounds, restored=restored is not None, seen=self.frames,
            notes=restored.notes if restored is not None else (),
            answers=restored.answers if restored is not None else None,
            come_back=options.come_back, log_name=str(log.path) if log is not None else None)
        self.remember()

    def remember(self) -> None:
        """Keep where the seats listen (:attr:`Options.remember`), for the next run."""
        if self.options.remember is not None:
            with contextlib.suppress(OSError):
                self.options.remember(self.redial.kept())

    def now(self) -> float:
        return self.loop.time()

    # --- what the link puts out ---------------------------------------------------------

    def execute(self, outs: Sequence[lo.Out]) -> None:
        """Carry out the link's outputs in order; raise its failure, if it stopped."""
        send = self.mesh.node.send
        for out in outs:
            match out:
                case lo.Post(to=to, payload=payload):
                    # logged (handed to the OS) by the mesh before any socket: a restarted
                    # node knows all it can have sent (protocol/table.md "Coming back")
                    self.prev, _ = self.mesh.post(to, payload, prev=self.prev)
                    self.result.sent += 1
                case lo.Log(frame=frame, head=head):
                    self.prev = head if head is not None else self.prev
                    self._logged(frame)
                case lo.Send(conn=conn, to=to, payload=payload):
                    send(self.conns[conn], Game(to=to, payload=payload))
                case lo.Resend(conn=conn, to=to, payload=payload):
                    send(self.conns[conn], Game(to=to, payload=payload), prev=self.prev)
                case lo.SendLog(conn=conn, seat=seat):
                    self.mesh.node.send_answer(self.conns[conn], [
                        Game(to=seat, payload=part) for part in log_parts(self.frames)])
                case lo.Drop(seat=seat, conn=conn):
                    old = self.conns[conn]
                    if self.mesh.peers.get(seat) is old:
                        del self.mesh.peers[seat]  # queued only until the next Use
                    self.mesh.node.discard(old)
                case lo.Use(seat=seat, conn=conn):
                    self.mesh.peers[seat] = self.conns[conn]
                case lo.Rebuild(peers=peers):
                    self.mesh.peers.clear()
                    self.mesh.peers.update({s: self.conns[c] for s, c in peers.items()})
                case lo.Show(events=events):
                    self.frontend.show(self.table, events, self.now())
                case lo.PeerGone(seat=seat, why=how) | lo.PeerBack(seat=seat, how=how):
                    self.frontend.presence(seat, self.names[seat], reason=how,
                                           connected=isinstance(out, lo.PeerBack))
                case lo.Dial(seat=seat) if self.options.redial:
                    self.redial.start(seat)
                case lo.Undial(seat=seat):
                    self.redial.stop(seat)
                case lo.RoundLogged() if self.log is not None:
                    mark_round(self.log, out)
                case lo.Refused(error=error):
                    self.tell(note(LinkCode.REFUSED, error=error))
                    self.pilot.forget()
        if self.link.failure is not None:
            raise self.link.failure

    def tell(self, said: Note) -> None:
        self.frontend.show(self.table, [said], self.now())

    def _logged(self, body: bytes) -> None:
        self.frames.append(body)
        if self.log is not None:
            self.log.append(body)

    def _conn(self, seat: int, conn: Connection) -> lo.Conn:
        """The link's record of ``seat``'s connection ``conn`` (numbered on first sight)."""
        return lo.Conn(id=self._id(conn), moved=self.redial.moved(seat, conn),
                       joined=conn.hello.role is Role.JOIN)

    def _id(self, conn: Connection) -> int:
        if not any(c is conn for c in self.conns):
            self.conns.append(conn)
        return next(i for i, c in enumerate(self.conns) if c is conn)

    # --- the local seat ----------------------------------------------------------------

    def decision_point(self) -> None:
        """Prompt the person (or arm the auto player) when the table waits for us."""
        hold = self.link.asleep or self.link.done is not None
        # the pace as the options say now (a caller may change it while the run goes on)
        self.pilot.auto_delay_s = self.options.auto_delay_s
        if self.pilot.point(self.table, self.now(), hold=hold,
                            rounds=self.link.rounds) is not None:
            self.frontend.turn(self.table, self.now())

    def play_auto(self, decision: Decision) -> None:
        """Let the auto player choose (in a worker thread) and act for the local seat."""
        view = self.table.view()
        bot = self.pilot.auto
        legal = self.table.legal_actions() if self.table.my_turn else []
        if bot is None or view is None or not legal:
            return
        rng = random.Random(self.rng.getrandbits(64))

        def chosen(action: Action, now: float) -> Typed:
            if self.link.done is not None or not self.pilot.stands_for(decision, self.table):
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
            if self.pilot.auto is None and self.link.done is None:
                self.pilot.auto = get_bot(STAND_IN)
                self.pilot.forget()
                self.tell(note(LinkCode.INPUT_ENDED, bot=STAND_IN))
        elif self.link.asleep and words not in QUIT_WORDS:
            self.tell(note(LinkCode.STILL_CATCHING_UP))
        elif self.pilot.auto is not None:
            if words in QUIT_WORDS:
                self.leave()  # the computer plays, but the person may still leave
        else:
            if words:  # anything typed says the person is back (R-TIMER: no short grace)
                self.execute(self.link.present(self.now()))
            self.answer(self.frontend.typed(self.table, line, self.now()))

    # --- the network ---------------------------------------------------------------------

    async def incoming(self, event: object) -> None:
        if isinstance(event, Incoming):
            rec = event.received
            body = rec.message.body
            if isinstance(body, Game) and body.payload[:1] == bytes([WHERE]):
                self.heard_where(event.peer, body.payload[1:])
            elif isinstance(body, Echo):
                self.answer_echo(event.peer, body)
            elif isinstance(body, Game):  # else: roster repeats
                seat = rec.message.seat if rec.message.seat is not None else event.peer.seat
                work = partial(self.link.received, seat, self._id(event.peer), body,
                               frame=rec.body, digest=rec.digest, now=self.now())
                if OFF_LOOP:  # only this coroutine touches the table: it waits meanwhile
                    self.working = working = asyncio.ensure_future(asyncio.to_thread(work))
                    outs = await asyncio.shield(working)
                    self.working = None
                else:
                    outs = work()
                self.execute(outs)
        elif isinstance(event, Lost):
            self.echoed.discard(event.peer)
            self.execute(self.link.lost(event.peer.seat, self._id(event.peer),
                                        event.reason, self.now(), error=event.error))
        elif isinstance(event, Connected):
            self.connected(event.peer)

    def answer_echo(self, conn: Connection, echo: Echo) -> None:
        """A roster echo after the deal: a node still completing its mesh lacks this
        one's (it went out on a connection that dropped); it is answered once per
        connection, so two nodes in play never echo back and forth (protocol/wire.md,
        "Lobby and mesh" step 4). A wrong digest is the mesh's to refuse, not ours."""
        if echo.index != 0 or conn in self.echoed or conn.closed:
            return
        self.echoed.add(conn)
        self.mesh.node.send(conn, Echo(index=0, digest=self.mesh.digest))

    def connected(self, conn: Connection) -> None:
        """A node finished the handshake after the deal: a roster member coming back
        (the link starts the ``sync``), or a stranger (refused)."""
        seat = self.mesh.roster.seat_of(conn.key)
        if seat is None or not self.link.member(seat):
            self.mesh.node.close_peer(conn, Refusal.IN_PLAY)
            return
        conn.set_seat(seat)
        self.redial.note(seat, conn)
        self.remember()
        if self.mesh.peers.get(seat) is conn:
            return  # already in use (a rejoined mesh)
        if conn.hello.role is Role.JOIN:  # `p2p8s join` again: it needs the roster
            self.mesh.node.send(conn, Welcome(seat=seat, roster=self.mesh.roster))
        self.execute(self.link.connected(seat, self._conn(seat, conn), self.now()))
        self.tell_where(seat, conn)

    def tell_where(self, seat: int, conn: Connection) -> None:
        """Tell the other peers where ``seat``'s node (``conn``) listens, and it where
        they do (``where``, protocol/table.md "Who dials"): a node restarted on a new port
        is found by the peers that cannot see it connect."""
        send = self.mesh.node.send
        if conn.hello.port:
            said = Where(spots=(Spot(seat=seat, host=conn.address, port=conn.hello.port),))
            for other, peer in list(self.mesh.peers.items()):
                if other != seat and not peer.closed:
                    send(peer, Game(to=other, payload=said.payload()))
        if spots := self.redial.spots(but=seat):
            send(conn, Game(to=seat, payload=Where(spots=tuple(spots)).payload()))

    def heard_where(self, conn: Connection, body: bytes) -> None:
        """A peer's ``where``: kept as a hint for dialling (a bad one is dropped and
        counted: it is no evidence against a player)."""
        if conn.seat is None:
            return
        try:
            self.redial.heard(Where.parse(body).spots, sender=conn.seat)
        except RemoteError:
            self.result.count({"bad_where": 1})
            return
        self.remember()  # a node restarted again tries there too

    # --- the loop ---------------------------------------------------------------------

    def next_wake(self) -> float | None:
        """The earliest of the link's timer and the pilot's (not while asleep)."""
        timer = self.link.get_timer()
        if self.link.asleep:
            return timer
        times = [t for t in (timer, self.pilot.get_timer(
            self.table, thinking=self.thought is not None)) if t is not None]
        return min(times) if times else None

    def on_wake(self) -> None:
        now = self.now()
        timer = self.link.get_timer()
        if timer is not None and timer <= now:
            self.execute(self.link.handle_timer(now))
        if self.link.asleep:
            return  # no move while its seat may be someone else's
        for due in self.pilot.handle_timer(self.table, now, thinking=self.thought is not None):
            if isinstance(due, Move):
                self.play_auto(due.decision)
            elif isinstance(due, Warn):
                self.frontend.warn(self.table, due.seconds_left)

    def clock(self, waited_s: float) -> None:
        """Tell the link the loop's clock (it may find the process was frozen)."""
        self.execute(self.link.clock(self.now(), waited_s))
        if self.link.asleep:
            self.pilot.forget()

    def over(self) -> bool:
        """Whether the run ends now: once the link is done — after the match is over or
        the rounds asked for (``--rounds``) are played, only once every node
        :attr:`~p2p8s.table.link.Link.owed` came back and was given what it lacks (told
        the result; it said ``bye``), or :attr:`Options.linger_s` has passed. Not after
        the player left."""
        if self.link.done is None:
            return False
        owed = self.link.owed
        if not self.link.outcome.completed or self.options.linger_s <= 0:
            return True
        if not owed:
            # the peers connected hold this node's last payloads once they acknowledge
            # them (within ACK_INTERVAL_S): wait for that, quietly, at most the linger
            if not self.link.unacknowledged:
                return True
            if self.acked_until is None:
                self.acked_until = self.now() + self.options.linger_s
            return self.now() >= self.acked_until
        if self.linger_until is None:
            self.linger_until = self.now() + self.options.linger_s
            self.tell(note(LinkCode.TELLING_RESULT, seats=owed,
                           seconds=self.options.linger_s))
        return self.now() >= self.linger_until

    async def run(self, lines: asyncio.Queue[str] | None) -> Result:
        """Play until the link is done (or fails: raised), or must be rebuilt."""
        inbox = _Inbox(self.mesh, lines)
        try:
            self.execute(self.link.start(self.now()))
            self.decision_point()
            self.link.clock(self.now())  # the first read (see Link.clock)
            while self.link.rebuild is None and not self.over():
                wake = self.next_wake()
                timeout = TICK_S if wake is None else min(TICK_S, max(0.0, wake - self.now()))
                try:
                    item = await inbox.next(timeout, self.thought)
                except TimeoutError:
                    item = None
                self.clock(timeout)  # before handling what it woke up for
                if item is None:
                    self.on_wake()
                else:
                    if self.thought is not None and item is self.thought:
                        self.thought_done()
                    elif isinstance(item, str):
                        self.typed(item)
                    else:
                        await self.incoming(item)
                    if (wake := self.next_wake()) is not None and wake <= self.now():
                        self.on_wake()
                self.decision_point()
        except asyncio.CancelledError:
            if self.working is not None:  # the table's work in hand ends first
                with contextlib.suppress(Exception):
                    self.execute(await self.working)
            self.leave(quietly=True)  # Ctrl-C / SIGTERM: the others take the seat over
            raise
        finally:
            inbox.close()
            self.redial.close()
            if self.thought is not None:
                self.thought.cancel()  # its thread runs on; the answer is dropped
        self.result.rounds = self.link.rounds
        self.result.match_over = self.link.outcome.match_over
        self.result.received += self.link.received_count
        self.result.count({**self.link.counts, "found_by_mdns": self.redial.found_by_mdns})
        self.result.extra = {k: n for k, n in self.result.extra.items() if n}
        self.result.last = self.prev
        return self.result


def _dialling(mesh: Mesh, options: Options,
              where: dict[int, list[tuple[str, int]]] | None) -> Redial | None:
    """The dialling of a node that waits for a log to rebuild from: every seat it does
    not reach, by ``options.find_peer`` (mDNS) and the addresses known (the roster's,
    its connections', ``where``), until :func:`~p2p8s.net.catchup.restore` returns;
    None when ``options.redial`` is off."""
    if not options.redial:
        return None
    return Redial(mesh, away=lambda seat: True, find=options.find_peer,
                  rng=random.Random(os.urandom(16)), where=where)


def _shown(frontend: Frontend, table: Table, said: Note) -> None:
    """Tell ``frontend`` a runner note (beside ``table``, the void one a rebuild replaces)."""
    frontend.show(table, [said], asyncio.get_running_loop().time())


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

    def secret() -> bytes | None:
        return key_secret(mesh, write_log=options.write_log, log_dir=options.log_dir)

    mesh.node.replace_old = True  # in play, a node's new connection may replace its old one
    mesh.node.seats = {e.key: e.seat for e in mesh.roster.seats}
    try:
        config = table_config(mesh.roster, table=mesh.node.table, seed=mesh.digest,
                              turn_timeout_s=options.turn_timeout_s)
        restored: Restored | None = None
        dial: Redial | None = None
        if mesh.rejoined:
            own, why = (own_frames(mesh, options.log_dir) if options.write_log
                        else (None, None))
            dial = _dialling(mesh, options, options.where)
            restored = await restore(mesh, config, [why] if why is not None else [],
                                     timeout_s=options.log_timeout_s, key_secret=secret(),
                                     own=own, redial=dial, tell=options.waiting)
        if options.write_log:
            log = new_log(mesh, config, options.log_dir,
                          restored.frames if restored else (), rejoined=mesh.rejoined)
        run = _Run(mesh, frontend, options, log, config, restored=restored,
                   where=(dial.kept() if dial is not None else options.where)
                   if mesh.rejoined else None)
        frontend.started(run.table, config, log=run.result.log, auto=options.auto,
                         rejoined=restored is not None)
        result = await run.run(lines)
        while (rebuild := run.link.rebuild) is not None:
            # Every peer connected now is asked for its log (the one that said so among
            # them); the seats still missed are dialled meanwhile, and after it. A table
            # that only lacked a message keeps its seats: its own log comes too
            own = (own_frames(mesh, options.log_dir)[0]
                   if rebuild.resume and options.write_log else None)
            dial = _dialling(mesh, options, run.redial.kept())
            restored = await restore(mesh, config, [rebuild.why],
                                     timeout_s=options.log_timeout_s, key_secret=secret(),
                                     own=own, redial=dial,
                                     tell=partial(_shown, frontend, run.table))
            if log is not None:
                with contextlib.suppress(OSError):
                    log.close()
                log = None
            if options.write_log:
                log = new_log(mesh, config, options.log_dir, restored.frames, rejoined=True)
                restored.notes.append(note(LinkCode.LOG_GOES_ON, path=str(log.path)))
            old, run = run, _Run(mesh, frontend, options, log, config, restored=restored,
                                 where=dial.kept() if dial is not None else run.redial.kept())
            run.result.count(old.result.extra)
            run.result.count({"rebuilt": 1})
            run.result.sent, run.result.received = old.result.sent, old.result.received
            result = await run.run(lines)
        assert run.link.done is not None
        if result.match_over and options.write_log:  # its keys are no longer needed
            with contextlib.suppress(OSError):
                forget_secret(mesh.node.table, mesh.seat, options.log_dir)
        frontend.finished(run.table, run.link.done)
        return result
    finally:
        if log is not None:
            with contextlib.suppress(OSError):
                log.close()
        if run is not None and run.link.left and options.write_log:
            # a quitter (quit, Ctrl-C) gave its round keys up: its secret serves no more
            with contextlib.suppress(OSError):
                forget_secret(mesh.node.table, mesh.seat, options.log_dir)
        await mesh.node.flush()
        with contextlib.suppress(Exception):
            await mesh.node.aclose(Farewell.DONE if run is not None
                                   and run.link.outcome.completed else Farewell.LEFT)

