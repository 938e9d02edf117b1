"""``p2p8s play``: a solo match in the terminal, saved after every action.

The game is :class:`p2p8s.solo.SoloSession` (no I/O); what is typed and said goes
through :class:`p2p8s.cli.controller.Controller`, the same as at the friends' table. This
module is the terminal loop around them: it paces the computer seats, saves after every
action (:mod:`p2p8s.store.saves`) and remembers the options
(:mod:`p2p8s.store.settings`). Expected problems raise :class:`p2p8s.errors.Error`
subclasses, which the command group prints without a traceback.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import click

from p2p8s.bots import registry
from p2p8s.bots.base import Bot, View
from p2p8s.bots.hints import hint
from p2p8s.cli import view as v
from p2p8s.cli.controller import Act, AskHint, Board, Controller, Kind, Leave, Redraw, board_lines
from p2p8s.cli.errors import CliCode
from p2p8s.cli.house import HouseChoice, house_choice, house_options
from p2p8s.cli.moves import NOTHING_TO_DECIDE, CardChoice, Command, parse_input, word_of
from p2p8s.cli.terminal import InputClosed, Terminal
from p2p8s.cli.words import PLAIN
from p2p8s.cli.words.rules import describe_rules
from p2p8s.cli.words.store import describe_os_error
from p2p8s.coach import Coach
from p2p8s.engine import Action, Round
from p2p8s.errors import LocalError, MalformedInput
from p2p8s.match import Match
from p2p8s.solo import HUMAN, Phase, SoloSession, SoloSettings, get_bot
from p2p8s.store import saves
from p2p8s.store.paths import settings_path
from p2p8s.store.settings import SINGLES, PlaySettings, SettingsFile, load_settings

#: The computer player that takes your seat with a bare ``--auto``.
AUTO_DEFAULT = "expert"


class Quit(LocalError):
    """The player typed quit (the match is saved)."""


# --------------------------------------------------------------------------- the loop


class SoloSource:
    """The solo session as the controller reads it (:class:`~p2p8s.cli.controller.Source`)."""

    def __init__(self, session: SoloSession) -> None:
        self.session = session
        self.me = HUMAN

    @property
    def names(self) -> Sequence[str]:
        return self.session.names

    @property
    def number(self) -> int:
        return self.session.round_number

    def view(self) -> View | None:
        return self.session.view(HUMAN)

    def round(self) -> Round | None:
        return self.session.round

    def legal(self) -> list[Action]:
        return self.session.legal()

    def my_turn(self) -> bool:
        s = self.session
        return s.phase is Phase.TURN and s.round.turn == HUMAN

    def match(self) -> Match | None:
        return self.session.match

    def waiting(self) -> str:
        return NOTHING_TO_DECIDE


class SoloGame:
    """Runs one solo match in a :class:`Terminal` until it ends or the input does.

    The game is the :class:`~p2p8s.solo.SoloSession` (computer turns are
    :meth:`~p2p8s.solo.SoloSession.computer_turn`); what is typed and said goes through
    the :class:`~p2p8s.cli.controller.Controller`; this class paces the computer, saves
    after every action and says what only a solo match says (the welcome, the rounds).
    """

    def __init__(self, term: Terminal, session: SoloSession, settings: SettingsFile, *,
                 auto: Bot | None = None, ui: dict[str, Any] | None = None) -> None:
        self.term = term
        self.look = term.look
        self.session = session
        self.settings = settings
        self.auto = auto
        self.bots = session.bots()
        ui = ui or {}
        coaching = not settings.coached and auto is None
        seen = ui.get("coach_seen", [])
        coach = (Coach(seen if isinstance(seen, list) else [])
                 if coaching else None)
        self.ctl = Controller(SoloSource(session), self, self.look, coach=coach)
        self.ctl.skip_narration()

    @property
    def coach(self) -> Coach | None:
        """The coach of the first round ever (None after it)."""
        return self.ctl.coach

    # ------------------------------------------------------------------ the screen

    def save(self) -> None:
        """Write the save file (after every action)."""
        ui = {"coach_seen": sorted(self.coach.seen)} if self.coach else {}
        saves.save_match(self.session, ui)

    def say(self, *lines: str) -> None:
        """Print lines."""
        self.term.say(*lines)

    def said(self, kind: Kind, lines: Sequence[str]) -> None:
        """The controller's lines (a coach's remark is remembered at once)."""
        self.say(*lines)
        if kind is Kind.COACH:
            self.save()  # remember what was explained

    def board(self, board: Board) -> None:
        """The controller's table."""
        self.say(*board_lines(board, self.look))

    # ------------------------------------------------------------------ screens

    def welcome(self, *, resumed: bool) -> None:
        """The first screen: who you play against and how to play, in two lines."""
        s = self.session
        others = list(s.names[1:])
        against = others[0] if len(others) == 1 else ", ".join(others[:-1]) + " and " + others[-1]
        if resumed:
            self.say(self.look.paint(
                f"Welcome back to p2p8s! Your match against {against} continues "
                f"(round {s.round_number}).", "bold"))
        else:
            self.say(self.look.paint(
                f"Welcome to p2p8s — Crazy Eights! You play against {against}.", "bold"),
                "How to play: match the top card's suit or rank (8s are wild) and be the "
                "first to empty your hand.",
                "Type a card's number to play it, d to draw, hint for advice, help for all "
                "commands.")
            for seat in range(1, len(s.names)):
                try:
                    about = PLAIN.say(registry.describe(s.styles[seat]))
                except MalformedInput:
                    about = ""
                same = s.names[seat] == s.styles[seat]
                style = "" if same else f" (plays like {s.styles[seat]})"
                self.say(f"  {s.names[seat]}{style}: {about}".rstrip())
            self.say(f"Rules: {describe_rules(s.settings.rules)}. Seed {s.seed}; saved after "
                     "every move.")
        if self.auto is not None:
            self.say(f"The computer ({self.auto.name}) plays your seat.")
        if self.coach is not None and not resumed:
            self.say("Coach: this is your first round, so I'll explain each card the first "
                     "time it matters.")
        if not resumed:
            self.say("")

    def round_start(self) -> None:
        """Announce a new round (with the table, when the computer plays your seat)."""
        s = self.session
        r = s.round
        deals = "you deal" if r.dealer == HUMAN else f"{s.names[r.dealer]} deals"
        first = "you play" if r.turn == HUMAN else f"{s.names[r.turn]} plays"
        self.say(self.look.paint(f"Round {s.round_number}: {deals}, {first} first.", "bold"))
        if self.auto is not None:
            self.ctl.show_board(Redraw.START)

    # ------------------------------------------------------------------ the match

    def run(self) -> None:
        """Play until the match is over. Raises InputClosed or Quit (match saved)."""
        s = self.session
        if s.move_number == 0 and s.phase is Phase.TURN:
            self.round_start()
        while True:
            phase = s.phase
            if phase is Phase.MATCH_OVER:
                self.round_over()
                self.say(*v.render_match_end(s.match, s.names, self.look, me=HUMAN))
                return
            if phase is Phase.ROUND_OVER:
                self.round_over()
                if self.auto is None:
                    self.between_rounds()
                s.next_round()
                self.ctl.new_round()
                self.save()
                self.say("")
                self.round_start()
                continue
            if s.round.turn != HUMAN or self.auto is not None:
                self.computer_turn()
            else:
                self.human_turn()

    def computer_turn(self) -> None:
        """Let the computer play the seat on turn (a whole turn), then tell it."""
        s = self.session
        bot = self.auto if s.round.turn == HUMAN and self.auto is not None else \
            self.bots[s.round.turn]
        for _ in s.computer_turn(bot):
            self.save()
        self.ctl.narrate()
        self.term.pause()

    def between_rounds(self) -> None:
        """Wait for Enter before the next deal; other commands work meanwhile."""
        s = self.session
        while True:
            answer = self.term.ask(f"Press Enter to deal round {s.round_number + 1} "
                                   "(or score, quit): ").strip().lower()
            if not answer:
                return
            word = word_of(answer)
            if isinstance(word, Command) and word.name != "hint":
                if isinstance(self.ctl.command(word), Leave):
                    raise Quit(CliCode.QUIT)
            else:
                self.say("Just press Enter for the next round (or type quit).")

    def round_over(self) -> None:
        """Every hand face up, the round's points and the match table."""
        s = self.session
        self.ctl.narrate()
        result = s.match.results[-1]
        self.say("", *v.render_round_end(result, s.names, s.match, self.look))
        if self.coach is not None and not self.settings.coached:
            self.settings.coached = True
            _remember(self.settings, self.term)
            self.say("Coach: that was your first round — from now on you're on your own. "
                     "Type hint whenever you want a second opinion.")
            self.ctl.coach = None

    # ------------------------------------------------------------------ your turn

    def human_turn(self) -> None:
        """Your decisions until your turn ends: before every prompt the controller tells
        what changed and shows the table again when the decision is a new one."""
        s = self.session
        while s.phase is Phase.TURN and s.round.turn == HUMAN:
            self.ctl.refresh()
            prompt = self.ctl.prompt()
            assert prompt is not None  # your decision: there is always a prompt
            intent = self.ctl.typed(self.term.ask(prompt.text + ": "))
            if isinstance(intent, Leave):
                raise Quit(CliCode.QUIT)
            if isinstance(intent, AskHint):
                self.ctl.hint_ready(hint(intent.view, intent.legal, s.rng("hint")),
                                    intent.asked)
            elif isinstance(intent, Act):
                s.apply(intent.action)
                self.save()
        self.ctl.narrate()


