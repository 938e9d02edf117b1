"""The rule table in words: a ruleset in one line (:func:`describe_rules`) and its
changes from the preset (:func:`describe_changes`), what each card does under a preset,
for the short rules, the rules page, the table's status lines and the help (RULES.md §2,
§5, §7, §11). Light to import (no engine): ``p2p8s rules`` uses it.

Everything is read from :class:`~p2p8s.ruletable.RuleTable` (the card rules and the
preset's flags), so a rule is written down once, in the table.

>>> from p2p8s.rules import Ruleset, default_target
>>> values_text(Ruleset().rule_table)
'8 = 50    2, Q, A = 20    J, K = 10    3-7, 9, T = face value'
>>> effect_lines(Ruleset.for_preset("wildcards"), 4)[0][:48]
'- 2: adds 2 to the draw penalty; Q♠: adds 5. Fac'
"""

from __future__ import annotations

from collections.abc import Callable

from p2p8s.cards import ALL_CARDS, JOKERS, Card, Rank, Suit
from p2p8s.cli.look import Look
from p2p8s.cli.words import PLAIN, Speaker
from p2p8s.cli.words.phrases import article, either, rank_name
from p2p8s.rules import Ruleset, default_target
from p2p8s.ruletable import CardRule, Declare, RuleTable

#: The preset's name as a ruleset's one-liner starts (RULES.md §11).
_PRESET_WORDS = {"table": "table rules", "classic": "classic", "countdown": "countdown",
                 "wildcards": "wild cards", "zimbabwe": "zimbabwe"}


def _multi(rules: Ruleset, say: Callable[..., str]) -> str:
    return say("multi-play") if rules.multi_play else say("one card a turn")


def _draw(rules: Ruleset, say: Callable[..., str]) -> str:
    return (say("draw limit {n}", n=rules.draw_limit) if rules.draw_limit
            else say("draw until playable"))


def describe_rules(rules: Ruleset, speaker: Speaker = PLAIN) -> str:
    """The ruleset in one line, for a table card, a lobby, a round's header or a log
    report (its options as RULES.md §2 names them).

    >>> describe_rules(Ruleset())
    'table rules, multi-play, draw limit 3'
    >>> describe_rules(Ruleset.classic(draw_limit=0, target=50))
    'classic, multi-play, draw until playable, target 50'
    """
    say = speaker.format  # each phrase through the translation hook
    parts = [say(_PRESET_WORDS[rules.name]), _multi(rules, say), _draw(rules, say)]
    if rules.draw_when_playable:
        parts.append(say("may draw when able to play"))
    if not rules.reshuffle:
        parts.append(say("no reshuffle"))
    if rules.hand_size is not None:
        parts.append(say("hand size {n}", n=rules.hand_size))
    if rules.target is not None and not rules.countdown:
        parts.append(say("target {n}", n=rules.target))
    return ", ".join(parts)


def describe_changes(rules: Ruleset, speaker: Speaker = PLAIN, *,
                     players: int | None = None) -> str:
    """The house rules changed on top of the preset, in one line ("" when none): what a
    joiner reads before sitting down. A target that is the friends' table default for
    ``players`` is no change (R-TARGET-TABLE).

    >>> describe_changes(Ruleset.classic(multi_play=False, reshuffle=False))
    'one card a turn, no reshuffle'
    >>> describe_changes(Ruleset(target=100), players=4)
    ''
    """
    say = speaker.format
    base = Ruleset.for_preset(rules.name)
    parts = []
    if rules.multi_play != base.multi_play:
        parts.append(_multi(rules, say))
    if rules.draw_limit != base.draw_limit:
        parts.append(_draw(rules, say))
    if rules.draw_when_playable != base.draw_when_playable:
        parts.append(say("may draw when able to play") if rules.draw_when_playable
                     else say("no drawing when able to play"))
    if rules.reshuffle != base.reshuffle:
        parts.append(say("reshuffle") if rules.reshuffle else say("no reshuffle"))
    if rules.hand_size is not None:
        parts.append(say("hand size {n}", n=rules.hand_size))
    if rules.target is not None and not rules.countdown and (
            players is None or rules.target != default_target(base, players, solo=False)):
        parts.append(say("target {n}", n=rules.target))
    return ", ".join(parts)


