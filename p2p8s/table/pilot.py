"""The local seat's pace at a running table (R-TIMER), sans-IO.

A :class:`Pilot` decides, from the :class:`~p2p8s.table.Table` and ``now``, when the
person at this node is prompted for a decision (:meth:`Pilot.point` → :class:`Prompt`),
when the auto player (``--auto``, or the stand-in once input ended) chooses its move
(:class:`Move`, ``auto_delay_s`` after the decision began) and when the turn-timer
warning is due (:class:`Warn`, ``warn_s`` before the deadline, once per deadline).
:meth:`Pilot.get_timer` says when to call :meth:`Pilot.handle_timer` again.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p8s.bots.base import Bot
from p2p8s.table.core import Table

#: What tells one decision of the local seat from the next: the rounds played, the
#: actions applied in the round, the cards drawn this turn, the pending draw penalty.
Decision = tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class Prompt:
    """Ask the person for the table's decision (show the table, prompt)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Move:
    """Let the auto player choose the move of ``decision`` now."""

    decision: Decision


@dataclass(frozen=True, slots=True, kw_only=True)
class Warn:
    """The turn timer runs out in ``seconds_left``."""

    seconds_left: float


class Pilot:
    """The pace of the local seat: ``auto`` plays it (None: a person), ``auto_delay_s``
    after each decision begins; a person is warned ``warn_s`` before the deadline."""

    def __init__(self, *, auto: Bot | None, auto_delay_s: float, warn_s: float) -> None:
        self.auto = auto
        self.auto_delay_s = auto_delay_s
        self.warn_s = warn_s
        self.decision: Decision | None = None  # the decision prompted or armed last
        self.auto_at: float | None = None
        self._warned: float | None = None  # the deadline warned of last

    def point(self, table: Table, now: float, *, hold: bool = False,
              rounds: int = 0) -> Prompt | None:
        """After every step: a :class:`Prompt` when a new decision of this seat begins and
        a person plays it (an auto player is armed instead). ``hold``: nothing may be
        decided now (the runner stops, or waits after a freeze: asked again after);
        ``rounds``: the rounds played so far."""
        if hold or not table.my_turn:
            self.forget()
            return None
        view = table.view()
        if view is None:
            return None
        key = (rounds, len(view.log), view.drawn, view.pending_draw)
        if key == self.decision:
            return None
        self.decision = key
        if self.auto is not None:
            self.auto_at = now + self.auto_delay_s
            return None
        return Prompt()

    def forget(self) -> None:
        """Decide again at the next :meth:`point` (a move was refused, a bot stands in)."""
        self.decision = self.auto_at = None

    def stands_for(self, decision: Decision | None, table: Table) -> bool:
        """Whether a move chosen for ``decision`` may still be played."""
        return decision is not None and decision == self.decision and table.my_turn

    def get_timer(self, table: Table, *, thinking: bool = False) -> float | None:
        """The auto player's time (not while a ``thinking`` thought runs), or the warning."""
        times = [self.auto_at] if self.auto_at is not None and not thinking else []
        deadline = self._deadline(table)
        if deadline is not None:
            times.append(deadline - self.warn_s)
        return min(times) if times else None

    def handle_timer(self, table: Table, now: float, *, thinking: bool = False
                     ) -> list[Move | Warn]:
        """What is due at ``now``."""
        out: list[Move | Warn] = []
        if self.auto_at is not None and self.auto_at <= now and not thinking:
            self.auto_at = None
            if self.decision is not None:
                out.append(Move(decision=self.decision))
        deadline = self._deadline(table)
        if deadline is not None and deadline - self.warn_s <= now:
            self._warned = deadline
            if deadline > now:
                out.append(Warn(seconds_left=deadline - now))
        return out

    def _deadline(self, table: Table) -> float | None:
        """The deadline a person is still to be warned of."""
        deadline = table.deadline if table.my_turn else None
        if deadline is None or self.auto is not None or self._warned == deadline:
            return None
        return deadline
