"""The surface of RULES.md §11 on real rounds of the wildcards and zimbabwe presets: a
declared choice typed in one go or asked like the 8's suit, the lucky card's key, the
narration of every new event, the coach's new topics, the hints' reasons and the help."""

from __future__ import annotations

from collections.abc import Sequence

from p2p8s.bots.base import View, view_of
from p2p8s.bots.hints import HintCode, explain
from p2p8s.cards import Card, parse_cards, standard_deck
from p2p8s.cli import view as v
from p2p8s.cli.controller import Act, Board, Controller, Kind
from p2p8s.cli.look import Look
from p2p8s.cli.moves import NeedChoice, choice_prompt, move_prompt, read_move
from p2p8s.cli.words import Speaker, narration
from p2p8s.coach import Coach, CoachCode
from p2p8s.engine import DRAW, LUCKY, PASS, TAKE, Action, OrderedDeck, Play, Round
from p2p8s.errors import Note
from p2p8s.match import Match
from p2p8s.rules import Ruleset
from p2p8s.ruletable import Declare

WILDCARDS = Ruleset.for_preset("wildcards")
ZIMBABWE = Ruleset.for_preset("zimbabwe")
NAMES = ("You", "Ada", "Bo", "Cy")


def _round(rules: Ruleset, hands: Sequence[Sequence[str]], top: str, *,
           players: int = 4) -> Round:
    """A round whose seats hold ``hands`` (seat 0 first) on the starter ``top``, seat 0
    on turn: dealt from an ordered deck (the dealer is the last seat, R-DEALORDER)."""
    size = len(hands[0])
    assert all(len(h) == size for h in hands)
    dealt = [parse_cards(h) for h in hands]
    order: list[Card] = []
    for k in range(size):
        for seat in range(players):
            order.append(dealt[seat][k])
    order.append(Card.parse(top))
    rest = [c for c in standard_deck(1, jokers=rules.rule_table.jokers) if c not in order]
    r = Round.deal(rules, players=players, dealer=players - 1,
                   deck=OrderedDeck(order + rest), hand_size=size)
    assert str(r.top) == top and r.turn == 0
    return r


class _Source:
    """A real round read as the controller's source (seat 0 is the person)."""

    def __init__(self, rnd: Round) -> None:
        self.rnd = rnd
        self.names = NAMES[:rnd.players]
        self.me = 0
        self.number = 1

    def view(self) -> View:
        return view_of(self.rnd, 0)

    def round(self) -> Round:
        return self.rnd

    def legal(self) -> list[Action]:
        return self.rnd.legal_actions() if self.rnd.turn == 0 else []

    def my_turn(self) -> bool:
        return self.rnd.turn == 0

    def match(self) -> Match | None:
        return None

    def waiting(self) -> str:
        return "wait"


class _Screen:
    def __init__(self) -> None:
        self.lines: list[tuple[Kind, tuple[str, ...]]] = []

    def said(self, kind: Kind, lines: Sequence[str]) -> None:
        self.lines.append((kind, tuple(lines)))

    def board(self, board: Board) -> None:
        pass


def _four() -> Round:
    return _round(WILDCARDS, [["4H", "9C", "KD"], ["5S", "6S", "7S"], ["5D", "6D", "7D"],
                              ["5C", "6C", "7C"]], "9H")


# ---------------------------------------------------------------- typing a choice


def test_a_declared_choice_typed_in_one_go() -> None:
    r = _four()
    move = read_move("4h reverse", r, view_of(r, 0), coach=Coach())
    assert move == Play((Card.parse("4H"),), None, Declare.REVERSE)
    assert read_move("3 skip", r, view_of(r, 0), coach=Coach()) == Play(
        (Card.parse("4H"),), None, Declare.SKIP)


def test_a_choice_left_out_is_asked_like_the_suit() -> None:
    r = _four()
    screen = _Screen()
    ctl = Controller(_Source(r), screen, Look(ascii=True))
    assert ctl.typed("4h") is None
    prompt = ctl.prompt()
    assert prompt is not None and prompt.text == choice_prompt([Declare.SKIP, Declare.REVERSE])
    assert "s skip" in prompt.text and "r reverse" in prompt.text
    assert ctl.typed("bounce") is None  # not a choice here: asked again
    assert screen.lines[-1] == (Kind.REFUSAL, (
        "'bounce' is not a choice here (skip, reverse; or cancel).",))
    assert ctl.typed("r") == Act(Play((Card.parse("4H"),), None, Declare.REVERSE))
    assert ctl.prompt() is not None and "Declare" not in ctl.prompt().text  # type: ignore[union-attr]
    assert ctl.typed("4h") is None and ctl.typed("cancel") is None
    assert ctl.asking is None


