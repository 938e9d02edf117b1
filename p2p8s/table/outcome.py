"""How one node's run of a match goes, sans-IO: the rounds it plays and when it stops.

An :class:`Outcome` reads the events of this node's :class:`~p2p8s.table.Table` for its
:class:`~p2p8s.table.link.Link`: it counts the rounds played (a :class:`RoundLogged`
mark for each), keeps the ``--rounds`` cut-off (no payload of a later round is sent:
the others must not wait on a round this node will not play), turns the table's
"seat away" events into what the player needs (a seat that left for good is played by
the computer; a paused game waits for someone), and decides when the runner stops —
:attr:`Outcome.done` (the rounds asked for, the match over, the player left) — or cannot
go on: :attr:`Outcome.failure` (a :class:`TableFailed` on a fault; a :class:`PeerLost`
when the only other people left for good, stopped after their rounds, or restarted where
nobody can rebuild their keys: :attr:`Table.stranded`; a :class:`PeerLost` too when the
others finished the round this node is in and left, and nobody who could give it the
rest of that round is reached: :meth:`Outcome.check_left`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from p2p8s.errors import Note
from p2p8s.table import events as tev
from p2p8s.table.core import Outgoing, Table
from p2p8s.table.linkout import LinkCode, PeerLost, RoundLogged, TableFailed, note
from p2p8s.table.sync import round_of

#: Seconds a node whose other people all finished the round it is in and left, but for
#: some away, waits for one of those to come back before it stops (a node owing it the
#: end of the round lingers 60 s for it: the runner's ``LINGER_S``).
LEFT_ALONE_S = 90.0


class Outcome:
    """The run of ``table`` on this node: ``others`` are the other people's seats,
    ``limit`` the rounds it plays (None: to the end of the match), ``log_name`` names
    its table log in messages."""

    def __init__(self, table: Table, *, others: Sequence[int], limit: int | None = None,
                 log_name: str | None = None) -> None:
        self.table = table
        self.others = list(others)
        self.limit = limit
        self.log_name = log_name
        self.names = table.config.names
        self.rounds = 0  #: rounds completed here
        self.match_over = False
        self.done: Note | None = None  #: why the runner stops, once it does
        self.completed = False  #: played to the end (the rounds asked for, or the match)
        self.failure: PeerLost | TableFailed | None = None  #: why the match cannot go on
        self.gone_for_good: list[int] = []  #: seats that left (``leave``), in order
        self.finished: set[int] = set()  #: seats whose node said bye: finished playing
        self.finished_round: dict[int, int] = {}  #: seat -> the last round it played
        self.alone_since: float | None = None  #: since when only nodes away could help

    def name(self, seat: int | None) -> str | None:
        """The seat's name, if the table has that seat."""
        return self.names[seat] if seat is not None and 0 <= seat < len(self.names) else None

    def sendable(self, msg: Outgoing) -> bool:
        """Whether ``msg`` may be sent (not of a round past the cut-off)."""
        return self.limit is None or round_of(msg.payload) <= self.limit

    def fail(self, error: PeerLost | TableFailed) -> None:
        """The match cannot go on (the first reason counts)."""
        if self.failure is None:
            self.failure = error

    def end(self, why: Note, *, completed: bool = True) -> None:
        """The runner stops (``completed``: played to the end, else the player left)."""
        if self.done is None:
            self.done = why
            self.completed = completed

    def take(self, events: Sequence[object]) -> tuple[list[object], list[RoundLogged]]:
        """The table's ``events`` (and notes) of one step: what the player is shown and
        the round marks, in order; then stop where the match is over or cannot go on."""
        shown: list[object] = []
        marks: list[RoundLogged] = []
        gone: list[int] | None = None
        left = set(self.gone_for_good)
        everyone_left = bool(self.others) and left >= set(self.others)
        for event in events:
            if self.done is not None and not isinstance(event, tev.MatchOver):
                break  # the rounds asked for are played: later events are not shown
            if isinstance(event, tev.SeatAway) and event.seat in left:
                if not event.paused:
                    shown.append(note(LinkCode.LEFT_TAKEN_OVER, seat=event.seat))
                continue
            if isinstance(event, tev.SeatAway) and event.paused and everyone_left:
                continue  # nobody to wait for (below)
            shown.append(event)
            if isinstance(event, tev.SeatAway) and event.paused:
                shown.append(note(LinkCode.WAITING_FOR_OTHERS) if event.seat == self.table.me
                             else note(LinkCode.WAITING_FOR, seat=event.seat))
            elif isinstance(event, tev.RoundOver):
                self.rounds += 1
                marks.append(RoundLogged(number=event.result.number, audit_ok=event.audit_ok,
                                         totals=tuple(self.table.match.totals),
                                         transcript=self.table.transcript))
                if self.limit is not None and self.rounds >= self.limit:
                    self.end(note(LinkCode.DONE_ROUNDS, n=self.rounds))
                elif self.finished and not self.table.finished:
                    gone = sorted(self.finished)
            elif isinstance(event, tev.MatchOver):
                self.match_over = True
                self.end(note(LinkCode.DONE_MATCH_OVER))
        if self.done is None:
            self._stop_if_over(gone)
        return shown, marks

    def peer_finished(self, seat: int, *, last_round: int) -> None:
        """``seat``'s node said bye after the rounds it asked for (``last_round``: the last
        it sent a message in): if this node finished that round too and plays on, nobody
        plays that seat's part any more (else it finishes the round first: :meth:`take`)."""
        self.finished.add(seat)
        self.finished_round[seat] = last_round
        if self.done is None and not self.table.finished and last_round <= self.rounds:
            self.fail(PeerLost(LinkCode.PEERS_FINISHED, seat=seat, names=[self.names[seat]]))

    def check_left(self, away: Collection[int], now: float) -> None:
        """Stop when every other person's node finished (said ``bye``), left for good or
        is ``away``, some finished beyond the rounds this node completed — so the round
        in play here ended there, and whatever this table lacks of it only a node away
        can still give — and none of those is reached: at once when none is away, else
        once they stayed away :data:`LEFT_ALONE_S` (``now``: the loop's clock). A
        :class:`PeerLost` (:attr:`LinkCode.ENDED_ELSEWHERE`) says who finished, who was
        not reached again and which round never came here (issue #11: a node back after
        a drop waited for good, the others gone with the result)."""
        others = [s for s in self.others if s not in self.gone_for_good]
        ahead = sorted(s for s in self.finished if self.finished_round[s] > self.rounds)
        missing = [s for s in others if s not in self.finished]
        if (self.done is not None or self.failure is not None or self.table.finished
                or not ahead or any(s not in away for s in missing)):
            self.alone_since = None
            return
        if missing:
            if self.alone_since is None:
                self.alone_since = now
            if now < self.alone_since + LEFT_ALONE_S:
                return
        self.fail(PeerLost(LinkCode.ENDED_ELSEWHERE, seat=ahead[0],
                           names=[self.names[s] for s in ahead],
                           away=[self.names[s] for s in missing],
                           number=self.rounds + 1, rounds=self.rounds,
                           seconds=LEFT_ALONE_S, log=self.log_name))

    def left_timer(self) -> float | None:
        """When :meth:`check_left` stops the run, if nobody away comes back (None: it
        does not wait for that)."""
        return None if self.alone_since is None else self.alone_since + LEFT_ALONE_S

    def _stop_if_over(self, gone: list[int] | None) -> None:
        """Stop when the match is over or cannot go on (``gone``: the peers that finished
        the rounds they asked for, once this node finished that round too)."""
        table = self.table
        fault = table.failed
        if fault is not None:
            self.fail(TableFailed(LinkCode.BROKE_RULES, seat=fault.seat,
                                  name=self.name(fault.seat), reason=fault,
                                  names=tuple(table.names),
                                  log=self.log_name))
        elif gone is not None:
            self.fail(PeerLost(LinkCode.PEERS_FINISHED, seat=min(gone),
                               names=[self.names[s] for s in gone]))
        elif (self.others and not table.finished
              and set(self.gone_for_good) >= set(self.others)
              and table.paused & set(self.gone_for_good)):
            last = self.gone_for_good[-1]  # every other person left for good, and the
            # table cannot play their seats (they left before giving their keys)
            self.fail(PeerLost(LinkCode.EVERYONE_LEFT, seat=last, name=self.names[last]))
        elif table.finished:
            self.match_over = True
            self.end(note(LinkCode.DONE_MATCH_OVER))
        elif table.stranded:
            node = min(table.stranded)
            self.fail(PeerLost(LinkCode.STRANDED, seat=node, name=self.names[node],
                               me=node == table.me, two=len(self.others) == 1,
                               log=self.log_name))

    def replayed(self, events: Sequence[object]) -> tuple[list[object], list[RoundLogged]]:
        """The first events of a table restored from a log: the rounds already played
        (counted, marked as replayed) and the current round's events (to show) — its
        moves, not its notices (they are old news: "lost contact…", a takeover since
        undone), but a seat still away is said."""
        starts = [i for i, e in enumerate(events) if isinstance(e, tev.RoundStarted)]
        past = events[:starts[-1]] if starts else events
        played = [e for e in past if isinstance(e, tev.RoundOver)]
        self.rounds += len(played)
        marks = [RoundLogged(number=e.result.number, audit_ok=e.audit_ok,
                             totals=tuple(e.result.points), transcript=None) for e in played]
        current = list(events[starts[-1]:] if starts else [])
        away = [e for e in current if isinstance(e, tev.SeatAway)
                and e.paused and e.seat in self.table.paused]
        kept = [e for e in current if not isinstance(e, tev.Info)]
        return kept + away[-1:], marks
