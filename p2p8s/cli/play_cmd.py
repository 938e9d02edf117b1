"""``p2p8s play``: a solo match in the terminal, saved after every action.

The game logic is :class:`p2p8s.solo.SoloSession`; this module is the terminal loop:
it shows the table, reads commands, lets the computer seats move (paced), saves
after every action (:mod:`p2p8s.store.saves`) and remembers the options
(:mod:`p2p8s.store.settings`). Expected problems raise :class:`p2p8s.errors.Error`
subclasses, which the command group prints without a traceback.
"""

from __future__ import annotations

import random
import sys
from dataclasses import replace
from typing import Any

import click

from p2p8s.bots import registry
from p2p8s.bots.base import Bot
from p2p8s.bots.hints import hint
from p2p8s.cards import Suit
from p2p8s.cli import view as v
from p2p8s.cli.moves import (
    CANCEL,
    NOTHING_TO_DECIDE,
    SUIT_PROMPT,
    CardChoice,
    Command,
    NeedSuit,
    card_message,
    drew_line,
    hint_line,
    move_prompt,
    parse_input,
    read_move,
    read_suit,
    sentence,
    suit_retry,
    word_of,
)
from p2p8s.cli.terminal import InputClosed, Terminal
from p2p8s.cli.words import PLAIN
from p2p8s.cli.words.store import describe_os_error
from p2p8s.coach import Coach
from p2p8s.engine import Action, Draw, Play
from p2p8s.errors import IllegalAction, LocalError, MalformedInput
from p2p8s.solo import HUMAN, Phase, SoloSession, SoloSettings, get_bot, make_rules
from p2p8s.store import saves
from p2p8s.store.paths import settings_path
from p2p8s.store.settings import PlaySettings, SettingsFile, load_settings

#: The computer player that takes your seat with a bare ``--auto``.
AUTO_DEFAULT = "expert"


class Quit(LocalError):
    """The player typed quit (the match is saved)."""


# --------------------------------------------------------------------------- the loop


