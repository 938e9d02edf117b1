"""Links of real tables on an in-memory network: the runner's adapter, without sockets.

Every human seat gets a :class:`~p2p8s.table.Table` and a :class:`~p2p8s.table.link.Link`;
a :class:`LinkNet` carries out what each link puts out the way ``p2p8s.net.runner`` does
(signed wire frames, chained ``prev``, the log, ``Use``/``Rebuild``), over numbered
connections with FIFO queues that can be reset (what was in flight is lost) and made
again. The auto player is a seeded bot acting when its table says ``my_turn``; time is
simulated (the clock jumps to the earliest timer when nothing moves).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from p2p8s import wire
from p2p8s.bots.registry import get_bot
from p2p8s.crypto.rand import seeded
from p2p8s.errors import Code, Note
from p2p8s.net.errors import NetCode
from p2p8s.rules import Ruleset
from p2p8s.table import Table, TableConfig
from p2p8s.table.harness import make_config, make_keys
from p2p8s.table.link import Link
from p2p8s.table.linkout import (
    Conn,
    Drop,
    Log,
    Out,
    Post,
    Rebuild,
    Resend,
    Send,
    SendLog,
    Show,
    Use,
)
from p2p8s.table.logverify import records_from_frames
from p2p8s.table.sync import LogAnswer, Sync, log_parts

#: How a reset connection ends, as the node reports it.
RESET = Note(NetCode.CONNECTION_CLOSED)


@dataclass(eq=False)
class Node:
    """One node: its table, its link, and what the adapter keeps for it."""

    seat: int
    table: Table
    link: Link
    frames: list[bytes] = field(default_factory=list)  # the table log, in order
    prev: bytes = b""
    seq: int = 0
    peers: dict[int, int] = field(default_factory=dict)  # seat -> conn (the mesh's)
    outs: list[Out] = field(default_factory=list)  # everything it put out
    auto: bool = True

    def of(self, kind: type) -> list[object]:
        """Its outputs of one kind."""
        return [o for o in self.outs if isinstance(o, kind)]

    def shown(self) -> list[object]:
        """Everything it showed, in order."""
        return [e for o in self.outs if isinstance(o, Show) for e in o.events]


@dataclass(eq=False)
class Wire:
    """Connection ``id`` between nodes ``a`` and ``b``: a FIFO queue each way."""

    id: int
    a: int
    b: int
    open: bool = True
    #: senders whose writes vanish while the connection still looks open (a dead socket)
    dead: set[int] = field(default_factory=set)
    #: to seat -> (order, envelope, signed frame body, its hash)
    queues: dict[int, deque[tuple[int, wire.Game, bytes, bytes]]] = field(default_factory=dict)

    def other(self, seat: int) -> int:
        return self.b if seat == self.a else self.a


class LinkNet:
    """Links for every human seat of a table of ``players`` seats (``computers``: computer
    seats, run by seat 0's node), fully connected."""

    def __init__(self, players: int = 3, *, computers: Sequence[int] = (),
                 rounds: dict[int, int] | None = None, target: int = 10_000,
                 turn_timeout_s: float = 30.0, seed: bytes = b"links",
                 secrets: dict[int, bytes] | None = None) -> None:
        self.keys = make_keys(players)
        self.config: TableConfig = make_config(
            players, rules=Ruleset().with_changes(target=target), target=target,
            computers=computers, turn_timeout_s=turn_timeout_s)
        self.humans = [s.seat for s in self.config.seats if s.computer is None]
        self.now = 0.0
        self.rng = random.Random(seed)
        self.bot = get_bot("karl")
        self.wires: list[Wire] = []
        self.nodes: dict[int, Node] = {}
        self.tamper: Callable[[int, int, wire.Game], bool] | None = None  # False: drop
        #: connect again, when nothing else moves, every pair of nodes not connected
        #: (what their dialling would do); off: the tests connect themselves
        self.heals = False
        #: seat -> its table secret (its round keys derive from it, as a runner's do;
        #: a rebuilt node hands its keys over through ``ownkey``)
        self.secrets = dict(secrets or {})
        self.rounds = dict(rounds or {})  # seat -> the rounds its runner plays
        self._sent = 0
        between = {(a, b): self._wire(a, b) for a in self.humans for b in self.humans
                   if a < b}
        for s in self.humans:
            table = Table(self.config, me=s, rand=seeded(seed + bytes([s])),
                          seed=seed + bytes([s]), sign=self.keys[s].sign,
                          key_secret=self.secrets.get(s))
            peers = {o: between[min(s, o), max(s, o)].id for o in self.humans if o != s}
            link = Link(table, peers={o: Conn(id=c) for o, c in peers.items()},
                        rounds=self.rounds.get(s))
            self.nodes[s] = Node(seat=s, table=table, link=link, peers=peers)

    def _wire(self, a: int, b: int) -> Wire:
        w = Wire(id=len(self.wires), a=a, b=b, queues={a: deque(), b: deque()})
        self.wires.append(w)
        return w

    # --- the adapter ------------------------------------------------------------------------

    def run_out(self, seat: int, outs: list[Out]) -> list[Out]:
        """Carry out ``seat``'s link outputs as the runner does; returns them."""
        node = self.nodes[seat]
        node.outs.extend(outs)
        for out in outs:
            if isinstance(out, Post):
                body = self._frame(node, wire.Game(to=out.to, payload=out.payload),
                                   chained=True)
                node.prev = wire.message_hash(body)
                node.frames.append(body)
                for other, conn in node.peers.items():
                    if out.to is None or out.to == other:
                        self._put(seat, conn, wire.Game(to=out.to, payload=out.payload),
                                  body)
            elif isinstance(out, Log):
                node.prev = out.head if out.head is not None else node.prev
                node.frames.append(out.frame)
            elif isinstance(out, Send | Resend):
                game = wire.Game(to=out.to, payload=out.payload)
                self._put(seat, out.conn, game,
                          self._frame(node, game, chained=isinstance(out, Resend)))
            elif isinstance(out, SendLog):
                for part in log_parts(node.frames):
                    game = wire.Game(to=out.seat, payload=part)
                    self._put(seat, out.conn, game, self._frame(node, game, chained=False))
            elif isinstance(out, Drop):  # closed at once, unreported (the other end
                w = self.wires[out.conn]  # dialled anew, or replaces it as well)
                w.open = False
                for q in w.queues.values():
                    q.clear()
                if node.peers.get(out.seat) == out.conn:
                    del node.peers[out.seat]
            elif isinstance(out, Use):
                node.peers[out.seat] = out.conn
            elif isinstance(out, Rebuild):
                node.peers = dict(out.peers)
        return outs

    def _frame(self, node: Node, game: wire.Game, *, chained: bool) -> bytes:
        node.seq += 1
        frame = wire.encode(wire.Message(table=self.config.table, seat=node.seat, seq=node.seq,
                                         prev=node.prev if chained else b"", body=game),
                            self.keys[node.seat])
        return frame[wire.PREFIX_LENGTH:]

    def _put(self, seat: int, conn: int, game: wire.Game, body: bytes) -> None:
        w = self.wires[conn]
        if not w.open or seat in w.dead:
            return  # a connection that is down (or dead that way) carries nothing
        if self.tamper is not None and not self.tamper(seat, w.other(seat), game):
            return
        self._sent += 1
        w.queues[w.other(seat)].append((self._sent, game, body, wire.message_hash(body)))

    # --- driving ----------------------------------------------------------------------------

    def start(self) -> None:
        for s, node in self.nodes.items():
            self.run_out(s, node.link.clock(self.now))
            self.run_out(s, node.link.start(self.now))

    def start_settled(self, moves: int = 3) -> None:
        """Start, play until seat 0's table applied ``moves`` actions, deliver what is
        in flight (nobody acts meanwhile, the clock stands)."""
        self.start()
        self.run(lambda: self.applied(0) >= moves)
        while self.deliver():
            pass

    def deliver(self) -> bool:
        """Deliver the message sent first of those in flight; False if none."""
        heads = [(q[0][0], w, to) for w in self.wires if w.open for to, q in w.queues.items()
                 if q and to in self.nodes and not self.nodes[to].link.stopped]
        if not heads:
            return False
        _, w, to = min(heads, key=lambda h: h[0])
        _, game, body, digest = w.queues[to].popleft()
        self.run_out(to, self.nodes[to].link.received(w.other(to), w.id, game, frame=body,
                                                      digest=digest, now=self.now))
        return True

    def step(self) -> bool:
        """Deliver one message, or let one auto player act, or run the clock."""
        if self.deliver():
            return True
        live = [n for n in self.nodes.values()
                if not n.link.stopped and n.link.done is None and not n.link.asleep]
        for node in live:
            if node.auto and node.table.my_turn:
                view = node.table.view()
                assert view is not None
                action = self.bot.choose(view, node.table.legal_actions(), self.rng)
                self.run_out(node.seat, node.link.act(action, self.now))
                return True
        if self.heals and self.heal():
            return True
        timers = [t for n in self.nodes.values() if (t := n.link.get_timer()) is not None]
        if not timers:
            return False
        self.now = max(self.now, min(timers))
        for node in self.nodes.values():
            timer = node.link.get_timer()
            if timer is not None and timer <= self.now:
                self.run_out(node.seat, node.link.handle_timer(self.now))
        return True

    def run(self, until: Callable[[], bool] = lambda: False, max_steps: int = 200_000) -> None:
        """Step until ``until()`` holds or nothing moves."""
        for _ in range(max_steps):
            if until() or not self.step():
                return
        raise AssertionError("the links still run")

    def applied(self, seat: int) -> int:
        """Actions applied on ``seat``'s table so far (its current round)."""
        view = self.nodes[seat].table.view()
        return len(view.log) if view is not None else 0

    # --- the network ------------------------------------------------------------------------

    def reset(self, a: int, b: int, *, reason: Note = RESET) -> None:
        """The connection of ``a`` and ``b`` is reset: what was in flight is lost; both
        links are told."""
        w = self.wires[self.nodes[a].peers[b]]
        w.open = False
        for q in w.queues.values():
            q.clear()
        for seat in (a, b):
            self.lose(seat, w)

    def cut_off(self, seat: int) -> None:
        """Once nothing is in flight, ``seat``'s node is cut off from every other (each
        connection reset) and its seat plays no more by itself (``auto`` off)."""
        while self.deliver():
            pass
        for other in self.humans:
            if other != seat:
                self.reset(seat, other)
        self.nodes[seat].auto = False

    def rejoined(self, seat: int) -> dict[int, int]:
        """A new process of ``seat`` dials every other node (role ``join``); the new
        connections by seat, for :meth:`restore`."""
        wires = {}
        for other in self.humans:
            if other != seat:
                w = self._wire(other, seat)
                self.run_out(other, self.nodes[other].link.connected(
                    seat, Conn(id=w.id, joined=True), self.now))
                wires[other] = w.id
        return wires

    def lose(self, seat: int, w: Wire, reason: Note = RESET) -> None:
        """``seat``'s node learns that connection ``w`` ended."""
        self.run_out(seat, self.nodes[seat].link.lost(w.other(seat), w.id, reason, self.now))

    def connect(self, a: int, b: int, *, joined: bool = False) -> Wire:
        """A new connection of ``a`` and ``b``; both links are told (the sync starts)."""
        w = self._wire(a, b)
        for seat in (a, b):
            self.run_out(seat, self.nodes[seat].link.connected(
                w.other(seat), Conn(id=w.id, joined=joined and seat != a), self.now))
        return w

    def rebuild(self, seat: int) -> None:
        """Carry out ``seat``'s :class:`Rebuild` as the runner does: its table restored from
        a peer's log (the one that said so), a new link on the same connections, which
        asks the others for their logs too (``sync`` with ``restarted``)."""
        rebuild = self.nodes[seat].link.rebuild
        assert rebuild is not None
        self.restore(seat, rebuild.seat, rebuild.peers,
                     own=self.nodes[seat].frames if rebuild.resume else None)

    def restore(self, seat: int, source: int, peers: dict[int, int], *,
                own: Sequence[bytes] | None = None) -> None:
        """``seat``'s table restored from ``source``'s log (its frames now), a new link (for
        the rounds its runner plays, as before) on the connections ``peers`` (seat ->
        conn), which asks them for their logs (``sync`` with ``restarted``): a
        :class:`Rebuild`, or a restart reaching those. ``own``: the frames of its own
        log, given to the table too (a resumed rebuild)."""
        node = self.nodes[seat]
        frames = list(self.nodes[source].frames)
        records = records_from_frames(self.config, frames, me=seat)
        mine = records_from_frames(self.config, own, me=seat) if own is not None else None
        table = Table.restore(self.config, me=seat, records=records,
                              rand=seeded(b"rebuilt" + bytes([seat])), now=self.now,
                              sign=self.keys[seat].sign, key_secret=self.secrets.get(seat),
                              own=mine)
        node.table, node.frames, node.peers = table, frames, dict(peers)
        node.link = Link(table, peers={s: Conn(id=c) for s, c in peers.items()},
                         rounds=self.rounds.get(seat), restored=True, seen=frames, answers={
                             s: LogAnswer() for s in peers if s != source})
        for other, conn in peers.items():
            game = wire.Game(to=other, payload=Sync(received=0, posted=0,
                                                    restarted=True).payload())
            self._put(seat, conn, game, self._frame(node, game, chained=False))
        self.run_out(seat, node.link.clock(self.now))
        self.run_out(seat, node.link.start(self.now))

    def heal(self) -> bool:
        """Connect again every pair of running nodes of which one misses the other (the
        higher seat dials); whether any was."""
        live = [s for s, n in self.nodes.items() if not n.link.stopped and n.link.done is None]
        missing = [(b, a) for a in live for b in live if a < b
                   and (a not in self.nodes[b].peers or b not in self.nodes[a].peers)
                   and a not in self.nodes[b].link.pending]
        for b, a in missing:
            self.connect(b, a)
        return bool(missing)

    def notes(self, seat: int, code: Code) -> list[Note]:
        """The notes of ``code`` that ``seat``'s node showed, in order."""
        return [e for e in self.nodes[seat].shown() if isinstance(e, Note) and e.code is code]

    def transcripts(self) -> set[bytes]:
        """The transcript hash of every node's table (one value when they agree)."""
        return {n.table.transcript for n in self.nodes.values()}

    def of(self, seat: int, kind: type) -> list[object]:
        return self.nodes[seat].of(kind)

