"""The friends' table in the terminal: the solo client's rendering plus seats and timer.

:class:`TableScreen` is the :class:`~p2p8s.net.runner.Frontend` of ``p2p8s host`` and
``p2p8s join``. It draws with :mod:`p2p8s.cli.view` exactly as ``p2p8s play`` does
(table, numbered hand, one line per turn, open hands and the match table at round end)
and adds what a table of people needs: who sits where and who is connected, the seconds
left on the 30-second turn timer at the prompt, a warning line when 10 seconds remain,
and the audit verdict of every round ("audit: every card checked ✓" or the cheater
named). Typed lines and the narration go through the controller the solo client uses
(:mod:`p2p8s.cli.controller`); it never reads input itself. A hint is thought out off
the event loop: :meth:`typed` hands the runner a :class:`~p2p8s.net.runner.Think` and
says the hint when it is done.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from p2p8s.bots import registry
from p2p8s.bots.base import Bot, View
from p2p8s.bots.hints import Hint, hint
from p2p8s.cli import view as v
from p2p8s.cli.controller import Act, AskHint, Board, Controller, Kind, Leave, Redraw, board_lines
from p2p8s.cli.grace import Grace
from p2p8s.cli.moves import card_message, sentence, shorten
from p2p8s.cli.terminal import Terminal
from p2p8s.cli.words import PLAIN, Speaker, narration
from p2p8s.cli.words.rules import describe_rules
from p2p8s.cli.words.runner import FAULTS, ScreenLine, presence_line
from p2p8s.cli.words.runner import reason as _reason
from p2p8s.cli.words.table import said
from p2p8s.engine import Action, Draw, Round
from p2p8s.errors import MalformedInput, Note
from p2p8s.match import Match
from p2p8s.net import runner
from p2p8s.net.runner import Think, Typed
from p2p8s.rules import Ruleset
from p2p8s.table import Table, TableConfig
from p2p8s.table import events as tev
from p2p8s.table.linkout import LinkCode

#: Seat notices said with a dropped connection (held with it during the grace).
_HELD_WITH_DROP = frozenset({tev.InfoCode.SEAT_GONE, tev.InfoCode.SEAT_WAITS})
#: How a node comes back that says nothing when its drop was not said yet (a
#: restarted node lost its cards: that is said, with the drop).
_QUIET_RETURNS = frozenset({LinkCode.BACK, LinkCode.BACK_RESYNCED})

#: What the audit line says when every card of the round checked out.
AUDIT_OK = "audit: every card checked ✓"

TABLE_HELP = (
    "  At this table: each turn has 30 seconds, then the computer plays it for you.",
    "  quit     leave the table (the computer plays your seat)",
)


def seats_line(names: Sequence[str], me: int, *, computers: dict[int, str],
               gone: dict[int, str], host: str, taken: frozenset[int] = frozenset(),
               back: frozenset[int] = frozenset()) -> str:
    """Who sits where and who is connected: ``Seats: Ann (you) · Bob · Hanna (computer)``;
    ``taken``: seats taken over (hand open) for a player whose node went: the computer
    plays them while their node is ``gone`` (else ``left``); once ``back``, the player
    plays again; a computer seat taken over is no longer on ``host``'s node."""
    parts = []
    for s, name in enumerate(names):
        if s == me:
            parts.append(f"{name} (you)")
        elif s in computers:  # taken over: the node that ran it went
            parts.append(f"{name} (computer, hand open)" if s in taken
                         else f"{name} (computer, on {host}'s node)")
        elif s in taken and s in back and s not in gone:
            parts.append(f"{name} (back; plays again, hand open)")
        elif s in taken:
            state = "gone" if s in gone else "left"
            parts.append(f"{name} ({state}; the computer plays, hand open)")
        elif s in gone:
            parts.append(f"{name} (gone)")
        else:
            parts.append(f"{name} (connected)")
    return "Seats: " + " · ".join(parts)


def _escrowed(table: Table) -> bool:
    """True when a lost player's seat can be served and taken over: the escrow is on and
    the table has three people or more (protocol/table.md "Dropped nodes"); else a lost
    player pauses the game."""
    config = table.config
    return config.escrow and sum(not config.computer(s) for s in range(config.players)) >= 3