class SoloGame:
    """Runs one solo match in a :class:`Terminal` until it ends or the input does."""

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
        self.coach: Coach | None = (
            Coach(seen if isinstance(seen, list) else [], card=self.look.card)
            if coaching else None)
        self._explainer = Coach(card=self.look.card)
        self._shown_turns = len(v.group_turns(session.round.log))

    # ------------------------------------------------------------------ saving

    def save(self) -> None:
        """Write the save file (after every action)."""
        ui = {"coach_seen": sorted(self.coach.seen)} if self.coach else {}
        saves.save_match(self.session, ui)

    def say(self, *lines: str) -> None:
        """Print lines."""
        self.term.say(*lines)

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
                    about = registry.describe(s.styles[seat])
                except MalformedInput:
                    about = ""
                same = s.names[seat] == s.styles[seat]
                style = "" if same else f" (plays like {s.styles[seat]})"
                self.say(f"  {s.names[seat]}{style}: {about}".rstrip())
            self.say(f"Rules: {s.settings.rules.describe()}. Seed {s.seed}; saved after "
                     "every move.")
        if self.auto is not None:
            self.say(f"The computer ({self.auto.name}) plays your seat.")
        if self.coach is not None and not resumed:
            self.say("Coach: this is your first round, so I'll explain each card the first "
                     "time it matters.")
        if not resumed:
            self.say("")

    def table(self) -> list[str]:
        """The table and your hand, as you see them now."""
        s = self.session
        view = s.view(HUMAN)
        lines = v.render_table(view, s.names, self.look, round_number=s.round_number)
        playable = (v.playable_cards(view, s.legal())
                    if s.round.turn == HUMAN and not s.round.over else set())
        return lines + v.render_hand(view.hand, playable, self.look)

    def round_start(self) -> None:
        """Announce a new round."""
        s = self.session
        r = s.round
        deals = "you deal" if r.dealer == HUMAN else f"{s.names[r.dealer]} deals"
        first = "you play" if r.turn == HUMAN else f"{s.names[r.turn]} plays"
        self.say(self.look.paint(f"Round {s.round_number}: {deals}, {first} first.", "bold"))

    # ------------------------------------------------------------------ the match

    def run(self) -> None:
        """Play until the match is over. Raises InputClosed or Quit (match saved)."""
        s = self.session
        if s.move_number == 0 and s.phase is Phase.TURN:
            self.round_start()
            if self.auto is not None:
                self.say(*self.table())
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
                self._shown_turns = 0
                self.save()
                self.say("")
                self.round_start()
                if self.auto is not None:
                    self.say(*self.table())
                continue
            if s.round.turn != HUMAN or self.auto is not None:
                self.computer_turn()
            else:
                self.human_turn()

    def narrate(self) -> None:
        """Print the turns completed since the last call (and the coach's remarks)."""
        s = self.session
        turns = v.group_turns(s.round.log)
        done = len(turns)
        if turns and not s.round.over and isinstance(s.round.log[-1].action, Draw):
            done -= 1  # the last turn is still going on (only draws so far)
        view = s.view(HUMAN)
        lines = v.log_lines(view, s.names, self.look, ended=s.round.over)
        for i in range(self._shown_turns, done):
            self.say(lines[i])
            if self.coach is not None and not (s.round.over and i == len(turns) - 1):
                remarks = self.coach.on_turns(view, [turns[i]], s.names)
                if remarks:
                    self.say(*remarks)
                    self.save()  # remember what was explained
        self._shown_turns = done

    def computer_turn(self) -> None:
        """Let the computer play the seat on turn (a whole turn), then show it."""
        s = self.session
        seat = s.round.turn
        bot = self.auto if seat == HUMAN and self.auto is not None else self.bots[seat]
        while s.phase is Phase.TURN and s.round.turn == seat:
            s.apply(s.choose(bot))
            self.save()
            if not isinstance(s.round.log[-1].action, Draw):
                break
        self.narrate()
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
                self.command(word)
            else:
                self.say("Just press Enter for the next round (or type quit).")

    def round_over(self) -> None:
        """Every hand face up, the round's points and the match table."""
        s = self.session
        self.narrate()
        result = s.match.results[-1]
        self.say("", *v.render_round_end(result, s.names, s.match, self.look))
        if self.coach is not None and not self.settings.coached:
            self.settings.coached = True
            _remember(self.settings, self.term)
            self.say("Coach: that was your first round — from now on you're on your own. "
                     "Type hint whenever you want a second opinion.")
            self.coach = None

    # ------------------------------------------------------------------ your turn

    def human_turn(self) -> None:
        """Show the table, read commands until an action ends your turn."""
        s = self.session
        self.narrate()
        self.say("", *self.table())
        self.coach_before()
        while s.phase is Phase.TURN and s.round.turn == HUMAN:
            answer = self.term.ask(self.prompt())
            try:
                action = self.read(answer)
            except (MalformedInput, IllegalAction) as exc:
                self.say(sentence(card_message(str(exc), self.look.card)))
                continue
            if action is None:
                continue
            event = s.apply(action)
            self.save()
            if (s.phase is Phase.TURN and s.round.turn == HUMAN
                    and isinstance(event.action, Draw)):
                self.say(drew_line(event.drawn[0], self.look,
                                   reshuffled=bool(event.reshuffled)))
                self.say(*v.render_hand(s.view(HUMAN).hand,
                                        v.playable_cards(s.view(HUMAN), s.legal()), self.look))
                self.coach_before()
        self.narrate()

    def prompt(self) -> str:
        """The move prompt, naming what makes sense now."""
        s = self.session
        return move_prompt(s.view(HUMAN), s.legal()) + ": "

    def coach_before(self) -> None:
        """The coach's remarks on the decision at hand."""
        if self.coach is not None:
            lines = self.coach.before_move(self.session.view(HUMAN), self.session.legal())
            if lines:
                self.say(*lines)
                self.save()  # remember what was explained

    def read(self, answer: str) -> Action | None:
        """Turn an answer into a legal action, or run a command and return None.

        Raises MalformedInput / IllegalAction with a one-line message.
        """
        s = self.session
        move = read_move(answer, s.round, s.view(HUMAN), coach=self.coach or self._explainer)
        if isinstance(move, Command):
            self.command(move)
            return None
        if not isinstance(move, NeedSuit):
            return move
        suit = self.ask_suit()
        if suit is None:
            return None
        play = Play(move.cards, suit)
        s.round.check(play)
        return play

    def ask_suit(self) -> Suit | None:
        """Ask which suit to declare; None if the player cancels."""
        while True:
            answer = self.term.ask(SUIT_PROMPT)
            suit = read_suit(answer)
            if suit is CANCEL:
                return None
            if isinstance(suit, Suit):
                return suit
            self.say(suit_retry(answer))

    def command(self, cmd: Command) -> None:
        """Run a command that is not a move."""
        s = self.session
        if cmd.name == "quit":
            raise Quit("quit")
        if cmd.name == "help":
            self.say(*v.HELP_LINES)
        elif cmd.name == "rules":
            self.say(*v.rules_lines(s.settings.rules, s.settings.players))
        elif cmd.name == "score":
            self.say(*v.render_scores(s.match, s.names, self.look))
        elif cmd.name == "log":
            self.say(*v.render_round_log(s.view(HUMAN), s.names, self.look,
                                         number=s.round_number, ended=s.round.over))
        elif cmd.name == "hint":
            legal = s.legal()
            if not legal or s.round.turn != HUMAN:
                self.say(NOTHING_TO_DECIDE)
                return
            view = s.view(HUMAN)
            self.say(hint_line(hint(view, legal, s.rng("hint")), view.hand, self.look))


