"""QA findings on the terminal clients: odd digits, the narration of several queens or
aces, card style in messages and hints, the suit prompt, long input, contradictory
remembered options, wrapping on narrow terminals, and an unreadable settings file."""

from __future__ import annotations

import io
import json
import re

import pytest
from net.said import raises_saying

from p2p8s.bots.hints import Hint, HintCode
from p2p8s.cards import Card, Rank, Suit, parse_cards
from p2p8s.cli import moves
from p2p8s.cli import view as v
from p2p8s.cli.lines import wrap_line
from p2p8s.cli.moves import card_message, hint_line, parse_input, read_move
from p2p8s.cli.terminal import Terminal
from p2p8s.cli.words import PLAIN, Speaker
from p2p8s.coach import Coach
from p2p8s.engine import DRAW, Play
from p2p8s.errors import IllegalAction, MalformedInput, Note
from p2p8s.solo import HUMAN, SoloSession, SoloSettings, get_bot
from p2p8s.store.settings import load_settings

from .conftest import Home, engine_event, say_turn

HAND = parse_cards(["3C", "8D", "5H", "9H", "5S"])

# ---------------------------------------------------------------- 1. only ASCII digits


@pytest.mark.parametrize("text", ["²", "١", "３", "３ h", "²h", "1 ²", "١h"])
def test_only_ascii_digits_are_card_numbers(text: str) -> None:
    with raises_saying(MalformedInput, "is not a card number or a command"):
        parse_input(text, HAND)


def test_a_superscript_digit_is_refused_without_a_traceback(home: Home) -> None:
    proc = home.run("--new", "--seed", "11", stdin="²\n١\n３\n")
    assert "Traceback" not in proc.stdout + proc.stderr
    assert proc.returncode == 0, proc.stderr
    for word in ("²", "١", "３"):
        assert (f"'{word}' is not a card number or a command (type help for the list)."
                in proc.stdout)
    assert "You played" not in proc.stdout


# ---------------------------------------------------------------- 2. several Q or A


def _claims(line: str, names: list[str], seat: int, players: int, direction: int
            ) -> int | None:
    """The seat the narration says moves next (None: it says nothing about it)."""
    def seat_of(word: str) -> int:
        return 0 if word.lower() == "you" else names.index(word)

    if m := re.search(r" — (\w+) plays? again", line):
        return seat_of(m.group(1))
    if m := re.search(r": (\w+) plays? again", line):
        return seat
    if m := re.search(r": (\w+) plays? next", line):
        return seat_of(m.group(1))
    if m := re.search(r" — (.+) miss(?:es)? a turn", line):
        skipped = [seat_of(w) for w in re.split(r", | and ", m.group(1))]
        expect = [(seat + direction * j) % players for j in range(1, len(skipped) + 1)]
        assert skipped == expect, line
        return (seat + direction * (len(skipped) + 1)) % players
    return None


@pytest.mark.parametrize("opponents", [1, 2, 3])
def test_queens_and_aces_are_narrated_as_the_engine_plays_them(opponents: int) -> None:
    """Every play of queens (and aces, with two players) says who moves next, exactly
    as the engine goes on (R-NEXT), for any count of cards and either direction."""
    look = v.Look()
    multi = 0
    for seed in range(60):
        s = SoloSession.new(SoloSettings(opponents=opponents), seed)
        bot = get_bot("random")
        names = list(s.names)
        players = s.settings.players
        while not s.round.over:
            direction = s.round.direction
            event = s.apply(s.choose(bot))
            play = event.action
            if (s.round.over or not isinstance(play, Play)
                    or play.cards[-1].rank not in (Rank.QUEEN, Rank.ACE)):
                continue
            line = say_turn([event], names, rules=s.settings.rules, look=look)
            if play.cards[-1].rank == Rank.ACE and players > 2:
                k = len(play.cards)
                assert ("reversed twice, same direction" in line) == (k % 2 == 0), line
                continue
            multi += len(play.cards) > 1
            assert _claims(line, names, event.seat, players, direction) == s.round.turn, line
    assert multi >= 3  # the interesting case happened


def test_two_queens_with_two_players() -> None:
    names = ["You", "Max"]
    qq = engine_event(2, 0, "QH QC")
    aa = engine_event(2, 1, "AD AC")
    assert say_turn([qq], names) == (
        "You played Q♥ Q♣ — two skips go round the table: Max plays next.")
    assert say_turn([aa], names) == (
        "Max played A♦ A♣ — two skips go round the table: you play next.")
    one = engine_event(2, 0, "QS")
    assert say_turn([one], names) == "You played Q♠ — you play again."


