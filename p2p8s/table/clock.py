"""The turn clock (R-TIMER), sans-IO: deadlines from ``now``, away players' grace.

When a human seat's turn starts every node emits ``TurnStarted(seat, deadline)``; only
the seat's own node acts on it: past the deadline the computer (``Max``) plays for its
person (:meth:`TurnClock.stand_in_due`), and from then on the person counts as *away*:
each of their next turns on this node waits only :data:`AWAY_GRACE_S` until they act or
type something again (:meth:`TurnClock.present`). A seat taken over whose person is back
gets the full timer from its turn start or its return (:meth:`TurnClock.choice_deadline`),
``AWAY_GRACE_S`` after a turn it missed. :meth:`TurnClock.get_timer` is the local turn's
deadline. The others' clocks enforce a turn too (:meth:`TurnClock.stall`): a turn another
node must send that has not moved :data:`STALL_MARGIN_S` after its deadline (its start, or
its last move, for a turn without one) is *stalled*; the runner then catches up with that
node and, if the turn still does not move, counts it as lost (protocol/table.md, "Timer").
The same holds for the crypto of a round (its setup, shuffles, strips, escrow shares, the
round end's keys): a wait for another node's message that has not moved
:data:`CRYPTO_STALL_S` after the last crypto message taken in (or the round's start) is
stalled on that node (:meth:`TurnClock.stall` outside the play phase).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from p2p8s.engine import Draw
from p2p8s.table import events as tev
from p2p8s.table.actions import ActRecord
from p2p8s.table.context import Ctx, Phase
from p2p8s.table.events import InfoCode
from p2p8s.table.log import ActionLog
from p2p8s.table.seats import Seats
from p2p8s.table.sessions import LocalSessions

#: Once the computer has played a turn for the local player (R-TIMER), their next turns
#: get this grace (seconds) instead of the full timer, until they act again.
AWAY_GRACE_S = 3.0
#: Seconds past a turn's deadline (on this node's clock) after which a turn another node
#: must send counts as stalled (R-TIMER: the others' clocks enforce it).
STALL_MARGIN_S = 10.0
#: Seconds the crypto of a round (no person acts in it: every step is a node's own,
#: taken at once) may wait for another node's message, on this node's clock, after the
#: last crypto message taken in or sent here, before it counts as stalled on that node.
CRYPTO_STALL_S = 2 * STALL_MARGIN_S


@dataclass(frozen=True, slots=True, kw_only=True)
class Stall:
    """The turn of ``seat`` (``turn`` = round number, actions applied in it: the same turn
    while equal) waits for a move of ``node``'s node (another node than this one), and
    counts as stalled from ``at`` (this node's clock) if it has not moved by then. In the
    crypto of a round ``seat`` is the seat (layer) whose message is awaited and ``turn``
    = (round number, -1 - crypto messages taken in: never a turn's count)."""

    seat: int
    node: int
    turn: tuple[int, int]
    at: float


class TurnClock:
    """The turn timer of this node (see the module docstring).

    ``local_turn()`` says whether the local person's own turn runs now (the facade's
    ``my_turn`` and not a choice for a seat taken over): only then is the deadline a
    timer of this node.
    """

    def __init__(self, ctx: Ctx, seats: Seats, log: ActionLog,
                 local_turn: Callable[[], bool], *, sessions: LocalSessions,
                 missing: Callable[[], int | None] = lambda: None) -> None:
        self._ctx = ctx
        self._seats = seats
        self._log = log
        self._sessions = sessions
        #: the seat of the message the intake's held messages wait for, if any
        self._missing = missing
        self._local_turn = local_turn
        self.away_turns = 0  # turns the computer played for the local player (R-TIMER)
        self.present_now = False  # the person typed something since the computer stood in
        #: turns the takeover computer played for the local seat (told with away_turns)
        self.bot_turns = 0
        #: seats taken over whose person was back but missed a turn (the computer played
        #: it at the deadline): their next turns wait only AWAY_GRACE_S (R-TIMER)
        self.missed: set[int] = set()
        self.begin()

    def begin(self) -> None:
        """A new round: no turn runs."""
        self.deadline: float | None = None
        self.stood_in = False
        self.turn_at = 0.0  #: when the current turn started (``now``)
        self.turn_seat: int | None = None  #: the seat on turn (None: no turn runs)
        self.moves = 0  #: actions applied this round
        self.moved_at = 0.0  #: when the last one was (``now``)
        self.crypto_taken = 0  #: crypto messages of the round taken in or sent here
        self.crypto_at = self._ctx.now  #: when that count last changed (``now``)

    def get_timer(self) -> float | None:
        """The local turn's deadline, while the local person's own turn runs."""
        if self._ctx.number != 0 and self._local_turn() and self.deadline is not None:
            return self.deadline
        return None

    def start_turn(self, seat: int) -> None:
        """``seat``'s turn starts now: its deadline, told with ``TurnStarted``."""
        ctx = self._ctx
        self.turn_at = ctx.now
        self.turn_seat = seat
        timeout = ctx.config.turn_timeout_s
        if seat == ctx.me and self.away_turns and not self.present_now:
            timeout = min(timeout, AWAY_GRACE_S)  # R-TIMER: still away, a short grace
        if seat in self._seats.bots:  # its person may choose until then, if its node is back
            self.deadline = self.choice_deadline(seat)
        else:
            self.deadline = None if ctx.config.computer(seat) else ctx.now + timeout
        self.stood_in = False
        ctx.tell(tev.TurnStarted(seat, self.deadline))

    def choice_deadline(self, seat: int) -> float | None:
        """Until when the person of ``seat`` (taken over, on turn) may choose (R-TIMER:
        the full timer from the turn start or its return, ``AWAY_GRACE_S`` after a
        missed turn); ``None`` while its node is gone."""
        seats, config = self._seats, self._ctx.config
        if not seats.home_back(seat):
            return None
        start = max(self.turn_at, seats.back_at.get(config.node_of(seat), self.turn_at))
        grace = AWAY_GRACE_S if seat in self.missed else config.turn_timeout_s
        return start + grace

    def stall(self) -> Stall | None:
        """What this node waits for from another node now, if anything (R-TIMER, the
        others' part): in the play phase the turn running now, if another node must send
        its next action (:meth:`_turn_stall`); in the crypto of a round (its setup, the
        deal, the round end) the message awaited from another node (:meth:`_crypto_stall`).
        None when nothing waits on another node, this node sends it, or that node is
        gone already (taken over) — and while the game waits for a node gone whose seats
        cannot be taken over (:attr:`Seats.paused`, this node's or another's): the nodes
        still here may owe nothing until it is back (a seat they proxy needs its cards),
        and counting one of them lost would cut this node off from the only peers left."""
        ctx = self._ctx
        if (ctx.number == 0 or not ctx.going or ctx.leaving or ctx.observing
                or self._seats.paused):
            return None
        if ctx.phase is Phase.PLAY:
            return self._turn_stall()
        if ctx.phase in (Phase.CRYPTO, Phase.END):
            return self._crypto_stall()
        return None

    def _turn_stall(self) -> Stall | None:
        """The turn on now, if another node must send its next action: the seat's own
        node, the proxy's for a recovered seat, the adopter's for an adopted one."""
        ctx, seats = self._ctx, self._seats
        seat = self.turn_seat
        node = self._sender(seat) if seat is not None else None
        if seat is None or node is None:
            return None
        base = max(self.deadline if self.deadline is not None else self.turn_at,
                   self.moved_at)
        back = seats.back_at.get(node)
        if back is not None:  # back (restarted) during the turn: the full timer from then
            base = max(base, back + ctx.config.turn_timeout_s)
        return Stall(seat=seat, node=node, turn=(ctx.number, self.moves),
                     at=base + STALL_MARGIN_S)

    def _crypto_stall(self) -> Stall | None:
        """The crypto message awaited from another node, :data:`CRYPTO_STALL_S` after the
        last crypto message here (or its node's return, if later): of the seats the
        round waits for (:meth:`_awaited`), the lowest node's. A message the intake
        holds for one that never came (a gap) waits for that one's seat alone: its
        sender sent already."""
        ctx, seats = self._ctx, self._seats
        lack = self._missing()
        awaited = [lack] if lack is not None else self._awaited()
        nodes = sorted((node, seat) for seat in awaited
                       if (node := self._sender(seat)) is not None)
        if not nodes:
            return None
        node, seat = nodes[0]
        base = max(self.crypto_at, seats.back_at.get(node, self.crypto_at))
        return Stall(seat=seat, node=node, turn=(ctx.number, -1 - self.crypto_taken),
                     at=base + CRYPTO_STALL_S)

    def _awaited(self) -> list[int]:
        """The seats whose message the crypto of the round waits for now (the primary
        session's :meth:`~p2p8s.crypto.session.Session.awaited`; at the round end, once
        this node revealed its keys, every seat whose key is not known), but those with
        a message waiting here already (it waits for another's); for a served seat (its
        node gone, its key not rebuilt) the holders whose partial strips are missing."""
        ctx, seats, sessions = self._ctx, self._seats, self._sessions
        primary = sessions.primary
        awaited = set(primary.awaited())
        if ctx.phase is Phase.END and all(s.key_revealed for s in sessions.by_seat.values()):
            awaited.update(s for s in range(ctx.players) if not primary.knows_key(s))
        out: set[int] = set()
        for seat in awaited:
            if seat not in seats.recovered and seats.runner(seat) in seats.gone:
                out.update(primary.awaited_partials(seat))
            elif not primary.waiting(seat):
                out.add(seat)
        return sorted(out)

    def _sender(self, seat: int) -> int | None:
        """The node that sends ``seat``'s messages now — the proxy's for a recovered
        seat, else its runner (its own node while undecided: welcomed back) — if that
        is another node, not gone."""
        ctx, seats = self._ctx, self._seats
        if seat in seats.recovered:
            proxy = seats.proxy()
            node = seats.runner(proxy) if proxy is not None else None
        else:
            node = seats.runner(seat)
            if node is None:  # undecided (its node welcomed back): its own node
                node = ctx.config.node_of(seat)
        if node is None or node == ctx.me or node in seats.gone:
            return None
        return node

    def crypto_moved(self) -> None:
        """The flow took its steps: note when the round's crypto last moved here (a
        message taken in or sent, counted in the primary session's chains)."""
        if self._ctx.number == 0 or not self._sessions.by_seat:
            return
        taken = sum(count for count, _ in self._sessions.primary.chain_heads())
        if taken != self.crypto_taken:
            self.crypto_taken, self.crypto_at = taken, self._ctx.now

    def stall_timer(self) -> float | None:
        """When the turn running now stalls (:meth:`stall`), while that is still ahead."""
        stall = self.stall()
        return stall.at if stall is not None and stall.at > self._ctx.now else None

    def refresh_deadline(self) -> None:
        """A node came back: the turn of a seat taken over gets its choice deadline."""
        rnd = self._log.round
        if (self._ctx.phase is Phase.PLAY and rnd is not None and not rnd.over
                and rnd.turn in self._seats.bots):
            self.deadline = self.choice_deadline(rnd.turn)

    def back(self, node: int) -> None:
        """``node`` is back: its seats taken over get the full timer again."""
        config = self._ctx.config
        self.missed.difference_update(
            d for d in range(config.players) if config.node_of(d) == node)

    def present(self, now: float, *, my_turn: Callable[[], bool]) -> None:
        """The local person typed something: an away player's short grace ends (the
        turn on now, if ``my_turn()``, gets the full timer from ``now``)."""
        ctx = self._ctx
        if self.away_turns and not self.present_now:
            self.present_now = True
            timeout = ctx.config.turn_timeout_s
            if (ctx.number != 0 and my_turn() and self.deadline is not None
                    and self.deadline < now + timeout):
                self.deadline = now + timeout
                ctx.tell(tev.TurnStarted(ctx.me, self.deadline))

    def acted(self) -> None:
        """The local person acts: tell them what the computer played while away."""
        if self.away_turns or self.bot_turns:
            n = self.away_turns + self.bot_turns
            self.away_turns = self.bot_turns = 0
            self._ctx.tell(tev.Info(InfoCode.AWAY_TURNS, {"n": n}))

    def stand_in_due(self) -> bool:
        """The local seat is on turn: True once its deadline passed (the computer plays
        the turn; the first time, the person is told and counts as away)."""
        ctx = self._ctx
        if self.deadline is None or ctx.now < self.deadline:
            return False
        if not self.stood_in:
            self.stood_in = True
            self.away_turns += 1
            self.present_now = False
            ctx.tell(tev.Info(InfoCode.STOOD_IN) if self.away_turns > 1 else tev.Info(
                InfoCode.STOOD_IN_FIRST,
                {"timeout_s": ctx.config.turn_timeout_s, "grace_s": AWAY_GRACE_S}))
        return True

    def after_action(self, seat: int, record: ActRecord, *, told: bool) -> None:
        """An action of ``seat`` was applied: a person's choice means it is back; the
        takeover computer's move for the local seat is counted (``told``: the person was
        told it plays again, so it missed this turn)."""
        self.moves += 1
        self.moved_at = self._ctx.now
        ctx = self._ctx
        if seat == ctx.me and ctx.restoring and (record.choice is not None
                                                 or seat not in self._seats.bots):
            # a log replayed into a restored table: its person played here, so only the
            # computer's turns after this one are of the absence now ending
            self.bot_turns = 0
        if record.choice is not None:
            self.missed.discard(seat)  # its person is back at the table
        elif seat == self._ctx.me and seat in self._seats.bots:
            if not isinstance(record.action, Draw):
                self.bot_turns += 1  # told when the person acts again
            if self._seats.home_back(seat) and told:
                self.missed.add(seat)  # it was back and missed this turn (R-TIMER)

    def end_round(self) -> None:
        """The round is over: no deadline."""
        self.deadline = None
        self.turn_seat = None