#: What each declaration does (R-WC-SKIP, R-ZW-JACK, R-ZW-PICKPLAY).
DECLARE_MEANS: dict[Declare, str] = {
    Declare.SKIP: "the next player misses a turn",
    Declare.REVERSE: "the direction of play turns",
    Declare.BOUNCE: "the previous player moves once, then you again",
    Declare.NOPICK: "the taker may not pick and play",
}


def _ace_high(rank: Rank) -> int:
    return 14 if rank == Rank.ACE else int(rank)


def ranks_with(table: RuleTable, has: Callable[[CardRule], object]) -> list[Rank]:
    """The ranks whose every card ``has`` something, the ace high (single cards and
    jokers aside)."""
    return sorted((r for r in Rank if all(has(table.rule(Card.of(r, s))) for s in Suit)),
                  key=_ace_high)


def singles_with(table: RuleTable, has: Callable[[CardRule], object]) -> list[Card]:
    """The French cards that ``has`` something while their rank does not (the Q♠)."""
    ranks = set(ranks_with(table, has))
    return [c for c in ALL_CARDS if has(table.rule(c)) and c.rank not in ranks]


def jokers_with(table: RuleTable, has: Callable[[CardRule], object]) -> bool:
    """True if the table's jokers ``have`` something (R-ZW-DECK)."""
    return table.jokers and all(has(table.rule(j)) for j in JOKERS)


def values_text(table: RuleTable) -> str:
    """``8 = 50    2, Q, A = 20    J, K = 10    3-7, 9, T = face value`` (R-PTS-*,
    R-ZW-SCORE; a joker's value first when the deck has them)."""
    groups: dict[int, list[str]] = {}
    face: list[Rank] = []
    for r in sorted(Rank, key=_ace_high):
        value = table.value(Card.of(r, Suit.CLUBS))
        if Rank.TWO <= r <= Rank.TEN and value == int(r):
            face.append(r)
        else:
            groups.setdefault(value, []).append(r.letter)
    if table.jokers:
        groups.setdefault(table.value(JOKERS[0]), []).insert(0, "joker")
    parts = [f"{', '.join(groups[v])} = {v}" for v in sorted(groups, reverse=True)]
    runs: list[list[Rank]] = []
    for r in face:
        if runs and int(r) == int(runs[-1][-1]) + 1:
            runs[-1].append(r)
        else:
            runs.append([r])
    faces = [f"{run[0].letter}-{run[-1].letter}" if len(run) >= 3 else
             ", ".join(x.letter for x in run) for run in runs]
    return "    ".join([*parts, ", ".join(faces) + " = face value"])


def counter_words(rules: Ruleset, look: Look) -> str:
    """What passes a penalty on (R-COUNTER, R-WC-PENALTY, R-ZW-PENALTY): ``a 2``,
    ``a 2 or Q♠``, ``a 2 or a joker``.

    >>> counter_words(Ruleset(), Look(ascii=True))
    'a 2'
    """
    table = rules.rule_table

    def has(c: CardRule) -> bool:
        return c.penalty > 0

    words = [article(rank_name(r)) if r in (Rank.ACE, Rank.EIGHT) else f"a {r.letter}"
             for r in ranks_with(table, has)]
    words += [look.card(c) for c in singles_with(table, has)]
    if jokers_with(table, has):
        words.append("a joker")
    return either(words) if words else "a penalty card"


def penalty_else(rules: Ruleset) -> str:
    """The other ways out of a penalty: ``, an A to block it, l for the lucky card``
    (R-ZW-PENALTY, R-ZW-LUCKY); "" for table rules."""
    table = rules.rule_table
    text = "".join(f", {'an' if r in (Rank.ACE, Rank.EIGHT) else 'a'} {r.letter} to block it"
                   for r in ranks_with(table, lambda c: c.block))
    return text + (", l for the lucky card" if table.lucky else "")


