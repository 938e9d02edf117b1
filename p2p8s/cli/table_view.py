"""The friends' table in the terminal: the solo client's rendering plus seats and timer.

:class:`TableScreen` is the :class:`~p2p8s.net.runner.Frontend` of ``p2p8s host`` and
``p2p8s join``. It draws with :mod:`p2p8s.cli.view` exactly as ``p2p8s play`` does
(table, numbered hand, one line per turn, open hands and the match table at round end)
and adds what a table of people needs: who sits where and who is connected, the seconds
left on the 30-second turn timer at the prompt, a warning line when 10 seconds remain,
and the audit verdict of every round ("audit: every card checked ✓" or the cheater
named). Typed lines are read as the solo client reads them (:mod:`p2p8s.cli.moves`); it
never reads input itself. A hint is thought out off the event loop: :meth:`typed` hands
the runner a :class:`~p2p8s.net.runner.Think` and says the hint when it is done.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

from p2p8s.bots import registry
from p2p8s.bots.base import Bot, View
from p2p8s.bots.hints import Hint, hint
from p2p8s.cards import Card, Suit
from p2p8s.cli import view as v
from p2p8s.cli.moves import (
    CANCEL,
    NOTHING_TO_DECIDE,
    SUIT_PROMPT,
    Command,
    NeedSuit,
    card_message,
    drew_line,
    hint_line,
    move_prompt,
    read_move,
    read_suit,
    sentence,
    shorten,
    suit_retry,
    word_of,
)
from p2p8s.cli.terminal import Terminal
from p2p8s.cli.words import Speaker
from p2p8s.cli.words.runner import FAULTS, presence_line
from p2p8s.cli.words.runner import reason as _reason
from p2p8s.coach import Coach
from p2p8s.engine import Action, Draw, Play
from p2p8s.errors import IllegalAction, MalformedInput
from p2p8s.net.runner import Leave, Think, Typed
from p2p8s.table import Table, TableConfig
from p2p8s.table import events as tev
from p2p8s.table.linkout import Note

#: What the audit line says when every card of the round checked out.
AUDIT_OK = "audit: every card checked ✓"

TABLE_HELP = (
    "  At this table: each turn has 30 seconds, then the computer plays it for you.",
    "  quit     leave the table (the computer plays your seat)",
)


def seats_line(names: Sequence[str], me: int, *, computers: dict[int, str],
               gone: dict[int, str], host: str, taken: frozenset[int] = frozenset()) -> str:
    """Who sits where and who is connected: ``Seats: Ann (you) · Bob · Hanna (computer)``;
    ``taken``: seats the computer plays for a player whose node went (hand open)."""
    parts = []
    for s, name in enumerate(names):
        if s == me:
            parts.append(f"{name} (you)")
        elif s in computers:
            parts.append(f"{name} (computer, on {host}'s node)")
        elif s in taken:
            parts.append(f"{name} ({'gone' if s in gone else 'back'}; the computer plays, "
                         "hand open)")
        elif s in gone:
            parts.append(f"{name} (gone)")
        else:
            parts.append(f"{name} (connected)")
    return "Seats: " + " · ".join(parts)


def audit_line(ok: bool, message: str) -> str:
    """The round's audit verdict for people."""
    if ok:
        return AUDIT_OK
    reason = message.removeprefix("audit failed: ")
    return f"audit FAILED — {reason}"