# --------------------------------------------------------------------------- the command


def _new_seed() -> int:
    return random.SystemRandom().randrange(1, 10**9)


def _solo_settings(play: PlaySettings) -> SoloSettings:
    rules = make_rules(classic=play.classic, multi=play.multi, draw_limit=play.draw_limit,
                       countdown=play.countdown, target=play.target)
    return SoloSettings(opponents=play.opponents, rules=rules)


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
                raise LocalError(f"{said}, and it could not be moved aside ({err}); move or "
                                 f"delete {exc.path} to start a new match") from None
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
@click.option("--classic/--table", default=None,
              help="Classic rules (no action cards) or table rules (the default).")
@click.option("--multi/--no-multi", default=None,
              help="Allow several cards of one rank in a turn (default on).")
@click.option("--draw-limit", type=click.IntRange(0, None), metavar="K",
              help="Cards one turn may draw; 0 = until one fits (default 3).")
@click.option("--countdown/--standard", default=None,
              help="The countdown variant (--classic, --table or --target imply --standard).")
@click.option("--target", type=click.IntRange(0, None), metavar="T",
              help="Match target in points; 0 = the default (50 per seat).")
@click.option("--seed", type=int, metavar="S", help="Seed of a new match (same seed, same deals).")
@click.option("--new", "new", is_flag=True, help="Start a new match even if one is saved.")
@click.option("--auto", is_flag=False, flag_value="", default=None, metavar="[PERSONALITY]",
              help="Let the computer play your seat to the end (default: the expert).")
@click.option("--ascii/--unicode", "ascii_", default=None,
              help="Write suits as letters C D H S instead of ♣ ♦ ♥ ♠.")
def play(opponents: int | None, classic: bool | None, multi: bool | None,
         draw_limit: int | None, countdown: bool | None, target: int | None,
         seed: int | None, new: bool, auto: str | None, ascii_: bool | None) -> None:
    """Play a solo match against computer opponents (resumes a saved match).

    Your options are remembered for the next match; the match is saved after every
    move. Colour is off when NO_COLOR is set or the output is not a terminal.
    """
    settings = load_settings()
    if countdown is None and (classic is not None or target is not None):
        # --classic/--table or --target name a standard match: a remembered countdown
        # (which has no action cards and no target) would contradict them
        countdown = False
    play_settings = settings.play.merged(
        opponents=opponents, classic=classic, multi=multi, draw_limit=draw_limit,
        countdown=countdown, ascii=ascii_)
    if target is not None:
        play_settings = replace(play_settings, target=target or None)
    _solo_settings(play_settings)  # validate before remembering
    term = Terminal(ascii=play_settings.ascii)
    if settings.notice:
        term.say(f"p2p8s: {PLAIN.error(settings.notice)}.")
    settings.play = play_settings
    _remember(settings, term)
    bot = _resolve_auto(auto)
    asked = any(x is not None for x in (opponents, classic, multi, draw_limit, countdown,
                                        target, seed))
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