def _letters(ranks: list[Rank]) -> str:
    return either([r.letter for r in ranks], "and")


def effect_lines(rules: Ruleset, players: int) -> list[str]:
    """The card effects of a §11 preset (wild cards, zimbabwe) as short rule lines,
    each starting ``- ``; ``[]`` for a preset without them. Read from the rule table
    (R-WC-*, R-ZW-*)."""
    table = rules.rule_table
    if not (table.counter_match or table.skip_counters or table.jokers
            or any(table.declarations(c) for c in ALL_CARDS)):
        return []
    look = Look(ascii=False)
    out: list[str] = []
    pens = [f"{r.letter}: adds {table.rule(Card.of(r, Suit.CLUBS)).penalty}"
            for r in ranks_with(table, lambda c: c.penalty)]
    pens += [f"{look.card(c)}: adds {table.rule(c).penalty}"
             for c in singles_with(table, lambda c: c.penalty)]
    if jokers_with(table, lambda c: c.penalty):
        pens.append(f"a joker ({', '.join(str(j) for j in JOKERS[:2])}): adds "
                    f"{table.rule(JOKERS[0]).penalty} and fits on any card")
    if pens:
        first, *rest = pens
        text = f"- {first} to the draw penalty"
        text += "".join(f"; {p}" for p in rest) + "."
        if table.counter_match:
            singles = singles_with(table, lambda c: c.penalty)
            shown = ", ".join(f"2 on 2, 2{Suit.SPADES.glyph} on {look.card(c)}, "
                              f"{look.card(c)} on 2{Suit.SPADES.glyph}" for c in singles)
            text += (" Facing a penalty play one that also fits the top card"
                     + (f" ({shown})" if shown else "") + ", or take it all.")
        else:
            text += (f" Facing a penalty play {counter_words(rules, look)} to pass it on"
                     f"{penalty_else(rules)}, or take it all.")
        out.append(text)
    skips = ranks_with(table, lambda c: c.skip and not c.choices)
    if skips:
        if table.skip_counters:
            out.append(f"- {_letters(skips)}: the next player misses a turn unless they play "
                       f"a {_letters(skips)} of their own, which passes the skip on.")
        else:
            out.append(f"- {_letters(skips)}: the next player misses a turn.")
    for r in ranks_with(table, lambda c: bool(c.choices)):
        choices = table.declarations(Card.of(r, Suit.CLUBS))
        named = " or ".join(f"{d.value} ({DECLARE_MEANS[d]})" for d in choices)
        out.append(f"- {r.letter}: declare {named} with it, like an 8's suit "
                   f"(type e.g. {r.letter.lower()}h {choices[-1].value}).")
    blocks = ranks_with(table, lambda c: c.block)
    if blocks:
        out.append(f"- {_letters(blocks)}: played on a pending penalty it blocks it; the "
                   "next player plays on it.")
    if table.lucky:
        out.append("- Facing a penalty you may turn the lucky card (l): an ace blocks, a 2 "
                   "or joker is played and passes the penalty on, anything else you take "
                   "with the penalty.")
    if table.pick_play:
        out.append("- After taking a penalty you may still play one card, unless the last "
                   "penalty card came with nopick (type e.g. 2s nopick).")
    if table.one_wild_per_play or not table.wild_on_wild_declares:
        out.append("- One 8 per turn; an 8 on a declared 8 declares nothing.")
    if table.in_the_air:
        out.append("- You go out only with a regular card on a regular card; otherwise you "
                   "are in the air: no cards, still in, and you draw at your next turn.")
    if players == 2 and any(table.rule(c).reverse or table.declarations(c)
                            for c in ALL_CARDS):
        out.append("- With 2 players a skip, reverse or bounce means you move again.")
    return out