def audit_line(ok: bool, message: str) -> str:
    """The round's audit verdict for people (``message``: what failed)."""
    if ok:
        return AUDIT_OK
    reason = message.removeprefix("audit failed: ")
    return f"audit FAILED — {reason}"


#: Notes after which the table's next events are a replay of what this node missed
#: (a frozen process catching up, a table rebuilt from a peer's log).
CATCH_UP_FROM = frozenset({LinkCode.FROZEN, LinkCode.REBUILD_TAKEN, LinkCode.REBUILD_ASLEEP,
                           LinkCode.REBUILD_HELD, LinkCode.REBUILD_OVER})
#: Notes after whose batch the catch-up is over (the table is current again).
CATCH_UP_TO = frozenset({LinkCode.REJOINED, LinkCode.CAUGHT_UP, LinkCode.ASLEEP_GAVE_UP})
#: Seat notices a replay repeats, said only if still true once caught up.
SEAT_NOTICES = (tev.SeatAway, tev.SeatTakenOver, tev.SeatBack)


@dataclass(slots=True, kw_only=True)
class _CatchUp:
    """A replay of missed events in progress: the moves it brings are summarised, not
    narrated as new. ``told``: moves of the round this screen had narrated before (a
    replay from the round's start repeats them); ``fresh``: this program just started
    (nothing of the round was told); ``moves``: the new ones per seat (not draws);
    ``notices``: seat notices, said at the end if they still hold; ``done``: the
    catch-up ends with this batch (``rebuilt``: with a table rebuilt from a log);
    ``resent``: after a plain drop that cut this node off, the seats back whose resent
    payloads are not all in yet (the catch-up ends when none is left), else None."""

    told: int
    fresh: bool = False
    moves: dict[int, int] = field(default_factory=dict)
    notices: list[tev.Info] = field(default_factory=list)
    done: bool = False
    rebuilt: bool = False
    resent: set[int] | None = None


class _Seat:
    """The local seat of a running table as the controller reads it
    (:class:`~p2p8s.cli.controller.Source`); ``table`` is the one the runner handed over
    last."""

    def __init__(self, screen: TableScreen) -> None:
        self.screen = screen
        self.table: Table | None = None

    @property
    def names(self) -> Sequence[str]:
        return self.screen.names

    @property
    def me(self) -> int:
        return self.screen.me

    @property
    def number(self) -> int:
        return self.screen.round_number

    def view(self) -> View | None:
        return self.table.view() if self.table is not None else None

    def round(self) -> Round | None:
        return self.table.round if self.table is not None else None

    def legal(self) -> list[Action]:
        return self.table.legal_actions() if self.table is not None else []

    def my_turn(self) -> bool:
        return self.table is not None and self.table.my_turn

    def match(self) -> Match | None:
        return self.table.match if self.table is not None else None

    def waiting(self) -> str:
        view = self.view()
        if view is None or self.screen.round_over:
            return "The cards are being shuffled and dealt; wait a moment."
        if view.turn == self.me:
            return "One moment: the other nodes are still handling your move."
        return (f"It is {self.screen.name(view.turn)}'s turn; wait for yours "
                "(help lists the commands).")


def applied_line(event: tev.Applied, speaker: Speaker, rules: Ruleset) -> str:
    """The sentence of one applied action, for the turns the table has moved past before
    they could be told from its view: the narration's own sentence, from the effect the
    engine recorded."""
    return narration.turn_line([event.event], speaker, rules=rules, final=event.out)