def test_nopick_is_optional_and_the_jack_asks_reverse_or_bounce() -> None:
    r = _round(ZIMBABWE, [["2H", "JH", "KH"], ["5S", "6S", "9S"], ["5D", "6D", "9D"],
                          ["5C", "6C", "9C"]], "3H")
    view = view_of(r, 0)
    two = read_move("2h", r, view, coach=Coach())
    assert isinstance(two, NeedChoice) and two.options == (Declare.NOPICK, None)
    assert read_move("2h nopick", r, view, coach=Coach()) == Play(
        (Card.parse("2H"),), None, Declare.NOPICK)
    jack = read_move("jh", r, view, coach=Coach())
    assert isinstance(jack, NeedChoice) and jack.options == (Declare.REVERSE, Declare.BOUNCE)
    ctl = Controller(_Source(r), _Screen(), Look(ascii=True))
    assert ctl.typed("2h") is None
    assert ctl.typed("") == Act(Play((Card.parse("2H"),)))  # Enter: nothing declared


def test_the_lucky_card_has_a_key_and_a_hint() -> None:
    r = _round(ZIMBABWE, [["3D", "4D", "KS"], ["X1", "6S", "9S"], ["5D", "6D", "9D"],
                          ["5C", "6C", "9C"]], "3H")
    r.apply(Play((Card.parse("3D"),)))
    r.apply(Play((Card.parse("X1"),)))  # seat 1: 5 for seat 2
    legal = r.legal_actions()
    assert r.turn == 2 and LUCKY in legal and TAKE in legal
    note = explain(view_of(r, 2), legal, LUCKY)
    assert note.code is HintCode.LUCKY and note.params["pending"] == 5
    assert 0 < note.params["good"] < note.params["unseen"]
    assert v.action_keys(LUCKY, []) == "l" and v.action_text(LUCKY, Look()) == (
        "turn the lucky card")
    r.apply(LUCKY)
    assert _said(r)[-1].startswith("Bo turned the lucky card ")


# ---------------------------------------------------------------- narration


def _said(r: Round, seat: int = 0) -> list[str]:
    return narration.turn_lines(r.log, Speaker(NAMES[:r.players], seat, Look(ascii=True)),
                                rules=r.rules)


def test_the_narration_tells_a_reverse_a_skip_and_a_penalty_of_wild_cards() -> None:
    r = _four()
    r.apply(Play((Card.parse("4H"),), None, Declare.REVERSE))  # seat 3 next
    assert _said(r)[-1] == "You played 4H — reverse: play now goes counter-clockwise."
    assert r.turn == 3


def test_the_narration_tells_every_zimbabwe_effect() -> None:
    r = _round(ZIMBABWE, [["7H", "JH", "AH", "KH"], ["7S", "X1", "9S", "4S"],
                          ["5D", "6D", "9D", "4D"], ["5C", "6C", "9C", "4C"]], "3H")
    r.apply(Play((Card.parse("7H"),)))
    assert _said(r)[-1] == "You played 7H — Ada must play a 7 or miss a turn."
    r.apply(Play((Card.parse("7S"),)))  # Ada passes the skip on
    assert _said(r)[-1] == "Ada played 7S — Bo must play a 7 or miss a turn."
    r.apply(PASS)
    assert _said(r)[-1] == "Bo missed a turn (skipped)."
    assert r.turn == 3
    b = _round(ZIMBABWE, [["JH", "KH"], ["5S", "9S"], ["5D", "9D"], ["5C", "9C"]], "3H")
    b.apply(Play((Card.parse("JH"),), None, Declare.BOUNCE))
    assert _said(b)[-1] == "You played JH — bounce: Cy moves once, then you again."
    assert b.turn == 3


def test_a_block_nopick_lucky_and_in_the_air_are_told() -> None:
    r = _round(ZIMBABWE, [["2H"], ["AH"], ["5H"], ["6H"]], "3H")
    r.apply(Play((Card.parse("2H"),), None, Declare.NOPICK))
    assert _said(r)[-1] == ("You played 2H — draw penalty 2 for Ada (no pick and play). "
                            "You are in the air: no cards left, still in the round.")
    r.apply(Play((Card.parse("AH"),)))
    assert "Ada played AH — the draw penalty is blocked" in _said(r)[-1]
    coach = Coach()
    notes = coach.on_turns(view_of(r, 0), narration.group_turns(r.log))
    codes = [n.code for n in notes]
    assert CoachCode.NOPICK in codes and CoachCode.AIR in codes and CoachCode.BLOCK in codes
    for note in notes:  # every note has words, none a leftover code name
        assert not Speaker(NAMES).note(note).startswith("coach-")


