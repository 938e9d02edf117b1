"""The people's side of a running table, as :func:`p2p8s.net.runner.play_table` sees it:
the :class:`Frontend` protocol (the terminal client, a test recorder) and what it
answers a typed line with — an action, :class:`Leave`, or :class:`Think`, slow thinking
the runner does in a worker thread on a snapshot.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from p2p8s.bots.base import Bot
from p2p8s.engine import Action
from p2p8s.errors import Note
from p2p8s.table import Table, TableConfig


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
    :meth:`Frontend.typed` (it should check that the decision is still the same). One thought at a
    time: typed lines wait until it is done, so they keep their order.
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
        """The match begins (``rejoined``: back at a match in play); the log's path."""

    def show(self, table: Table, events: Sequence[object], now: float) -> None:
        """Report the table's events and the runner's :class:`Note` values (in order)."""

    def presence(self, seat: int, name: str, *, connected: bool, reason: Note) -> None:
        """Seat ``seat``'s node (``name``) connected or left; ``reason``: how (a note)."""

    def turn(self, table: Table, now: float) -> None:
        """It is this seat's decision now (a person plays it): show the table, prompt."""

    def warn(self, table: Table, seconds_left: float) -> None:
        """The turn timer is about to run out."""

    def typed(self, table: Table, line: str, now: float) -> Typed:
        """A line the person typed: answer with an action, :class:`Leave`, a
        :class:`Think` (slow work, such as a hint, done off the loop) or ``None``."""

    def finished(self, table: Table, why: Note) -> None:
        """The runner stops: the match is over, the rounds played, or the player left."""