# --------------------------------------------------------------------------- the command


def _new_seed() -> int:
    return random.SystemRandom().randrange(1, 10**9)


def _solo_settings(play: PlaySettings) -> SoloSettings:
    """The match's settings from the remembered options; raises click.UsageError for
    house rules that contradict the preset or cannot be dealt."""
    choice = HouseChoice(**{name: getattr(play, name) for name in SINGLES})
    return SoloSettings(opponents=play.opponents,
                        rules=choice.ruleset(base=play.preset, players=play.opponents + 1))


def _load_or_start(term: Terminal, play: PlaySettings, *, new: bool, seed: int | None,
                   asked: bool) -> tuple[SoloSession, dict[str, Any], bool]:
    """Resume the saved match (unless ``new``) or start one; returns (session, ui,
    resumed). A save that cannot be used is moved aside with a message."""
    if not new:
        try:
            loaded = saves.load_match()
        except saves.CorruptSave as exc:
            said = PLAIN.error(exc)
            try:
                moved = saves.set_aside(exc.path)
            except OSError as err:
                raise LocalError(CliCode.SAVE_STUCK, cause=exc, problem=str(err),
                                 path=exc.path) from None
            term.say(f"p2p8s: {said}.", f"It was moved to {moved}; starting a new match.", "")
            loaded = None
        if loaded is not None:
            if asked:
                term.say("A saved match is in progress and keeps its own settings; "
                         "use --new to start over with the new ones.")
            return loaded.session, loaded.ui, True
    session = SoloSession.new(_solo_settings(play), seed if seed is not None else _new_seed())
    return session, {}, False