def test_the_table_shows_jokers_and_what_counters_a_zimbabwe_penalty() -> None:
    r = _round(ZIMBABWE, [["X1", "3H"], ["2S", "9S"], ["5D", "9D"], ["5C", "9C"]], "3S")
    r.apply(Play((Card.parse("X1"),)))
    view = view_of(r, 1)
    lines = v.render_table(view, NAMES, Look(ascii=True), round_number=1)
    assert any(line.startswith("Draw penalty: 5 cards waiting — play a 2 or a joker to pass "
                               "it on, an A to block it, l for the lucky card, or take them.")
               or "a 2 or a joker to pass it on, an A to block it, l for the lucky card"
               in line for line in lines), lines
    hand = v.render_hand(parse_cards(["X2", "3H"]), set(), Look(ascii=True))
    assert any(line.strip().startswith("jokers") and "X2" in line for line in hand)


def test_help_and_rules_lines_follow_the_preset() -> None:
    zim = v.help_lines(ZIMBABWE)
    assert any("turn the lucky card" in line for line in zim)
    assert any("declare" in line and "bounce" in line for line in zim)
    classic = v.help_lines(Ruleset.classic())
    assert not any("take the draw penalty" in line for line in classic)
    nomulti = v.help_lines(Ruleset.classic(multi_play=False))
    assert not any(line.startswith("  3 5") for line in nomulti)
    assert v.help_lines(Ruleset()) == v.HELP_LINES
    short = v.rules_lines(Ruleset(variant=Ruleset.for_preset("countdown").variant), 4)
    assert not any("points" in line or "penalty" in line for line in short)
    wild = "\n".join(v.rules_lines(WILDCARDS, 4))
    assert "Q♠: adds 5" in wild and "declare skip" in wild and "collects" in wild


def test_the_coach_explains_each_new_card_once_when_it_matters() -> None:
    r = _round(ZIMBABWE, [["X1", "JH", "2H"], ["AS", "5S", "9S"], ["5D", "6D", "9D"],
                          ["5C", "6C", "9C"]], "3H")
    coach = Coach()
    notes = coach.before_move(view_of(r, 0), r.legal_actions())
    codes = {n.code for n in notes}
    assert {CoachCode.JOKER, CoachCode.CHOICE} <= codes
    assert coach.before_move(view_of(r, 0), r.legal_actions()) == []  # once each
    r.apply(Play((Card.parse("X1"),)))
    notes = coach.before_move(view_of(r, 1), r.legal_actions())
    codes = {n.code for n in notes}
    assert {CoachCode.BLOCK, CoachCode.COUNTER, CoachCode.LUCKY} <= codes
    counter = next(n for n in notes if n.code is CoachCode.COUNTER)
    text = Speaker(NAMES).note(counter)
    assert "block it with an ace" in text and "lucky card" in text
    assert "you may still play one card" in text and "Taking ends your turn" not in text
    r.apply(TAKE)
    assert r.picking
    notes = coach.before_move(view_of(r, 1), r.legal_actions())
    assert [n.code for n in notes] == [CoachCode.PICK_PLAY]


def test_the_coach_speaks_of_points_only_where_they_count() -> None:
    speaker = Speaker(NAMES)
    for rules, words in ((Ruleset.for_preset("countdown"), None),
                         (Ruleset.classic(), "worth 50 points to whoever goes out"),
                         (Ruleset(), "held too long it costs 50 points")):
        r = Round.deal(rules, players=2, dealer=1, deck=OrderedDeck(standard_deck()),
                       hand_size=7)
        note = next(n for n in Coach()._eight(view_of(r, 0)))
        text = speaker.note(note)
        if words is None:
            assert "points" not in text
        else:
            assert words in text
    wild = Coach().before_move(view_of(_four(), 0), _four().legal_actions())
    choice = next(n for n in wild if n.code is CoachCode.CHOICE)
    assert speaker.note(choice) == (
        "Coach: with a 4 you choose: skip (the next player misses a turn) or reverse (the "
        "direction of play turns). Type it with the card (like `3 reverse`), or you will "
        "be asked.")


