"""The frozen-process rule (protocol/table.md, "The runner's part" → "Frozen"), sans-IO.

A process that did not run for a while (suspended, a laptop asleep) wakes with every
timer and buffered frame due at once, while its peers may have declared it lost and
taken its seats over. A :class:`Freeze` is told every read of the loop's clock
(:meth:`Freeze.clock`); a gap of :data:`FROZEN_S` or more beyond the time the loop
waited makes it **asleep**: its :class:`~p2p8s.table.link.Link` sends nothing from the
table (:attr:`Freeze.held`), drives no timer or move, calls no ``peer_lost`` for the
connections that end meanwhile (:attr:`Freeze.lost`) and holds its ``sync`` on new
connections (:attr:`Freeze.unsynced`) until the peer's. :meth:`Freeze.check` says when it
is awake again: once :data:`SETTLE_S` has passed and every peer lost meanwhile is back,
or after :data:`ASLEEP_MAX_S`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from p2p8s.table.core import Outgoing

#: A gap of at least this many seconds between two reads of the loop's clock (beyond the
#: time it waited) means this process did not run: its peers may have declared it lost
#: (after 5 s of silence) and taken its seats over.
FROZEN_S = 3.0
#: After a freeze, seconds to wait for the ends of connections the peers closed meanwhile.
SETTLE_S = 1.0
#: After a freeze, seconds to wait for the peers it lost to connect again before playing
#: on without them (as after a lost connection).
ASLEEP_MAX_S = 30.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Waiting:
    """Still asleep: the peers in ``missing`` (seats) are not back yet; ``first``: the
    first time this is said since the freeze."""

    missing: list[int]
    first: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class Awake:
    """Awake again: send the ``held`` payloads, the ``sync`` held on each connection of
    ``unsynced`` (seat → conn), and count the peers in ``missing`` as lost (they did not
    come back within :data:`ASLEEP_MAX_S`)."""

    held: list[Outgoing]
    unsynced: dict[int, int]
    missing: list[int]


@dataclass(slots=True)
class Freeze:
    """Whether this process was found frozen, and what it holds until it knows."""

    since: float | None = None  #: asleep since (the loop's clock); None: awake
    lost: set[int] = field(default_factory=set)  #: peers whose connection ended meanwhile
    held: list[Outgoing] = field(default_factory=list)  #: the table's output meanwhile
    unsynced: dict[int, int] = field(default_factory=dict)  #: seat -> conn, sync held
    settled: bool = False  #: :data:`SETTLE_S` has passed since the freeze
    _told: bool = False
    _mark: float | None = None

    @property
    def asleep(self) -> bool:
        """Found frozen, and not awake again yet."""
        return self.since is not None

    def clock(self, now: float, waited_s: float | None) -> float | None:
        """The loop read its clock: ``now``, having waited ``waited_s`` seconds since the
        previous read (None: the first read). Returns the seconds the process did not
        run when that makes it asleep, else None.

        >>> f = Freeze()
        >>> f.clock(10.0, None), f.clock(10.6, 0.5), f.clock(15.0, 0.5), f.asleep
        (None, None, 3.9, True)
        """
        mark, self._mark = self._mark, now
        if mark is None or waited_s is None:
            return None
        gap = round(now - mark - waited_s, 9)
        if gap < FROZEN_S:
            return None
        self.since, self.settled, self._told = now, False, False
        return gap

    def get_timer(self) -> float | None:
        """While asleep: the end of the settling time, then the end of the wait."""
        if self.since is None:
            return None
        return self.since + (ASLEEP_MAX_S if self.settled else SETTLE_S)

    def check(self, now: float, away: set[int]) -> Waiting | Awake | None:
        """Whether it is awake at ``now`` (``away``: the peers its link misses now); None
        while settling (or awake already). Awake clears the freeze."""
        if self.since is None or now < self.since + SETTLE_S:
            return None
        self.settled = True
        missing = sorted(self.lost & away)
        if missing and now < self.since + ASLEEP_MAX_S:
            first, self._told = not self._told, True
            return Waiting(missing=missing, first=first)
        awake = Awake(held=self.held, unsynced=self.unsynced, missing=missing)
        self.wake()
        return awake

    def wake(self) -> None:
        """Awake, forgetting what it held (the player left, or it is awake)."""
        self.since = None
        self.lost = set()
        self.held = []
        self.unsynced = {}
