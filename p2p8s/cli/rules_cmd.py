"""``p2p8s rules``: the rules of the game in a page (written from RULES.md)."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence

import click

from p2p8s.cards import Card, Rank, Suit, parse_cards, standard_deck
from p2p8s.cli.house import PRESETS, HouseChoice
from p2p8s.cli.look import Look
from p2p8s.cli.words.cardrules import describe_rules, effect_lines, values_text
from p2p8s.cli.words.phrases import article, either, rank_name
from p2p8s.rules import Ruleset
from p2p8s.ruletable import CardRule, RuleTable, Scoring

_COMMON = """\
CRAZY EIGHTS — {title}

Cards and seats
  2 to 7 players, {deck}; with 6 or 7 players two decks are
  mixed, so identical cards can appear. Cards are written rank+suit: ranks
  A 2 3 4 5 6 7 8 9 T J Q K (10 works for T), suits C D H S — 8S, TD, QH.

The deal
  The first dealer is drawn at random; the deal moves one seat left every round.
  Cards are dealt one at a time from the top of the stock, starting left of the dealer.
  {hands}
  The next card is turned up to start the discard pile. {starter}
  such a card is put back into the middle of the stock and the next one is turned.
  Play starts left of the dealer and goes clockwise.

Your turn
  Play a card of the active suit or of the top card's rank, or any 8. Whoever plays an
  8 names the suit to follow (any suit, the 8's own too); after that only the named
  suit or another 8 can be played.
{multi}{draw}  When the stock runs out, the discards under the top card are shuffled into a new
  stock (unless reshuffling is off: then the stock stays empty for the round). With
  nothing to draw and nothing to play, you pass.
  There is no undo: an action, once made, is final.
{actions}
End of the round
  The round ends the moment someone plays their last card, whatever it is: a last 8
  names no suit, a last action card has no effect, pending penalties lapse.
  If every player in turn passes without being able to draw, the round is blocked.
{scoring}"""

_MULTI = """\
  Multi-play ({on}): after a playable first card you may add any cards of the
  same rank; the last card sets the suit (with 8s: one suit named after the last 8;
  the order of several 8s makes no difference).
"""
_NO_MULTI = "  Multi-play is off in this game: one card a turn.\n"
_DRAW = """\
  Nothing to play? Draw one card at a time. A playable drawn card may be played at
  once (it starts the play; same-rank cards from your hand may follow it) or kept,
  and then you pass. After drawing, only the drawn card may start a play. An unplayable
  drawn card means you draw again, up to the draw limit (3 cards by default; 0 means
  until one is playable or nothing is left); then you pass. You may not draw while you
  hold a playable card, unless the table allows it ("draw when playable").
"""
_DRAW_ANY = ("Drawing is a choice: you may draw one card at a time even when a card fits. "
             "After {each} you may play any card that fits (the drawn one or another), "
             "{again}or pass.")

_PENALTY = """\
  {r}   the next player must play {a_r} (several {r}s with multi-play, +{n} each) and pass the
      growing penalty on, or take it: draw all pending cards and end the turn. Nothing
      else is allowed — no {w}, no ordinary draw. After a taken penalty the {r} stays on
      top and the next player plays on it as usual.
"""
_SKIP = "  {r}   the next player misses a turn.\n"
_REVERSE = ("  {r}   reverses the direction of play; with 2 players {a_name} works like "
            "{a_skip}.\n")
_SEVERAL = """\
  Several at once count one each: two {skips} skip two players, two {reverses} keep the
  direction, and with 2 players two {skips} or two {reverses} give the turn to the opponent.
"""

_TABLE_SCORING = """
Scoring (table rules)
  At the end of a round, blocked or not, everyone adds the value of the cards left in
  their hand to their total:
      {values}
  Example: 8H QS AD KC 5D TS = {example}.
  The match target is {per_seat} points per seat in a solo game ({two} for 2 players ... {seven} for
  7); at a friends' table the host picks {table} (default) or 200. Once any total reaches
  the target, the lowest total wins; if the lowest is shared, another round is played.

Defaults: action cards on, multi-play on, draw limit 3, no drawing while able to play,
reshuffle on. `p2p8s rules --classic` shows the classic game.
"""

_CLASSIC_SCORING = """
Scoring (classic)
  There are no action cards: {ordinary} are ordinary cards.
  The player who goes out collects the value of every card left in the other hands:
      {values}
  Example: 8H QS AD KC 5D TS = {example}.
  A blocked round goes to the lowest hand, who collects the difference between each
  other hand and their own; players sharing the lowest value each collect those
  differences (hands 12, 30, 12: both 12s collect 18).
  The first player to reach {target} points (adjustable) wins; if several reach it in the
  same round the highest total wins, and a tie at the top plays another round.

Defaults: multi-play on, draw limit 3, no drawing while able to play, reshuffle on.
"""

_COUNTDOWN = """
Countdown variant (optional)
  Everyone starts at 8. Your number is both how many cards you are dealt and your own
  wild rank (8: eights are wild for you; 1: aces). Action cards are off. After someone
  names a suit, only that suit or your own wild rank can be played. Going out lowers
  your number by one; whoever reaches 0 wins the match. No points are counted.
"""



#: R-HAND in words, per preset.
_HANDS = {"table": "Everyone gets 7 cards; with 5 to 7 players 5 each.",
          "classic": "Two players get 7 cards each, three or more players 5 each.",
          "wildcards": "Two players get 7 cards each, three or more players 5 each.",
          "zimbabwe": "Everyone gets 7 cards (the host may deal 5 to 8: --hand-size)."}

_VARIANT = """
The cards of {title} (RULES.md §11)
  Where they differ from the turn and the end of the round above, these win.
{lines}
Scoring ({title})
  {scoring}
      {values}
{target}

{defaults}
"""

_SCORING = {
    Scoring.HAND: ("At the end of a round everyone adds the value of the cards left in "
                   "their hand to\n  their total:"),
    Scoring.COLLECT: ("The player who goes out collects the value of every card left in the "
                      "other\n  hands:"),
}
_WINNER = {
    Scoring.HAND: "Once any total reaches it, the lowest total wins.",
    Scoring.COLLECT: "The first to reach it wins; a tie at the top plays another round.",
}


def _variant_text(rules: Ruleset, title: str) -> str:
    """The page of a §11 preset (wild cards, zimbabwe): the common rules, then its
    cards and scoring, all read from its rule table."""
    table = rules.rule_table
    lines = "\n".join(textwrap.fill(line[2:], width=88, initial_indent="  ",
                                     subsequent_indent="    ")
                       for line in effect_lines(rules, 4))
    target = table.solo_target
    goal = (f"{target.per_seat} points per seat in a solo game" if target.per_seat
            else f"{target.points} points")
    if table.table_target != target:
        goal += f", {table.table_target.of(2)} at a friends' table"
    winner = _WINNER[table.scoring] + (" The highest hand is the round's loser."
                                       if table.loser else "")
    defaults = (f"Defaults: {describe_rules(rules)}. Drawing is a choice: after each draw "
                "you may play any card that fits (the drawn one or another), draw again "
                "while under the draw limit, or pass. Every single rule can be changed on "
                "top of the preset (see p2p8s(1), HOUSE RULES).")
    variant = _VARIANT.format(
        title=title, lines=lines, scoring=_SCORING[table.scoring],
        values=values_text(table),
        target=textwrap.fill(f"The match target is {goal}. {winner}", width=88,
                             initial_indent="  ", subsequent_indent="  "),
        defaults=textwrap.fill(defaults, width=88))
    page = _COMMON.format(title=title, hands=_HANDS[table.name], starter=_starter(table),
                          actions="", scoring=variant, **_turn(rules))
    return "\n".join(line.rstrip() for line in page.split("\n"))
_EXAMPLE = parse_cards(["8H", "QS", "AD", "KC", "5D", "TS"])


def _ace_high(rank: Rank) -> int:
    return 14 if rank == Rank.ACE else int(rank)


def _ranks(table: RuleTable, has: Callable[[CardRule], object]) -> list[Rank]:
    """The ranks whose every card ``has`` something, the ace high."""
    return sorted((r for r in Rank if all(has(table.rule(Card.of(r, s))) for s in Suit)),
                  key=_ace_high)


def _letters(ranks: Sequence[Rank], joint: str = "or") -> str:
    return either([r.letter for r in ranks], joint) if ranks else ""


def _starter(table: RuleTable) -> str:
    """``It may not be an 8, 2, Q or A:`` (R-STARTER)."""
    wild = Rank(table.wild_rank)
    banned = [wild, *(r for r in _ranks(table, lambda c: not c.starter) if r != wild)]
    a = article(rank_name(banned[0])).split()[0]
    single = [f"the {Look().card(c)}" for c in table.deck_cards
              if c.rank and c.rank not in banned and not table.rule(c).starter]
    jokers = ["a joker"] if any(c.joker and not table.rule(c).starter
                                for c in table.deck_cards) else []
    items = [r.letter for r in banned] + single + jokers
    return ("\n  " if len(items) > 4 else "") + f"It may not be {a} {either(items)}:"


def _turn(rules: Ruleset) -> dict[str, str]:
    """The deck, multi-play and drawing paragraphs of the page for ``rules`` (R-DECK,
    R-ZW-DECK, R-MULTI, R-DRAW, R-DRAW-ANY); table rules and the classic game keep
    the defaults' words."""
    jokers = sum(c.joker for c in standard_deck(1, jokers=rules.rule_table.jokers))
    deck = (f"one 52-card deck plus {jokers} jokers, written\n  X1, X2 (X3, X4 with two decks)"
            if jokers else "one 52-card deck (no jokers)")
    preset = rules.rule_table.name in ("wildcards", "zimbabwe")
    multi = (_MULTI.format(on="on in this game" if preset else "on by default")
             if rules.multi_play else _NO_MULTI)
    if not rules.draw_when_playable:
        return {"deck": deck, "multi": multi, "draw": _DRAW}
    limit = rules.draw_limit
    again = ("draw again while under the draw limit "
             f"({limit} cards a turn), " if limit > 1 else
             "draw again (no draw limit: until a card fits or nothing is left), " if not limit
             else "")
    text = _DRAW_ANY.format(each="each draw" if limit != 1 else "the draw (one a turn)",
                            again=again)
    draw = textwrap.fill(text, width=88, initial_indent="  ", subsequent_indent="  ") + "\n"
    return {"deck": deck, "multi": multi, "draw": draw}


def _actions(table: RuleTable) -> str:
    """The action cards section (R-TWO, R-QUEEN, R-ACE) from the rule table."""
    penalties = _ranks(table, lambda c: c.penalty)
    skips = _ranks(table, lambda c: c.skip)
    reverses = _ranks(table, lambda c: c.reverse)
    if not (penalties or skips or reverses):
        return ""
    wild = Rank(table.wild_rank).letter
    lines = [_PENALTY.format(r=r.letter, a_r=article(rank_name(r)), w=wild,
                             n=table.rule(Card.of(r, Suit.CLUBS)).penalty) for r in penalties]
    lines += [_SKIP.format(r=r.letter) for r in skips]
    like = article(rank_name(skips[-1])) if skips else "a skip"
    lines += [_REVERSE.format(r=r.letter, a_name=article(rank_name(r)), a_skip=like)
              for r in reverses]
    if skips and reverses:
        lines.append(_SEVERAL.format(skips=plural(skips[-1]), reverses=plural(reverses[-1])))
    return "\nAction cards (table rules)\n" + "".join(lines)


def plural(rank: Rank) -> str:
    """``queens``, ``aces``, ``2s``."""
    return rank_name(rank) + "s"


def rules_text(*, classic: bool = False, preset: str | None = None) -> str:
    """The rules page: table rules (default), the classic game (``classic`` or
    ``preset="classic"``; ``"countdown"`` too: it is played on the classic game) plus
    countdown, or a §11 preset (``"wildcards"``, ``"zimbabwe"``), written from the
    preset's rule table."""
    name = preset or ("classic" if classic else "table")
    if name in ("wildcards", "zimbabwe"):
        return _variant_text(Ruleset.for_preset(name),
                             "wild cards" if name == "wildcards" else "the zimbabwe game")
    if name in ("classic", "countdown"):
        table = Ruleset.classic().rule_table
        scoring = _CLASSIC_SCORING.format(
            ordinary=_letters(_ranks(Ruleset().rule_table, lambda c: c.action), "and"),
            values=values_text(table), example=table.hand_value(_EXAMPLE),
            target=table.table_target.of(2))
        text = _COMMON.format(title="the classic game", hands=_HANDS[table.name],
                              starter=_starter(table), actions=_actions(table),
                              scoring=scoring, **_turn(Ruleset.classic()))
    else:
        table = Ruleset().rule_table
        solo = table.solo_target
        scoring = _TABLE_SCORING.format(
            values=values_text(table), example=table.hand_value(_EXAMPLE), per_seat=solo.per_seat,
            two=solo.of(2), seven=solo.of(7), table=table.table_target.of(2))
        text = _COMMON.format(title="table rules (the default)", hands=_HANDS[table.name],
                              starter=_starter(table), actions=_actions(table),
                              scoring=scoring, **_turn(Ruleset()))
    return text + _COUNTDOWN


@click.command("rules")
@click.option("--rules", "preset", type=click.Choice(PRESETS), default=None,
              help="The rules of this preset (default: table).")
@click.option("--classic", is_flag=True, help="The classic game (same as --rules classic).")
def rules(preset: str | None, classic: bool) -> None:
    """Print the rules of the game (table rules unless --rules or --classic)."""
    chosen = HouseChoice(preset=preset, classic=classic or None).chosen_preset()
    click.echo(rules_text(preset=chosen), nl=False)


COMMANDS = [rules]
