"""A short grace before the screen says a node's connection dropped.

A connection that drops for a second and comes back is no news: :class:`Grace` holds
the lines about a seat whose connection was lost for ``grace_s`` seconds (a screen
decision: the table's own timers do not change), drops them when the seat is back in
time, and gives them out once the grace is over or something else about that seat
must be said (its seat taken over, it restarted).
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Seconds a terminal waits before it says a node's connection dropped.
GONE_GRACE_S = 3.0


@dataclass(slots=True)
class _Hold:
    due: float
    lines: list[str]
    tail: list[str] = field(default_factory=list)  # said after the others (a hint)


@dataclass(slots=True)
class Grace:
    """Lines held per seat (``grace_s`` 0: none is held); ``now`` in seconds of any
    monotonic clock."""

    grace_s: float = 0.0
    held: dict[int, _Hold] = field(default_factory=dict)

    def start(self, seat: int, now: float, line: str) -> bool:
        """Hold ``line`` (seat ``seat``'s connection dropped at ``now``) until
        ``now + grace_s``; False when no grace is kept (say it now)."""
        if self.grace_s <= 0:
            return False
        self.held[seat] = _Hold(due=now + self.grace_s, lines=[line])
        return True

    def add(self, seat: int, line: str, *, last: bool = False) -> bool:
        """Hold ``line`` with the drop of ``seat`` if it is held (else False); ``last``:
        said after the lines held without it (what to do about the drop comes after
        what happened)."""
        hold = self.held.get(seat)
        if hold is None:
            return False
        (hold.tail if last else hold.lines).append(line)
        return True

    def back(self, seat: int) -> bool:
        """``seat`` is back: forget its held lines; True if there were (nothing about
        the drop was said, so nothing about the return need be)."""
        return self.held.pop(seat, None) is not None

    def release(self, seat: int) -> list[str]:
        """The held lines of ``seat``, to say now (and no longer held)."""
        hold = self.held.pop(seat, None)
        return hold.lines + hold.tail if hold is not None else []

    def due(self, now: float) -> list[str]:
        """The held lines whose grace is over at ``now``, in the order the drops came."""
        lines: list[str] = []
        for seat in [s for s, h in self.held.items() if h.due <= now]:
            lines += self.release(seat)
        return lines
