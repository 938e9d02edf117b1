"""Turns that do not move and moves that do not leave (protocol/table.md, "Timer" and
"The runner's part" → "Stalled turn", "Held"), sans-IO.

A :class:`Watch` keeps, for a :class:`~p2p8s.table.link.Link`, what its node did about
a turn another node must move (:attr:`~p2p8s.table.Table.stall`): past the stall it
first asks that node to catch up (:class:`CatchUp`: a fresh connection and ``sync``),
and if the same turn has not moved :data:`STALL_RETRY_S` later it gives up on it
(:class:`GiveUp`: the node counts as lost; it is counted back only once its seats are
taken over, or after :data:`STALL_HOLD_OFF_S`). It also times this node's own table
holding its moves while every other node is reached (:meth:`Watch.held`): after
:data:`HELD_MAX_S` the link rebuilds from the others' log; and holding at all
(:meth:`Watch.stuck`): after :data:`HELD_STUCK_S` it rebuilds from the log of any peer
reached and synced.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from p2p8s.table.clock import STALL_MARGIN_S, Stall
from p2p8s.table.inbox import Missing

#: Seconds a stalled turn may take to move once this node asked its node to catch up
#: (a fresh connection and ``sync``), before that node counts as lost.
STALL_RETRY_S = 10.0
#: Seconds a node counted as lost for a stalled turn is not counted back (its seats are
#: taken over meanwhile), though it connects again at once.
STALL_HOLD_OFF_S = 30.0
#: Seconds this node's table may hold its moves (:attr:`~p2p8s.table.Table.holding`)
#: while every other node is reached, before it rebuilds from their log (it cannot know
#: otherwise whether its seat was taken over: the moves are applied here only).
HELD_MAX_S = 10.0
#: Seconds this node's table may hold its moves at all (whoever is reached) before it
#: rebuilds from the log of a peer reached and synced, though not every node is: one
#: node out of reach for good, or the others' stalled-turn watch making its connection
#: anew again and again, must not keep it holding for ever.
HELD_STUCK_S = 30.0
#: Seconds this node's table may hold messages that wait for one that never came
#: (:meth:`~p2p8s.table.Table.missing`, the same one all along) while every node reached
#: is synced — their resends are in, so none of them will send it — before it rebuilds
#: from the log of the lowest of them, which has it (whoever's message echoed it).
GAP_MAX_S = 15.0


@dataclass(frozen=True, slots=True, kw_only=True)
class CatchUp:
    """The turn of ``seat`` stalls on ``node``'s node: connect to it afresh (its ``sync``
    resends what was lost on the way)."""

    seat: int
    node: int


@dataclass(frozen=True, slots=True, kw_only=True)
class GiveUp:
    """The same turn still stalls on ``node``'s node after catching up: count it lost."""

    node: int