def test_the_drawn_card_is_named_in_the_clients_style() -> None:
    for seed in range(300):
        s = SoloSession.new(SoloSettings(opponents=1), seed)
        bots = s.bots()
        while s.round.turn != HUMAN:
            s.apply(s.choose(bots[s.round.turn]))
        if DRAW not in s.legal() or any(isinstance(a, Play) for a in s.legal()):
            continue
        event = s.apply(DRAW)
        drawn = event.drawn[0]
        if drawn is None or not s.round.playable(drawn, HUMAN):
            continue
        for look in (v.Look(), v.Look(ascii=True)):
            with pytest.raises(IllegalAction) as err:
                read_move("d", s.round, s.view(HUMAN), coach=Coach())
            said = Speaker(look=look).error(err.value)
            assert f"the drawn {look.card(drawn)} is playable" in said
            if not look.ascii:
                assert str(drawn) not in said
        return
    pytest.fail("no seed draws a playable card")


def test_card_message_redraws_cards_only() -> None:
    look = v.Look()
    assert card_message("TH does not match 7C (suit clubs or rank 7)", look.card) == \
        "10♥ does not match 7♣ (suit clubs or rank 7)"
    assert card_message("AS ACE 7 CS QSX", look.card) == "A♠ ACE 7 CS QSX"


# ---------------------------------------------------------------- 8. hints in ascii


def test_hint_reasons_follow_the_clients_card_style() -> None:
    h = Hint(action=Play((Card.parse("4S"),)),
             reason=Note.of(HintCode.KEEP_WILD, card=Card.parse("4S"), wild=Rank.EIGHT,
                            own=False))
    hand = parse_cards(["4S", "8H"])
    line = hint_line(h, hand, v.Look(ascii=True))
    assert line.endswith("Keep your 8: you can follow suit with 4S.")
    assert not set("♣♦♥♠") & set(line)
    assert hint_line(h, hand, v.Look()).endswith("follow suit with 4♠.")


def test_ascii_hint_has_no_glyphs(home: Home) -> None:
    proc = home.run("--new", "--seed", "11", "--ascii", stdin="hint\nd\nd\nhint\n")
    assert "Hint:" in proc.stdout
    assert not set("♣♦♥♠") & set(proc.stdout)


# ---------------------------------------------------------------- 3. the suit prompt


def test_a_bad_suit_is_said_and_asked_again(home: Home) -> None:
    # seed 8: card 2 is 8♣
    proc = home.run("--new", "--seed", "8", stdin="2\nx\nh\n")
    out = proc.stdout
    assert "'x' is not a suit (c, d, h, s; or cancel)." in out
    assert out.count("Declare a suit") == 2
    assert "You played 8♣ and declared hearts ♥." in out


def test_a_bad_inline_suit_says_so() -> None:
    with raises_saying(MalformedInput, r"^'x' is not a suit \(c, d, h, s\)$"):
        parse_input("2 x", HAND)
    with raises_saying(MalformedInput, "is not a card number"):
        parse_input("x", HAND)


# ---------------------------------------------------------------- 4. long input


def test_long_input_is_not_echoed_whole(home: Home) -> None:
    proc = home.run("--new", "--seed", "11", stdin="x" * 100_000 + "\n")
    assert proc.returncode == 0, proc.stderr
    longest = max(len(line) for line in proc.stdout.splitlines())
    assert longest < 300
    assert "'" + "x" * 39 + "…' is not a card number" in proc.stdout
    assert moves.shorten("y" * 41) == "y" * 39 + "…" and moves.shorten("y" * 40) == "y" * 40


def test_the_terminal_echo_is_cut() -> None:
    out = io.StringIO()
    term = Terminal(out, io.StringIO("z" * 5000 + "\n"))
    assert term.ask("> ") == "z" * 5000  # the answer itself is whole
    echoed = out.getvalue()  # (a StringIO has no encoding: the look is ascii, "...")
    assert echoed in ("> " + "z" * 39 + "…\n", "> " + "z" * 39 + "...\n")


# ---------------------------------------------------------------- 5. remembered rules


@pytest.mark.parametrize(("args", "rules"), [
    (("--classic",), "Rules: classic,"),
    (("--table",), "Rules: table rules,"),
    (("--target", "40"), "Rules: table rules,"),
    (("--classic", "--countdown"), "Rules: countdown,"),
    ((), "Rules: countdown,"),
])
def test_classic_or_table_leave_a_remembered_countdown(home: Home, args: tuple[str, ...],
                                                       rules: str) -> None:
    home.settings.parent.mkdir(parents=True)
    home.settings.write_text(json.dumps({"version": 1, "play": {"countdown": True}}))
    proc = home.run("--new", "--seed", "3", *args, stdin="")
    assert proc.returncode == 0, proc.stderr
    assert rules in proc.stdout
    remembered = json.loads(home.settings.read_text())["play"]
    assert remembered["countdown"] == ("countdown" in rules)