class TableScreen:
    """Draws a running table for the person at seat ``me`` (a runner ``Frontend``).

    What is typed and what is narrated goes through the
    :class:`~p2p8s.cli.controller.Controller` shared with the solo game; this class adds
    the table's own lines (seats, timer, audit, faults, who came and went)."""

    def __init__(self, term: Terminal, *, me: int, grace_s: float = 0.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """``grace_s``: seconds a dropped connection is kept quiet (:mod:`~p2p8s.cli.grace`:
        nothing is said if it is back by then); ``clock``: the seconds of ``now``."""
        self.term = term
        self.grace = Grace(grace_s)
        self.clock = clock
        self.look = term.look
        self.me = me
        self.names: list[str] = []
        self.computers: dict[int, str] = {}
        self.gone: dict[int, str] = {}
        self.back: set[int] = set()  # seats whose node came back after it was gone
        self.left: set[int] = set()  # seats whose player left the table (quit)
        self.host = ""
        self.auto: Bot | None = None
        self.round_number = 0
        self.round_over = False
        self._dealer = -1
        self._to_play: int | None = None  # whose turn was said last (None: none yet)
        self._prompting = False
        self._applied: list[str] = []
        self._catching: _CatchUp | None = None  # a replay of missed events runs
        self._cut_off = False  # this node lost most of the table (said so) since
        #: seats whose drop, held during a catch-up, went unsaid: their return is too
        self._unsaid: set[int] = set()
        self._away_said = False  # a catch-up said the computer played this seat
        self._ended = 0  # the last round whose end this screen showed
        self._match_told = False  # the match's end was said (a rejoin found it over)
        #: the current command to come back through this node (its address now)
        self.come_back: Callable[[], str] | None = None
        #: the runner looks lost peers up by mDNS too (not at a ``--no-mdns`` table)
        self.mdns = False
        self._seat = _Seat(self)
        self.ctl = Controller(self._seat, self, self.look,
                              help_tail=TABLE_HELP)
        self._rng = random.Random()

    def say(self, *lines: str) -> None:
        """Print lines (below an open prompt, if one is showing)."""
        if self._prompting:
            self._prompting = False
            self.term.say("")
        if self.look.ascii:  # the terminal spells out dashes and dots, not the tick
            lines = tuple(line.replace("✓", "ok") for line in lines)
        self.term.say(*lines)

    def _ask(self, prompt: str) -> None:
        """Show a prompt (the answer comes later, as a typed line)."""
        self.term.prompt(prompt)
        self._prompting = True

    # --- the controller's screen ------------------------------------------------------

    def said(self, kind: Kind, lines: Sequence[str]) -> None:
        """The controller's lines."""
        self.say(*lines)

    def board(self, board: Board) -> None:
        """The controller's table, with who sits where and the hands the table opened."""
        self.say(*board_lines(board, self.look, extras=self._extras()))

    def _extras(self) -> list[str]:
        table = self._seat.table
        if table is None:
            return []
        taken = table.taken_over - {self.me}
        # a seat taken over whose node this node does not miss is back (this screen may
        # not have seen it go: it started, or was rebuilt, after that)
        back = (frozenset(self.back) | {s for s in taken if s not in self.gone
                                        and s not in table.gone}) - self.left
        lines = [seats_line(self.names, self.me, computers=self.computers, gone=self.gone,
                            host=self.host, taken=taken, back=back)]
        rnd = table.round
        for s in sorted(taken):  # its key was rebuilt: every node sees the hand
            hand = rnd.hands[s] if rnd is not None else []
            if hand and all(c is not None for c in hand):
                lines.append(f"{self.names[s]}'s open hand: "
                             f"{self.look.cards([c for c in hand if c is not None])}")
        return lines

    # --- the runner's calls -----------------------------------------------------------

    def started(self, table: Table, config: TableConfig, *, log: Path | None,
                auto: Bot | None, rejoined: bool = False) -> None:
        """Who sits where, the rules, the timer, where the log goes (``rejoined``: back
        at a match in play)."""
        self._seat.table = table
        self.names = [s.name for s in config.seats]
        self.computers = {s.seat: s.computer for s in config.seats if s.computer}
        self.host = self.names[0]
        self.auto = auto
        if rejoined and table.match is not None and table.match.winner is not None:
            self._was_over(table.match, log)
            return
        people = len(config.seats) - len(self.computers)
        computers = len(self.computers)
        cast = f"{people} {'person' if people == 1 else 'people'}"
        if computers:
            cast += f" and {computers} computer player{'s' if computers != 1 else ''}"
        self.say(self.look.paint(f"Back at the table ({cast}); the game goes on." if rejoined
                                 else f"Everyone is connected ({cast}); the game begins.",
                                 "bold"))
        for s in config.seats:
            who = "you" if s.seat == self.me else (
                f"computer, plays like {s.computer}, run by {self.host}'s node"
                if s.computer else "connected")
            about = ""
            if s.computer:
                try:
                    about = ": " + PLAIN.say(registry.describe(s.computer))
                except MalformedInput:
                    about = ""
            self.say(f"  seat {s.seat}: {s.name} ({who}){about}")
        target = ("" if config.rules.countdown or config.rules.target is not None
                  else f", target {config.target}")
        self.say(f"Rules: {describe_rules(config.rules)}{target}. Each turn has "
                 f"{config.turn_timeout_s:g} seconds; then the computer plays it.")
        if log is not None:
            self.say(f"The signed log of this table is written to {log}")
        if auto is not None:
            self.say(f"The computer ({auto.name}) plays your seat.")
        if rejoined:  # the table's first events replay the round so far
            self._catching = _CatchUp(told=0, fresh=True)

    def _was_over(self, match: Match, log: Path | None) -> None:
        """A rejoin found the match over: say so and the result (the scores, who won),
        not that the game goes on; the replay of its last round is not told again."""
        self.say(self.look.paint(self._words().say(ScreenLine.MATCH_WAS_OVER), "bold"))
        self.say(*v.render_scores(match, self.names, self.look))
        self.say(*v.render_match_end(match, self.names, self.look, me=self.me))
        if log is not None:
            self.say(f"The signed log of this table is written to {log}")
        self._match_told = True
        self._ended = max((r.number for r in match.results), default=0)
        self.round_over = True
        self._catching = _CatchUp(told=0, fresh=True)

    def show(self, table: Table, events: Sequence[object], now: float) -> None:
        """Narrate the table's events in order."""
        self._seat.table = table
        self.tick(now)
        for event in events:
            if isinstance(event, tev.SeatAway) and event.code is tev.InfoCode.CUT_OFF:
                self._cut_off = True  # what comes back from the others is past
            if self._catching is not None and self._resent_in(table, event):
                continue
            if self._catching is not None and self._caught_up(table, event):
                continue
            seat = getattr(event, "seat", None)
            if isinstance(event, tev.SeatAway) and event.code in _HELD_WITH_DROP:
                text = said(event, self._words())
                if self.grace.add(event.seat, sentence(text)):
                    continue  # said with the drop, if it is not back in time
            elif isinstance(event, Note) and event.code is LinkCode.COME_BACK and (
                    event.params.get("seat") in self.grace.held):
                hint = event if self.come_back is None else Note(
                    event.code, {**event.params, "command": self.come_back()})
                self.grace.add(event.params["seat"], self._words().note(hint), last=True)
                continue
            elif (isinstance(seat, int) and not isinstance(event, tev.SeatBack)
                    and self._catching is None):
                self._say_held(self.grace.release(seat))  # news of it: the drop first
            if isinstance(event, tev.RoundStarted):
                self.round_number = event.number
                self._dealer = event.dealer
                self._to_play = None
                self._applied = []
                self.round_over = False
                self._away_said = False
                self.ctl.new_round()
                dealer = "you deal" if event.dealer == self.me else \
                    f"{self.name(event.dealer)} deals"
                self.say("", self.look.paint(f"Round {event.number}: {dealer}.", "bold"))
                if self.auto is not None and self._current(table):
                    # (a table already rounds further — events told after a drop — would
                    # show a later round's board under this round's name)
                    self.ctl.show_board(Redraw.START)
                    self.ctl.skip_narration()  # its "Last moves" are not narrated again
            elif isinstance(event, tev.Applied):
                self._applied.append(applied_line(event, self._words(), table.config.rules))
                self._narrate(table)
            elif isinstance(event, tev.RoundOver):
                view = table.view()
                if self._catching is not None:  # its moves are summarised, not told
                    self._away_summary()
                    self.ctl.skip_narration()
                elif (view is not None and view.dealer == event.result.dealer
                        and len(view.log) == len(self._applied)):
                    self._narrate(table)
                else:  # the table has moved on: tell the rest from the events
                    self.say(*self._applied[self.ctl.told_events:])
                self.round_over = True
                self._ended = max(self._ended, event.result.number)
                match = table.match
                lines = (v.render_round_end(event.result, self.names, match, self.look)
                         if match is not None else [])
                self.say("", *lines)
                reason = said(event.fault, self._words()) if event.fault is not None else ""
                self.say(self.look.paint(audit_line(event.audit_ok, reason),
                                         "green" if event.audit_ok else "red"))
            elif isinstance(event, tev.MatchOver) and self._match_told:
                continue  # said when this screen started (a rejoin found it over)
            elif isinstance(event, tev.MatchOver):
                match = table.match
                if match is not None and match.winner is not None:
                    self.say(*v.render_match_end(match, self.names, self.look, me=self.me))
                else:
                    self.say(f"{self.name(event.winner)} wins the match.")
            elif isinstance(event, tev.Fault):
                who = self.name(event.seat) if event.seat is not None else "a player"
                message = card_message(said(event, self._words()), self.look.card)
                who = "you" if event.seat == self.me else who
                self.say(self.look.paint(f"Fault ({who}): {message}", "red"))
            elif isinstance(event, tev.SeatBack):
                # the runner's presence line has said so, with how it came back; the
                # table counts the node back now: its person plays the seat again
                self._seat_back(event.seat)
            elif (isinstance(event, tev.Info) and event.code is tev.InfoCode.AWAY_TURNS
                    and self._away_said):
                self._away_said = False  # the catch-up said what the computer played
            elif isinstance(event, tev.Info):
                if event.code is tev.InfoCode.CUT_OFF:  # the drops it sums up come first
                    self._say_all_held()
                text = said(event, self._words())
                self.say(sentence(text))  # a sentence of its own
            elif isinstance(event, Note):
                if event.code is LinkCode.LEFT_TAKEN_OVER:  # (not back: gone for good)
                    self.left.add(event.params["seat"])
                    self.back.discard(event.params["seat"])
                if event.code is LinkCode.COME_BACK and self.come_back is not None:
                    event = Note(event.code, {**event.params, "command": self.come_back()})
                elif event.code is LinkCode.NOBODY_REACHABLE:  # say only what it tries
                    event = Note(event.code, {**event.params, "mdns": self.mdns})
                    self._say_all_held()  # the drops first
                elif event.code is LinkCode.REJOINED and table.match is not None:
                    # the rounds the rebuilt table holds (a replay that ends between two
                    # rounds shows the last one's end as its current part); whether the
                    # computer played this seat in the absence, or could not (no escrow,
                    # or two people: the game waited) — its seat is taken over now also
                    # when only its own restart handed its keys over
                    event = Note(event.code, {
                        **event.params, "rounds": len(table.match.results),
                        "taken": self.me in table.taken_over,
                        "played": table.away_turns, "waited": not _escrowed(table),
                        "over": table.finished})
                    self._away_said = bool(table.away_turns)
                line = self._words().note(event)
                self.say(self.look.paint(line, "red") if event.code in FAULTS else line)
                if event.code in CATCH_UP_FROM and self._catching is None:
                    self._catching = _CatchUp(told=len(self._applied))
                elif event.code in CATCH_UP_TO and self._catching is not None:
                    self._catching.done = True
                    self._catching.rebuilt = event.code is LinkCode.REJOINED
        if self._catching is not None and self._catching.done:
            self._end_catch_up(table, rebuilt=self._catching.rebuilt)
        self._say_to_play(table)

    # --- a replay of missed events --------------------------------------------------

    def _caught_up(self, table: Table, event: object) -> bool:
        """Take ``event`` of a replay in: True when it is handled here (a move counted
        for the summary, a round this screen announced already, a seat notice kept for
        the end), False when it is shown as usual."""
        catching = self._catching
        assert catching is not None
        if isinstance(event, tev.RoundStarted) and (event.number <= self._ended or (
                event.number == self.round_number and event.dealer == self._dealer)):
            self._applied = []  # the replay tells the round again from its start
            catching.moves.clear()
            return True
        if isinstance(event, tev.RoundStarted):
            catching.told = 0  # a round not told yet: its moves are all new
            return False
        if isinstance(event, tev.RoundOver) and event.result.number <= self._ended:
            catching.moves.clear()  # its end was shown (its moves were told then)
            self.ctl.skip_narration()
            return True
        if isinstance(event, tev.Applied):
            if len(self._applied) >= catching.told and not isinstance(event.action, Draw):
                catching.moves[event.seat] = catching.moves.get(event.seat, 0) + 1
            self._applied.append(applied_line(event, self._words(), table.config.rules))
            return True
        if isinstance(event, SEAT_NOTICES):
            catching.notices.append(event)
            return True
        return False

    def _resent_in(self, table: Table, event: object) -> bool:
        """After a plain drop: a seat back has resent everything it posted meanwhile (its
        :class:`~p2p8s.table.events.SeatBack`); once every seat back has, the catch-up is
        over. True when ``event`` is handled here."""
        catching = self._catching
        if catching is None or catching.resent is None or not isinstance(event, tev.SeatBack):
            return False
        catching.resent.discard(event.seat)
        self._seat_back(event.seat)
        if not catching.resent:
            self._end_catch_up(table, rebuilt=False)
        return True

    def _catch_up_resent(self, seat: int) -> None:
        """``seat`` is back after a drop that cut this node off (said so): the moves it
        resends, and those the table takes in with them, are past — summarised, not told
        as new — until its resent payloads are all in (its ``SeatBack``)."""
        if self._catching is None:
            self._catching = _CatchUp(told=len(self._applied), resent=set())
        if self._catching.resent is not None:
            self._catching.resent.add(seat)

    def _away_summary(self) -> None:
        """Say what the replayed moves were, in one line (none: nothing)."""
        catching = self._catching
        if catching is None or not catching.moves:
            return
        moves, catching.moves = catching.moves, {}
        turns = tuple((s, n) for s, n in sorted(moves.items()) if s != self.me)
        self._away_said = self._away_said or (bool(moves.get(self.me)) and not catching.fresh)
        self.say(self.look.paint(self._words().say(
            ScreenLine.WHILE_AWAY, turns=turns, mine=moves.get(self.me, 0),
            fresh=catching.fresh, number=self.round_number), "dim"))

    def _end_catch_up(self, table: Table, *, rebuilt: bool) -> None:
        """The table is current again: summarise the replay, count its moves as told,
        say the seat notices that still hold; after a rebuild the seats' presence is the
        rebuilt table's (this node's links were made anew: the lost connections said as
        they happened stand, those held meanwhile are no news)."""
        catching = self._catching
        if catching is None:
            return
        self._away_summary()
        self._catching = None
        self._cut_off = False
        self.ctl.skip_narration()
        if rebuilt:
            self.gone = {s: self.gone.get(s, "") for s in table.gone}
            self.back = set()
            for held in [s for s in self.grace.held if s not in table.gone]:
                # its connection ended while this node did not run (or was rebuilt):
                # the links are made anew, that drop is no news — nor its return
                self.grace.back(held)
                self._unsaid.add(held)
        for notice in catching.notices:
            seat = getattr(notice, "seat", None)
            if isinstance(notice, tev.SeatAway):  # (a peer the rebuilt table has not
                # reached yet is being dialled: said only if the game waits for it)
                holds = seat in (table.paused if seat == self.me or rebuilt else table.gone)
            else:
                holds = (isinstance(notice, tev.SeatTakenOver) and seat != self.me
                         and seat in table.taken_over and seat in table.gone)
            if holds:
                self.say(sentence(said(notice, self._words())))

    def _say_to_play(self, table: Table) -> None:
        """Say whose turn it is when it passed to another seat (once per change; this
        seat's own turn is its prompt), so a person sees the table move between turns."""
        view = table.view()
        if (view is None or self.round_over or not self._current(table)
                or self._catching is not None):  # (a replay's turns are past)
            return
        if view.turn != self._to_play and view.turn != self.me:
            self.say(self.look.paint(
                self._words().say(ScreenLine.TO_PLAY, seat=view.turn), "dim"))
        self._to_play = view.turn

    def presence(self, seat: int, name: str, *, connected: bool, reason: Note) -> None:
        """A node left, was lost, or came back (``reason`` says how). A lost connection
        is said only once the grace is over (:meth:`tick`), and not at all if it is
        back (reconnected, at the same address) by then."""
        line = presence_line(self._words(), seat, name, reason)
        now = self.clock()
        self.tick(now)
        if connected:
            self._seat_back(seat)  # (also one this screen never saw go: its seat, taken
            # over meanwhile, is played by its person again)
            unsaid = seat in self._unsaid
            self._unsaid.discard(seat)
            if (reason.code in _QUIET_RETURNS and not reason.params.get("moved")
                    and (self.grace.back(seat) or unsaid)):
                return  # its drop was not said: neither is its return
            self._say_held(self.grace.release(seat))  # (it restarted or moved: say both)
            self.say(line)
            table = self._seat.table
            if self._cut_off and reason.code is LinkCode.BACK and (
                    table is not None and seat in table.gone):  # (its SeatBack comes)
                self._catch_up_resent(seat)
        else:
            self.back.discard(seat)
            self.gone[seat] = _reason(reason)
            painted = self.look.paint(line, "yellow")
            if reason.code is LinkCode.GONE_LOST and self.grace.start(seat, now, painted):
                return
            self._say_held(self.grace.release(seat))
            self.say(painted)

    def tick(self, now: float) -> None:
        """Say the held lines of drops whose grace is over at ``now`` (the runner's
        clock; the terminal calls it now and then) — not during a catch-up: a drop of
        while this node did not run is said, if still true, once it is over."""
        if self._catching is None:
            self._say_held(self.grace.due(now))

    def _say_held(self, lines: list[str]) -> None:
        if lines:
            self.say(*lines)

    def _say_all_held(self) -> None:
        """Say every drop still held, its grace over or not."""
        self._say_held(self.grace.due(float("inf")))

    def _seat_back(self, seat: int) -> None:
        """``seat``'s node is back: not gone, and a seat of it taken over is said to be
        played by its person again (``seats_line``'s ``back``)."""
        self.gone.pop(seat, None)
        self.left.discard(seat)
        self.back.add(seat)

    def turn(self, table: Table, now: float) -> None:
        """A new decision: what happened, the table again, then the prompt with the
        seconds left."""
        self._seat.table = table
        self.ctl.asking = None
        if self._catching is not None:
            self._end_catch_up(table, rebuilt=False)
        if self._current(table):
            self.ctl.refresh()
        self._prompt(table, now)

    def warn(self, table: Table, seconds_left: float) -> None:
        """The turn timer is nearly out."""
        self.say(self.look.paint(f"{round(seconds_left)} seconds left — then the computer "
                                 "plays this turn for you.", "yellow"))

    def typed(self, table: Table, line: str, now: float) -> Typed:
        """Turn a typed line into an action, a request to leave, or an answer on screen."""
        self._seat.table = table
        self._prompting = False  # the person pressed Enter: the cursor is on a new line
        self.tick(now)
        if self.term.echo:
            self.term.say(shorten(line.rstrip("\r\n")))  # piped input is echoed, as in solo
        intent = self.ctl.typed(line)
        if isinstance(intent, Leave):
            return runner.Leave()
        if isinstance(intent, AskHint):
            return self._think_hint(intent)
        if isinstance(intent, Act):
            return intent.action
        self._prompt(table, now)
        return None

    def finished(self, table: Table, why: Note) -> None:
        """The runner stops (drops still held are said first)."""
        self._say_all_held()
        if line := self._words().note(why):
            self.say(line)

    # --- drawing -------------------------------------------------------------------

    def name(self, seat: int) -> str:
        """``You`` for this seat, else the seat's name."""
        if seat == self.me:
            return "You"
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"

    def _prompt(self, table: Table, now: float) -> None:
        prompt = self.ctl.prompt()
        if prompt is None:
            return
        deadline = table.deadline if not prompt.suit else None
        left = f" [{max(0, round(deadline - now))} s left]" if deadline is not None else ""
        self._ask(f"{prompt.text}{left}: ")

    def _current(self, table: Table) -> bool:
        """True when the table's view is of the round being narrated (events come in
        batches: the table may already be a round further than the events told)."""
        view = table.view()
        return (not self.round_over and view is not None and view.dealer == self._dealer
                and len(view.log) >= len(self._applied))

    def _narrate(self, table: Table) -> None:
        """Tell the turns completed since the last call, from this seat's view."""
        if self._current(table):
            self.ctl.narrate()

    def _words(self) -> Speaker:
        """Who the table's events are said to: the names, this seat, this look."""
        return self.ctl.speaker

    def _think_hint(self, ask: AskHint) -> Think[Hint]:
        """The expert's hint, thought out off the loop on a snapshot (the view, the legal
        actions, the names and an RNG of its own), then said if the decision still stands."""
        rng = random.Random(self._rng.getrandbits(64))
        view, legal = ask.view, list(ask.legal)

        def said(h: Hint, now: float) -> Typed:
            self.ctl.hint_ready(h, ask.asked)
            if self._seat.table is not None:
                self._prompt(self._seat.table, now)
            return None

        return Think(work=lambda: hint(view, legal, rng), then=said)