@dataclass(slots=True)
class Watch:
    """What this node did about stalled turns, and since when its table holds."""

    #: node -> (the stalled turn, when the node counts as lost if it has not moved)
    asked: dict[int, tuple[tuple[int, int], float]] = field(default_factory=dict)
    quiet: dict[int, float] = field(default_factory=dict)  #: node -> no new stall before
    hold_off: dict[int, float] = field(default_factory=dict)  #: node -> counted back after
    back_due: set[int] = field(default_factory=set)  #: synced again during its hold-off
    held_since: float | None = None  #: this table holds while every node is reached
    holds_since: float | None = None  #: this table holds (whoever is reached)
    stuck_due: bool = False  #: held for HELD_STUCK_S: rebuild at the next input able to
    #: the message this table lacks (:meth:`gap`) and since when
    lacks: tuple[Missing, float] | None = None

    def timer(self, stall: Stall | None) -> float | None:
        """When to look again: the stall (or the end of the wait after a catch-up), the
        end of a hold-off of a node synced again, the end of the holding allowed."""
        times = [t for s, t in self.hold_off.items() if s in self.back_due]
        if self.held_since is not None:
            times.append(self.held_since + HELD_MAX_S)
        if self.holds_since is not None and not self.stuck_due:
            times.append(self.holds_since + HELD_STUCK_S)
        if self.lacks is not None:
            times.append(self.lacks[1] + GAP_MAX_S)
        if stall is not None:
            asked = self.asked.get(stall.node)
            times.append(asked[1] if asked is not None and asked[0] == stall.turn
                         else max(stall.at, self.quiet.get(stall.node, stall.at)))
        return min(times, default=None)

    def check(self, stall: Stall | None, now: float) -> CatchUp | GiveUp | None:
        """What to do about the turn running now (``stall``: the table's) at ``now``.

        >>> w = Watch()
        >>> s = Stall(seat=2, node=2, turn=(1, 4), at=40.0)
        >>> w.check(s, 39.0), w.check(s, 40.0), w.check(s, 45.0), w.check(s, 50.0)
        (None, CatchUp(seat=2, node=2), None, GiveUp(node=2))
        """
        if stall is None or now < stall.at or now < self.quiet.get(stall.node, now):
            return None
        node = stall.node
        asked = self.asked.get(node)
        if asked is None or asked[0] != stall.turn:
            self.asked[node] = (stall.turn, now + STALL_RETRY_S)
            return CatchUp(seat=stall.seat, node=node)
        if now < asked[1]:
            return None
        del self.asked[node]
        self.quiet[node] = now + STALL_MARGIN_S
        self.hold_off[node] = now + STALL_HOLD_OFF_S  # it connects again at once
        return GiveUp(node=node)

    def may_return(self, node: int, now: float, *, taken: bool) -> bool:
        """Whether ``node`` (synced again) may be counted back now: not during its
        hold-off, unless its seats are ``taken`` over already (else it is due later)."""
        until = self.hold_off.get(node)
        if until is not None and now < until and not taken:
            self.back_due.add(node)
            return False
        self.hold_off.pop(node, None)
        self.back_due.discard(node)
        return True

    def due_back(self, now: float) -> list[int]:
        """The nodes whose hold-off ended at ``now`` and that were synced again meanwhile
        (to be counted back now)."""
        ended = [s for s, t in self.hold_off.items() if t <= now]
        for node in ended:
            del self.hold_off[node]
        due = [s for s in ended if s in self.back_due]
        self.back_due.difference_update(due)
        return due

    def stuck(self, holds: bool, now: float) -> bool:
        """This table holds its moves (``holds``, whoever is reached); True once it has
        for :data:`HELD_STUCK_S` (rebuild now if most nodes are reached and synced; else
        at the next input that finds them so: the time is then out of :meth:`timer`).

        >>> w = Watch()
        >>> w.stuck(True, 5.0), w.stuck(True, 34.0), w.stuck(True, 35.0), w.timer(None)
        (False, False, True, None)
        >>> w.stuck(False, 36.0), w.stuck(True, 40.0), w.timer(None)
        (False, False, 70.0)
        """
        if not holds:
            self.holds_since, self.stuck_due = None, False
            return False
        if self.holds_since is None:
            self.holds_since = now
        self.stuck_due = now >= self.holds_since + HELD_STUCK_S
        return self.stuck_due

    def held(self, holding: bool, now: float) -> bool:
        """This table holds its moves (``holding``: while every other node is reached);
        True once it has for :data:`HELD_MAX_S` (rebuild now)."""
        if not holding:
            self.held_since = None
            return False
        if self.held_since is None:
            self.held_since = now
        return now >= self.held_since + HELD_MAX_S

    def gap(self, lack: Missing | None, now: float) -> bool:
        """This table lacks ``lack`` (None: nothing, or not while a node reached is still
        syncing); True once it has lacked the same message for :data:`GAP_MAX_S`
        (rebuild now).

        >>> w, m = Watch(), Missing(round=2, seat=3, expected=1, seq=2)
        >>> w.gap(m, 5.0), w.gap(m, 19.0), w.timer(None), w.gap(m, 20.0)
        (False, False, 20.0, True)
        >>> w.gap(None, 21.0), w.timer(None), w.gap(m, 22.0), w.timer(None)
        (False, None, False, 37.0)
        """
        if lack is None:
            self.lacks = None
            return False
        if self.lacks is None or self.lacks[0] != lack:
            self.lacks = (lack, now)
        return now >= self.lacks[1] + GAP_MAX_S