# ---------------------------------------------------------------- 6. wrapping


def test_wrapping_keeps_words_whole() -> None:
    line = ("Top card: 3♣ · suit: clubs ♣ · stock: 23 · Your turn. "
            "Coach: cards marked * fit: same suit as the top card.")
    parts = wrap_line(line, 40)
    assert all(len(p) <= 40 for p in parts)
    assert " ".join(p.strip() for p in parts) == line
    assert "stock: 23" in "\n".join(parts).replace("\n  ", " ")
    hand = "  clubs     1 10♣*   2 4♦    3 5♦    4 9♦    5 K♥    6 10♠    7 Q♠"
    rows = wrap_line(hand, 40)
    assert rows[0].startswith("  clubs     1 10♣*") and len(rows) > 1
    for row in rows:  # a card's number stays with its card
        assert re.fullmatch(r"( *\w+)? *(\d \S+ *)+", row), row
    assert wrap_line("\x1b[1m" + "x " * 15 + "\x1b[0m", 40) == ["\x1b[1m" + "x " * 15 + "\x1b[0m"]


def test_the_terminal_wraps_only_at_a_given_or_real_width() -> None:
    text = "word " * 30
    out = io.StringIO()
    Terminal(out, io.StringIO()).say(text)
    assert out.getvalue() == text + "\n"  # not a terminal: never wrapped
    out = io.StringIO()
    Terminal(out, io.StringIO(), width=40).say(text)
    assert all(len(x) <= 40 for x in out.getvalue().splitlines())
    assert len(out.getvalue().splitlines()) == 5  # 8 words, then 7 a line (indented)
    for line in v.HELP_LINES:
        assert all(len(x) <= 40 for x in wrap_line(line, 40)), line


# ---------------------------------------------------------------- 7. unreadable settings


def test_an_unreadable_settings_file_is_not_called_damaged_nor_lost(home: Home) -> None:
    config = home.root / "config"
    config.mkdir()
    (config / "p2p8s").write_text("my own file\n")  # a file where the directory goes
    loaded = load_settings()
    assert loaded.notice is not None
    notice = PLAIN.error(loaded.notice)
    assert "damaged" not in notice and "cannot read" in notice
    assert "is a file, not a directory" in notice and "Errno" not in notice
    loaded.save()  # does nothing: never written over
    proc = home.run("--new", "--seed", "11", stdin="")
    assert proc.returncode == 0, proc.stderr
    assert "p2p8s: cannot read the settings file" in proc.stdout
    assert "damaged" not in proc.stdout and "Errno" not in proc.stdout
    assert "Welcome to p2p8s" in proc.stdout
    assert (config / "p2p8s").read_text() == "my own file\n"


def test_an_unwritable_settings_dir_is_reported_plainly(home: Home) -> None:
    config = home.root / "config"
    config.mkdir()
    config.chmod(0o500)
    try:
        proc = home.run("--new", "--seed", "11", stdin="")
    finally:
        config.chmod(0o700)
    assert proc.returncode == 0, proc.stderr
    if "cannot write" in proc.stdout:  # (root may write anyway)
        assert "p2p8s: cannot write the settings file" in proc.stdout
        assert "Errno" not in proc.stdout


def test_suit_words() -> None:
    assert moves.read_suit("x") is None and moves.parse_suit("x") is None
    assert moves.read_suit("s") is Suit.SPADES


def test_card_number_out_of_range_with_one_card_says_so() -> None:
    hand = parse_cards(["7H"])
    with raises_saying(MalformedInput, r"^there is no card 2: you hold one card, "
                                             r"number 1$"):
        parse_input("2", hand)
    with raises_saying(MalformedInput, r"your cards are numbered 1 to 2$"):
        parse_input("3", parse_cards(["7H", "8S"]))


def test_effects_name_you_in_lower_case_mid_sentence() -> None:
    names = ["You", "Max", "Ada"]
    two = engine_event(3, 2, "2H")
    queen = engine_event(3, 2, "QH")
    assert say_turn([two], names) == "Ada played 2♥ — draw penalty 2 for you."
    assert say_turn([queen], names) == "Ada played Q♥ — you miss a turn."


def test_the_short_rules_count_one_card_in_the_singular() -> None:
    """A draw limit of 1 says "up to 1 card", not "1 cards" (found by a newcomer)."""
    from p2p8s.rules import Ruleset

    assert any("Draw (up to 1 card)." in line for line in v.rules_lines(Ruleset(draw_limit=1), 3))
    assert any("Draw (up to 3 cards)." in line for line in v.rules_lines(Ruleset(), 3))