class TableScreen:
    """Draws a running table for the person at seat ``me`` (a runner ``Frontend``)."""

    def __init__(self, term: Terminal, *, me: int) -> None:
        self.term = term
        self.look = term.look
        self.me = me
        self.names: list[str] = []
        self.computers: dict[int, str] = {}
        self.gone: dict[int, str] = {}
        self.host = ""
        self.auto: Bot | None = None
        self._round = 0
        self._dealer = -1
        self._prompting = False
        self._shown = 0
        self._covered = 0
        self._applied: list[str] = []
        self._over = False
        self._suit_for: list[Card] | None = None
        self._explainer = Coach(card=self.look.card)
        self._rng = random.Random()
        self.words = Speaker(me=me, look=self.look)

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

    # --- the runner's calls -----------------------------------------------------------

    def started(self, table: Table, config: TableConfig, *, log: Path | None,
                auto: Bot | None, rejoined: bool = False) -> None:
        """Who sits where, the rules, the timer, where the log goes (``rejoined``: back
        at a match in play)."""
        self.names = [s.name for s in config.seats]
        self.words = Speaker(names=self.names, me=self.me, look=self.look)
        self.computers = {s.seat: s.computer for s in config.seats if s.computer}
        self.host = self.names[0]
        self.auto = auto
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
                    about = ": " + registry.describe(s.computer)
                except MalformedInput:
                    about = ""
            self.say(f"  seat {s.seat}: {s.name} ({who}){about}")
        target = ("" if config.rules.countdown or config.rules.target is not None
                  else f", target {config.target}")
        self.say(f"Rules: {config.rules.describe()}{target}. Each turn has "
                 f"{config.turn_timeout_s:g} seconds; then the computer plays it.")
        if log is not None:
            self.say(f"The signed log of this table is written to {log}")
        if auto is not None:
            self.say(f"The computer ({auto.name}) plays your seat.")

    def show(self, table: Table, events: Sequence[object], now: float) -> None:
        """Narrate the table's events in order."""
        for event in events:
            if isinstance(event, tev.RoundStarted):
                self._round = event.number
                self._dealer = event.dealer
                self._shown = self._covered = 0
                self._applied = []
                self._over = False
                dealer = "you deal" if event.dealer == self.me else \
                    f"{self._name(event.dealer)} deals"
                self.say("", self.look.paint(f"Round {event.number}: {dealer}.", "bold"))
                if self.auto is not None:
                    self._show_table(table)
                    view = table.view()  # its "Last moves" are not narrated again
                    turns = v.group_turns(view.log) if view is not None else []
                    self._shown = len(turns)
                    self._covered = sum(len(t) for t in turns)
            elif isinstance(event, tev.Applied):
                self._applied.append(event.text)
                rnd = table.round
                self._narrate(table, ended=rnd is not None and rnd.over, fallback=event.text)
            elif isinstance(event, tev.RoundOver):
                view = table.view()
                if (view is not None and view.dealer == event.result.dealer
                        and len(view.log) == len(self._applied)):
                    self._narrate(table, ended=True, fallback="")
                else:  # the table has moved on: tell the rest from the events
                    self.say(*self._applied[self._covered:])
                self._over = True
                match = table.match
                lines = (v.render_round_end(event.result, self.names, match, self.look)
                         if match is not None else [])
                self.say("", *lines)
                self.say(self.look.paint(audit_line(event.audit_ok, event.audit_message),
                                         "green" if event.audit_ok else "red"))
            elif isinstance(event, tev.MatchOver):
                match = table.match
                if match is not None and match.winner is not None:
                    self.say(*v.render_match_end(match, self.names, self.look, me=self.me))
                else:
                    self.say(f"{self._name(event.winner)} wins the match.")
            elif isinstance(event, tev.Fault):
                who = self._name(event.seat) if event.seat is not None else "a player"
                message = card_message(event.message, self.look.card)
                who = "you" if event.seat == self.me else who
                self.say(self.look.paint(f"Fault ({who}): {message}", "red"))
            elif isinstance(event, tev.SeatBack):
                pass  # the runner's presence line has said so, with how it came back
            elif isinstance(event, tev.Info):
                self.say(event.text[:1].upper() + event.text[1:])  # a sentence of its own
            elif isinstance(event, Note):
                said = self.words.say(event.code, **event.params)
                self.say(self.look.paint(said, "red") if event.code in FAULTS else said)

    def presence(self, seat: int, name: str, *, connected: bool, reason: Note) -> None:
        """A node left, was lost, or came back (``reason`` says how)."""
        line = presence_line(self.words, seat, name, reason)
        if connected:
            self.gone.pop(seat, None)
            self.say(line)
        else:
            self.gone[seat] = _reason(reason)
            self.say(self.look.paint(line, "yellow"))

    def turn(self, table: Table, now: float) -> None:
        """Show the table and the hand, then the prompt with the seconds left."""
        self._suit_for = None
        self._narrate(table, ended=False, fallback="")
        view = table.view()
        if view is not None and view.drawn and view.last_drawn is not None:
            # the same turn goes on after a draw: the drawn card and the hand, as in solo
            self.say(drew_line(view.last_drawn, self.look),
                     *v.render_hand(view.hand, v.playable_cards(view, table.legal_actions()),
                                    self.look))
        else:
            self.say("")
            self._show_table(table)
        self._prompt(table, now)

    def warn(self, table: Table, seconds_left: float) -> None:
        """The turn timer is nearly out."""
        self.say(self.look.paint(f"{round(seconds_left)} seconds left — then the computer "
                                 "plays this turn for you.", "yellow"))

    def typed(self, table: Table, line: str, now: float) -> Typed:
        """Turn a typed line into an action, a request to leave, or an answer on screen."""
        self._prompting = False  # the person pressed Enter: the cursor is on a new line
        if self.term.echo:
            self.term.say(shorten(line.rstrip("\r\n")))  # piped input is echoed, as in solo
        view = table.view()
        if self._suit_for is not None:
            return self._suit_answer(table, line, now)
        word = line.strip()
        command = word_of(word)
        if isinstance(command, Command) or view is None or not table.my_turn:
            if isinstance(command, Command):
                answer = self._command(table, command, view)
                if answer is None:
                    self._prompt(table, now)
                return answer
            if not word:
                return None
            if view is None or self._over:
                self.say("The cards are being shuffled and dealt; wait a moment.")
            elif view.turn == self.me:
                self.say("One moment: the other nodes are still handling your move.")
            else:
                self.say(f"It is {self._name(view.turn)}'s turn; wait for yours "
                         "(help lists the commands).")
            return None
        try:
            action = self._read(table, view, line)
        except (MalformedInput, IllegalAction) as exc:
            self.say(sentence(card_message(str(exc), self.look.card)))
            self._prompt(table, now)
            return None
        if action is None:
            if self._suit_for is not None:
                self._ask_suit()
            else:
                self._prompt(table, now)
        return action

    def finished(self, table: Table, why: Note) -> None:
        """The runner stops."""
        if said := self.words.say(why.code, **why.params):
            self.say(said)

    # --- drawing -------------------------------------------------------------------

    def _name(self, seat: int) -> str:
        if seat == self.me:
            return "You"
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"

    def _show_table(self, table: Table) -> None:
        view = table.view()
        if view is None:
            return
        lines = v.render_table(view, self.names, self.look, round_number=self._round)
        taken = table.taken_over - {self.me}
        lines.insert(1, seats_line(self.names, self.me, computers=self.computers,
                                   gone=self.gone, host=self.host, taken=taken))
        rnd = table.round
        for s in sorted(taken):  # its key was rebuilt: every node sees the hand
            hand = rnd.hands[s] if rnd is not None else []
            if hand and all(c is not None for c in hand):
                lines.insert(2, f"{self.names[s]}'s open hand: "
                                f"{self.look.cards([c for c in hand if c is not None])}")
        playable = (v.playable_cards(view, table.legal_actions())
                    if table.my_turn else set())
        self.say(*lines, *v.render_hand(view.hand, playable, self.look))

    def _prompt(self, table: Table, now: float) -> None:
        view = table.view()
        if view is None or not table.my_turn:
            return
        deadline = table.deadline
        left = f" [{max(0, round(deadline - now))} s left]" if deadline is not None else ""
        self._ask(f"{move_prompt(view, table.legal_actions())}{left}: ")

    def _narrate(self, table: Table, *, ended: bool, fallback: str) -> None:
        """Print the turns completed since the last call, from this seat's view."""
        if self._over:
            return
        view = table.view()
        if view is None:
            if fallback:
                self.say(fallback)
                self._covered = len(self._applied)
            return
        if view.dealer != self._dealer or len(view.log) < len(self._applied):
            return  # the view is already a later round's: RoundOver tells the rest
        turns = v.group_turns(view.log)
        done = len(turns)
        if turns and not ended and isinstance(turns[-1][-1].action, Draw):
            done -= 1  # the turn is still going on (only draws so far)
        if done <= self._shown:
            return
        lines = v.log_lines(view, self.names, self.look, ended=ended)
        for text in lines[self._shown:done]:
            self.say(text)
        self._shown = done
        self._covered = sum(len(t) for t in turns[:done])

    # --- reading -------------------------------------------------------------------

    def _read(self, table: Table, view: View, line: str) -> Action | None:
        """A typed move as a legal action (None: a suit is asked for first).

        Raises MalformedInput / IllegalAction with a one-line message.
        """
        rnd = table.round
        if rnd is None:
            raise IllegalAction("the cards are not dealt yet")
        move = read_move(line, rnd, view, coach=self._explainer)
        assert not isinstance(move, Command)  # typed() runs the commands
        if isinstance(move, NeedSuit):
            self._suit_for = list(move.cards)
            return None
        return move

    def _suit_answer(self, table: Table, line: str, now: float) -> Typed:
        cards = self._suit_for
        suit = read_suit(line)
        if suit is CANCEL:
            self._suit_for = None
            self._prompt(table, now)
            return None
        if not isinstance(suit, Suit) or cards is None:
            self.say(suit_retry(line))
            self._ask_suit()
            return None
        self._suit_for = None
        return Play(tuple(cards), suit)

    def _ask_suit(self) -> None:
        self._ask(SUIT_PROMPT)

    def _command(self, table: Table, cmd: Command, view: View | None) -> Typed:
        if cmd.name == "quit":
            return Leave()
        if cmd.name == "help":
            self.say(*v.HELP_LINES[:-1], *TABLE_HELP)
        elif cmd.name == "rules" and view is not None:
            self.say(*v.rules_lines(view.rules, view.players))
        elif cmd.name == "score" and table.match is not None:
            self.say(*v.render_scores(table.match, self.names, self.look))
        elif cmd.name == "log" and view is not None:
            self.say(*v.render_round_log(view, self.names, self.look, number=self._round,
                                         ended=self._over))
        elif cmd.name == "hint":
            legal = table.legal_actions()
            if view is None or not legal:
                self.say(NOTHING_TO_DECIDE)
            else:
                return self._think_hint(table, view, legal)
        return None

    def _think_hint(self, table: Table, view: View, legal: list[Action]) -> Think[Hint]:
        """The expert's hint, thought out off the loop on a snapshot (the view, the legal
        actions, the names and an RNG of its own), then said if the decision still stands."""
        rng = random.Random(self._rng.getrandbits(64))
        names = tuple(self.names)
        asked = _decision(table, view)

        def said(h: Hint, now: float) -> Typed:
            current = table.view()
            if current is not None and table.my_turn and _decision(table, current) == asked:
                self.say(hint_line(h, current.hand, self.look))
            else:
                self.say("The hint came too late: that decision is over.")
            self._prompt(table, now)
            return None

        return Think(work=lambda: hint(view, legal, rng, names=names), then=said)


def _decision(table: Table, view: View) -> tuple[int, int]:
    """What tells one decision from the next (a hint is for one of them): the round and
    the actions applied in it so far."""
    return (table.round_number, len(view.log))
