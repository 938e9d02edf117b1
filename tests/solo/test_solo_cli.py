"""The real ``p2p8s play`` process with piped input: whole matches, EOF, quit, settings,
bad input, colour and glyph options."""

from __future__ import annotations

import json

from p2p8s.rules import Ruleset
from p2p8s.solo import SoloSettings

from .conftest import Home, hint_script


def test_whole_match_following_the_hints(home: Home) -> None:
    settings = SoloSettings(opponents=2, rules=Ruleset(target=60))
    script, final = hint_script(settings, seed=21)
    proc = home.run("--seed", "21", "--opponents", "2", "--target", "60", stdin=script)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Traceback" not in out + proc.stderr
    # no move was refused: the process played exactly the in-process match
    for refusal in ("doesn't fit", "is not in your hand", "not a card number", "There is no"):
        assert refusal not in out
    winner = final.match.winner
    assert winner is not None
    expect = "You win the match!" if winner == 0 else f"{final.names[winner]} wins the match."
    assert expect in out
    assert out.count("is over:") == final.round_number
    assert not home.save.exists()  # a finished match leaves no save


def test_auto_runs_to_the_end_without_input(home: Home) -> None:
    proc = home.run("--seed", "5", "--opponents", "1", "--target", "30", "--auto", stdin=None)
    assert proc.returncode == 0, proc.stderr
    assert "The computer (Expert) plays your seat." in proc.stdout
    assert "wins the match" in proc.stdout or "You win the match!" in proc.stdout
    assert "Your move" not in proc.stdout
    assert not home.save.exists()


def test_auto_with_a_personality(home: Home) -> None:
    proc = home.run("--seed", "6", "--opponents", "1", "--target", "40", "--auto", "karl",
                    stdin=None)
    assert proc.returncode == 0, proc.stderr
    assert "The computer (Karl) plays your seat." in proc.stdout


def test_unknown_personality_is_a_clean_error(home: Home) -> None:
    proc = home.run("--auto", "nobody", stdin=None)
    assert proc.returncode != 0
    assert "no computer player called 'nobody'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_first_screen_welcomes_and_explains(home: Home) -> None:
    proc = home.run("--seed", "11", stdin="")
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("Welcome to p2p8s")
    assert lines[1].startswith("How to play:")
    assert lines[2].startswith("Type a card's number")
    assert "Input ended — your match is saved" in proc.stdout
    assert proc.returncode == 0
    assert home.save.exists()


def test_eof_mid_match_saves_and_resumes(home: Home) -> None:
    first = home.run("--seed", "11", "--opponents", "2", stdin="help\nd\n")
    assert first.returncode == 0
    assert "Input ended — your match is saved. Run `p2p8s play` to continue." in first.stdout
    saved = json.loads(home.save.read_text())
    again = home.run(stdin="")
    assert "Welcome back to p2p8s!" in again.stdout
    assert json.loads(home.save.read_text())["digest"] == saved["digest"]


def test_quit_saves(home: Home) -> None:
    proc = home.run("--seed", "11", stdin="quit\n")
    assert proc.returncode == 0
    assert "Saved. Run `p2p8s play` to continue where you left off." in proc.stdout
    assert home.save.exists()


def test_bad_input_gets_one_line_and_the_prompt_again(home: Home) -> None:
    proc = home.run("--seed", "11", "--opponents", "2", stdin="zz\n99\n1 1\n\n3 x\nhelp\n")
    out = proc.stdout
    assert "'zz' is not a card number or a command (type help for the list)." in out
    assert "There is no card 99: your cards are numbered 1 to 7." in out
    assert "Card 1 is listed twice." in out
    assert "Type a card number, d to draw, hint, or help." in out
    assert "Commands:" in out
    prompts = out.count("Your move (")
    assert prompts == 7  # six answers, then the prompt that met the end of input
    assert "Traceback" not in out + proc.stderr


def test_an_unplayable_card_is_explained(home: Home) -> None:
    # seed 11, 2 opponents: you start; top card 3♣; card 2 is 4♦
    proc = home.run("--seed", "11", "--opponents", "2", stdin="2\n")
    assert "4♦ doesn't fit on 3♣: you need a club, a 3, or an 8." in proc.stdout


def test_settings_are_remembered(home: Home) -> None:
    home.run("--seed", "3", "--opponents", "1", "--classic", "--no-multi", "--draw-limit", "2",
             stdin="")
    stored = json.loads(home.settings.read_text())["play"]
    assert stored["opponents"] == 1 and stored["classic"] and not stored["multi"]
    assert stored["draw_limit"] == 2
    proc = home.run("--new", "--seed", "4", stdin="")
    assert "Rules: classic, one card a turn, draw limit 2." in proc.stdout
    assert "You play against" in proc.stdout and " and " not in proc.stdout.splitlines()[0]


def test_flags_with_a_saved_match_keep_its_settings(home: Home) -> None:
    home.run("--seed", "3", "--opponents", "1", stdin="")
    proc = home.run("--opponents", "4", stdin="")
    assert "A saved match is in progress and keeps its own settings" in proc.stdout
    assert "Welcome back" in proc.stdout


def test_no_colour_when_piped_and_ascii_option(home: Home) -> None:
    proc = home.run("--seed", "11", "--ascii", stdin="")
    assert "\x1b[" not in proc.stdout
    assert not set("♣♦♥♠") & set(proc.stdout)
    proc = home.run("--unicode", stdin="")
    assert set("♣♦♥♠") & set(proc.stdout)


def test_hint_command_names_the_keys(home: Home) -> None:
    proc = home.run("--seed", "11", "--opponents", "2", stdin="hint\n")
    hint_line = next(x for x in proc.stdout.splitlines() if "Hint:" in x)
    assert "(type " in hint_line and " — " in hint_line


def test_an_eight_asks_for_the_suit(home: Home) -> None:
    # seed 1, one opponent: at your first turn card 1 is 8♣
    proc = home.run("--seed", "1", "--opponents", "1", stdin="1\npurple\nh\n")
    out = proc.stdout
    assert "Declare a suit (c clubs, d diamonds, h hearts, s spades; or cancel): purple" in out
    assert "'purple' is not a suit (c, d, h, s; or cancel)." in out
    assert "You played 8♣ and declared hearts ♥." in out


def test_an_inline_suit_and_cancel(home: Home) -> None:
    proc = home.run("--seed", "1", "--opponents", "1", stdin="1\ncancel\n1 s\n")
    out = proc.stdout
    assert "You played 8♣ and declared spades ♠." in out
    assert out.count("Your move (card number") >= 2


def test_facing_a_penalty(home: Home) -> None:
    # seed 30, one opponent: a 2 is played before your first turn and you hold no 2
    proc = home.run("--seed", "30", "--opponents", "1", stdin="d\n1\nt\n")
    out = proc.stdout
    assert "Draw penalty: 2 cards waiting" in out
    assert "A draw penalty of 2 is pending: play a 2 or take it." in out
    assert "can't go now: a draw penalty of 2 is waiting and only a 2 counters it" in out
    assert "You took the draw penalty: " in out


def test_rematch_starts_a_new_match(home: Home) -> None:
    settings = SoloSettings(opponents=1, rules=Ruleset(target=30))
    script, _ = hint_script(settings, seed=2)
    assert script.endswith("n\n")
    proc = home.run("--seed", "2", "--opponents", "1", "--target", "30",
                    stdin=script[:-2] + "y\n")
    assert proc.stdout.count("Welcome to p2p8s — Crazy Eights!") == 2
    assert "Play again with the same settings? [y/N] y" in proc.stdout
    assert home.save.exists()  # the new match is saved