# ---------------------------------------------------------------- the words of a preset
def test_two_aces_of_zimbabwe_block_only_and_two_jacks_reverse_twice() -> None:
    r = _round(ZIMBABWE, [["AH", "AS", "KH"], ["5S", "6S", "9S"], ["5D", "6D", "9D"],
                          ["5C", "6C", "9C"]], "3H")
    r.apply(Play((Card.parse("AH"), Card.parse("AS"))))
    assert _said(r)[-1] == "You played AH AS."
    j = _round(ZIMBABWE, [["JH", "JS", "KH"], ["5S", "6S", "9S"], ["5D", "6D", "9D"],
                          ["5C", "6C", "9C"]], "3H")
    j.apply(Play((Card.parse("JH"), Card.parse("JS")), None, Declare.REVERSE))
    assert _said(j)[-1] == "You played JH JS — reversed twice, same direction."
    a = _round(Ruleset(), [["AH", "AS", "KH"], ["5S", "6S", "9S"], ["5D", "6D", "9D"],
                           ["5C", "6C", "9C"]], "3H")
    a.apply(Play((Card.parse("AH"), Card.parse("AS"))))
    assert _said(a)[-1] == "You played AH AS — reversed twice, same direction."


def _coach_says(r: Round, seat: int) -> list[str]:
    return [Speaker(NAMES, seat, Look(ascii=True)).note(n)
            for n in Coach().before_move(view_of(r, seat), r.legal_actions())]


def test_after_a_draw_any_card_that_fits_may_go_and_the_prompt_says_so() -> None:
    r = _round(WILDCARDS, [["5H", "KC", "9C"], ["5S", "6S", "7S"], ["5D", "6D", "7D"],
                           ["5C", "6C", "7C"]], "9H")
    r.apply(DRAW)  # R-DRAW-ANY: the drawn AC does not fit, 5H and 9C do
    view = view_of(r, 0)
    assert str(view.last_drawn) == "AC"
    assert _coach_says(r, 0) == [
        "Coach: any card that fits may go now: type its number, draw again (d), or pass (p)."]
    assert move_prompt(view, r.legal_actions()) == (
        "Your move (a fitting card's number, d to draw again, or p to pass)")


def test_what_counters_a_penalty_comes_from_the_rule_table() -> None:
    w = _round(WILDCARDS, [["QS", "KC", "9C"], ["2H", "2S", "7S"], ["5D", "6D", "7D"],
                           ["5C", "6C", "7C"]], "9S")
    w.apply(Play((Card.parse("QS"),)))
    assert ("Coach: a penalty of 5 cards is waiting for you. Only a 2 or the QS that also "
            "fits the top card counters it — not even an 8: play one to pass a penalty of 7 "
            "to the next player, or type t to take them.") in " ".join(_coach_says(w, 1))
    assert move_prompt(view_of(w, 1), w.legal_actions()) == (
        "Your move (the number of a 2 to counter or t to take; hint, help)")
    h = _round(WILDCARDS, [["QS", "KC", "9C"], ["2H", "3H", "7S"], ["5D", "6D", "7D"],
                           ["5C", "6C", "7C"]], "9S")
    h.apply(Play((Card.parse("QS"),)))  # 2H does not fit the QS (R-WC-PENALTY)
    assert "you hold none that fits, so type t to take them" in " ".join(_coach_says(h, 1))
    assert move_prompt(view_of(h, 1), h.legal_actions()) == "Your move (t to take; hint, help)"
    z = _round(ZIMBABWE, [["X1", "JH", "2H"], ["AS", "5S", "9S"], ["5D", "6D", "9D"],
                          ["5C", "6C", "9C"]], "3H")
    z.apply(Play((Card.parse("X1"),)))
    assert ("Only a 2 or a joker counters it — not even an 8: you hold no 2 or joker, so "
            "block it with an ace, turn the lucky card (l) or type t to take them."
            ) in " ".join(_coach_says(z, 1))
    assert move_prompt(view_of(z, 1), z.legal_actions()) == (
        "Your move (the number of an ace to block, l for the lucky card or t to take; "
        "hint, help)")


def test_the_help_the_bounce_line_and_the_draw_limit_read_right() -> None:
    assert ("  3 bounce play card 3 and declare bounce, nopick or reverse (or you will be "
            "asked)") in v.help_lines(ZIMBABWE)
    assert ("  3 skip   play card 3 and declare reverse or skip (or you will be asked)"
            ) in v.help_lines(WILDCARDS)
    b = _round(ZIMBABWE, [["JH", "KH"], ["5S", "9S"], ["5D", "9D"], ["5C", "9C"]], "3H")
    b.apply(Play((Card.parse("JH"),), None, Declare.BOUNCE))  # Cy moves, then back
    mine = v.render_table(view_of(b, 3), NAMES, Look(ascii=True), round_number=1)
    assert "Bounce: play turns back after your turn." in mine
    theirs = v.render_table(view_of(b, 0), NAMES, Look(ascii=True), round_number=1)
    assert "Bounce: play turns back after Cy's turn." in theirs
    assert Speaker(NAMES).note(Note.of(CoachCode.LIMIT, limit=1)) == (
        "Coach: that was the draw limit (1 card a turn) — nothing fits, so pass (p).")