def _resolve_auto(name: str | None) -> Bot | None:
    if name is None:
        return None
    return get_bot(name or AUTO_DEFAULT)


@click.command("play")
@click.option("--opponents", type=click.IntRange(1, 6), metavar="N",
              help="Computer opponents, 1-6 (default 3).")
@house_options(play=True)
@click.option("--seed", type=int, metavar="S", help="Seed of a new match (same seed, same deals).")
@click.option("--new", "new", is_flag=True, help="Start a new match even if one is saved.")
@click.option("--auto", is_flag=False, flag_value="", default=None, metavar="[PERSONALITY]",
              help="Let the computer play your seat to the end (default: the expert).")
@click.option("--ascii/--unicode", "ascii_", default=None,
              help="Write suits as letters C D H S instead of ♣ ♦ ♥ ♠.")
def play(opponents: int | None, seed: int | None, new: bool, auto: str | None,
         ascii_: bool | None, **house: Any) -> None:
    """Play a solo match against computer opponents (resumes a saved match).

    Your options are remembered for the next match; the match is saved after every
    move. Colour is off when NO_COLOR is set or the output is not a terminal.
    """
    settings = load_settings()
    asked = any(x is not None for x in (opponents, seed, *house.values()))
    target_given = house["target"] is not None
    if house["countdown"]:
        house["classic"] = None  # --countdown wins over --classic/--table (as it always did)
    standard = house["countdown"] is False
    choice = house_choice(house)
    preset = choice.chosen_preset()
    if preset is None and settings.play.countdown and (standard or target_given):
        # --standard or --target name a standard match: a remembered countdown (which
        # has no target) would contradict them
        preset = "table"
    play_settings = settings.play.merged(
        opponents=opponents, preset=preset, ascii=ascii_,
        **{name: getattr(choice, name) for name in SINGLES if name != "target"})
    if target_given:
        play_settings = replace(play_settings, target=choice.target)
    _solo_settings(play_settings)  # validate before remembering
    term = Terminal(ascii=play_settings.ascii)
    if settings.notice:
        term.say(f"p2p8s: {PLAIN.error(settings.notice)}.")
    settings.play = play_settings
    _remember(settings, term)
    bot = _resolve_auto(auto)
    session, ui, resumed = _load_or_start(term, play_settings, new=new, seed=seed, asked=asked)
    try:
        while True:
            game = SoloGame(term, session, settings, auto=bot, ui=ui)
            game.welcome(resumed=resumed)
            game.save()
            game.run()
            saves.delete_match()
            if bot is not None or not _again(term):
                return
            session = SoloSession.new(session.settings, _new_seed())
            ui, resumed = {}, False
    except InputClosed:
        term.say("Input ended — your match is saved. Run `p2p8s play` to continue.")
    except Quit:
        term.say("Saved. Run `p2p8s play` to continue where you left off.")
    except KeyboardInterrupt:
        term.say("", "Interrupted — your match is saved up to the last move. "
                 "Run `p2p8s play` to continue.")
        sys.exit(130)


def _remember(settings: SettingsFile, term: Terminal) -> None:
    """Write the settings file; a failure is reported, not fatal."""
    try:
        settings.save()
    except OSError as exc:
        term.say(f"p2p8s: cannot write the settings file {settings_path()} "
                 f"({describe_os_error(exc)}); your options will not be remembered — "
                 "playing on.")


def _again(term: Terminal) -> bool:
    try:
        answer = term.ask("Play again with the same settings? [y/N] ")
    except InputClosed:
        return False
    return answer.strip().lower() in ("y", "yes", "j", "ja")


COMMANDS = [play]

# CardChoice, Command and parse_input live in p2p8s.cli.moves; named here for old callers.
__all__ = ["COMMANDS", "CardChoice", "Command", "Quit", "SoloGame", "parse_input", "play"]
