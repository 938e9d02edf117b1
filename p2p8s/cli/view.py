"""Line-mode rendering: pure functions from what a seat sees to lines of text.

Nothing here reads input, writes output or looks at the terminal; a :class:`Look`
says whether to use colour (ANSI) and suit glyphs. The solo game and the LAN table
client both call :func:`render_table` with a :class:`~p2p8s.bots.base.View` and the
seat names. Every mark that colour carries is also carried by a character (``*`` for
a playable card, ``>`` for the seat on turn), so the text works without colour and
with a screen reader.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from p2p8s.bots.base import View
from p2p8s.cards import Card, Suit, sort_hand
from p2p8s.cli.look import SUIT_NAMES as SUIT_NAMES
from p2p8s.cli.look import Look as Look
from p2p8s.cli.words.cardrules import (
    counter_words,
    effect_lines,
    penalty_else,
    ranks_with,
    values_text,
)
from p2p8s.cli.words.phrases import either
from p2p8s.cli.words.rules import describe_rules
from p2p8s.engine import Action, Draw, EndedBy, Lucky, Play, Take
from p2p8s.match import Match, RoundResult
from p2p8s.rules import Ruleset, card_value
from p2p8s.ruletable import Scoring


def numbered_hand(hand: Iterable[Card]) -> list[Card]:
    """The hand in display order (by suit, then rank); card ``n`` is item ``n - 1``."""
    return sort_hand(hand)


def _seat(names: Sequence[str], seat: int) -> str:
    return names[seat] if 0 <= seat < len(names) else f"seat {seat}"


def render_round_log(view: View, names: Sequence[str], look: Look, *, number: int) -> list[str]:
    """The answer to ``log``: every turn of round ``number`` so far, indented."""
    from p2p8s.cli.words import Speaker, narration  # (words draws cards with a Look)

    lines = narration.turn_lines(view.log, Speaker(names, view.seat, look), rules=view.rules)
    return [f"Round {number} so far:",
            *(["  (no moves yet)"] if not lines else ["  " + x for x in lines])]


def render_table(view: View, names: Sequence[str], look: Look, *, round_number: int,
                 recent: int = 8) -> list[str]:
    """The table as ``view.seat`` sees it: seats, turn, direction, top card and suit,
    penalty, stock, the last ``recent`` turns. The hand is :func:`render_hand`."""
    rules = view.rules
    out: list[str] = []
    head = f"Round {round_number} · {describe_rules(rules)}"
    if not rules.countdown and view.target and rules.target is None:
        head += f" · target {view.target}"
    out.append(look.paint(f"── {head} ──", "cyan"))
    width = max(len(n) for n in names)
    for s in range(view.players):
        mark = ">" if s == view.turn else " "
        n = view.hand_sizes[s]
        cards = f"{n:2d} card" + (" " if n == 1 else "s")
        if rules.countdown and view.numbers:
            score = f"number {view.numbers[s]}"
        elif view.totals:
            score = f"{view.totals[s]:3d} pts"
        else:
            score = ""
        extra = "  dealer" if s == view.dealer else ""
        line = f"{mark} {_seat(names, s):<{width}}  {cards}  {score}{extra}".rstrip()
        out.append(look.paint(line, "bold") if s == view.turn else line)
    order = [(view.seat + view.direction * k) % view.players for k in range(view.players + 1)]
    way = "clockwise" if view.direction == 1 else "counter-clockwise"
    out.append(f"Play goes {way}: " + f" {look.arrow} ".join(_seat(names, s) for s in order))
    whose = "Your turn." if view.turn == view.seat else f"{_seat(names, view.turn)}'s turn."
    top = f"Top card: {look.card(view.top)}"
    if view.declared:
        top += f" · declared suit: {look.suit(view.suit)}"
    else:
        top += f" · suit: {look.suit(view.suit)}"
    out.append(f"{top} · stock: {view.stock_size} · {whose}")
    table = rules.rule_table
    if rules.action_cards:
        if view.pending_draw:
            out.append(look.paint(
                f"Draw penalty: {view.pending_draw} cards waiting — play "
                f"{counter_words(rules, look)} to pass it on{penalty_else(rules)}, "
                "or take them.", "yellow"))
        else:
            out.append("Draw penalty: none.")
    if view.pending_skip:  # R-ZW-SEVEN
        who = "you" if view.turn == view.seat else _seat(names, view.turn)
        skips = either([r.letter for r in ranks_with(table, lambda c: c.skip)])
        out.append(look.paint(f"Skip waiting for {who}: play a {skips} to pass it on, or "
                              "miss the turn (p).", "yellow"))
    if view.bounce_seat is not None:  # R-ZW-JACK
        whose = ("your" if view.bounce_seat == view.seat
                 else f"{_seat(names, view.bounce_seat)}'s")
        out.append(f"Bounce: play turns back after {whose} turn.")
    air = [s for s, up in enumerate(view.air) if up]
    if air:  # R-ZW-OUT
        out.append("In the air (no cards, still in the round; they draw at their turn): "
                   + ", ".join(_seat(names, s) for s in air) + ".")
    if rules.countdown and view.numbers:
        w = view.wild[view.seat]
        plural = {1: "aces", 11: "jacks", 12: "queens", 13: "kings"}.get(w, f"{w}s")
        out.append(f"Your number is {w}: {plural} are wild for you.")
    from p2p8s.cli.words import Speaker, narration  # (words draws cards with a Look)

    moves = narration.turn_lines(view.log, Speaker(names, view.seat, look), rules=view.rules,
                                 last=recent)
    out.append("Last moves:" if moves else "Last moves: none yet — the round just started.")
    out.extend("  " + m for m in moves)
    return out


def playable_cards(view: View, legal: Sequence[Action]) -> set[Card]:
    """Cards that can start a play now (the first cards of the legal plays)."""
    return {a.cards[0] for a in legal if isinstance(a, Play)}


def render_hand(hand: Sequence[Card], playable: set[Card], look: Look, *,
                title: str = "Your hand") -> list[str]:
    """The hand numbered in :func:`numbered_hand` order, one line per suit; playable
    cards carry ``*`` (and bold)."""
    cards = numbered_hand(hand)
    note = "  (* = playable)" if playable else ""
    out = [f"{title} ({len(cards)} card{'' if len(cards) == 1 else 's'}){note}:"]
    for suit in Suit:
        items = []
        for i, c in enumerate(cards, 1):
            if c.suit == suit:
                ok = c in playable
                items.append(f"{i:>2} {look.card(c, playable=ok)}{'*' if ok else ' '}")
        if items:
            label = f"{SUIT_NAMES[suit]:<8}"
            out.append(f"  {label} " + "  ".join(items).rstrip())
    jokers = [f"{i:>2} {look.card(c, playable=c in playable)}{'*' if c in playable else ' '}"
              for i, c in enumerate(cards, 1) if c.suit is None]
    if jokers:  # R-ZW-DECK: jokers have no suit
        out.append(f"  {'jokers':<8} " + "  ".join(jokers).rstrip())
    return out


def action_text(action: Action, look: Look) -> str:
    """An action in words: ``play Q♠ Q♥``, ``play 8♠ and declare hearts ♥``, ``draw``…"""
    if isinstance(action, Play):
        text = "play " + look.cards(action.cards)
        if action.suit is not None:
            text += f" and declare {look.suit(action.suit)}"
        if action.declare is not None:
            text += f" and declare {action.declare.value}"
        return text
    if isinstance(action, Take):
        return "take the draw penalty"
    if isinstance(action, Draw):
        return "draw a card"
    if isinstance(action, Lucky):
        return "turn the lucky card"
    return "pass"


def action_keys(action: Action, hand: Sequence[Card]) -> str:
    """What to type for ``action`` given the displayed hand: ``3 5``, ``4 h``, ``d``…

    >>> from p2p8s.cards import parse_cards
    >>> action_keys(Play(tuple(parse_cards(["8S"])), Suit.HEARTS), parse_cards(["8S", "2C"]))
    '2 h'
    """
    if isinstance(action, Play):
        order = numbered_hand(hand)
        used: list[int] = []
        for c in action.cards:
            i = next(i for i, x in enumerate(order) if x == c and i not in used)
            used.append(i)
        text = " ".join(str(i + 1) for i in used)
        if action.suit is not None:
            text += " " + action.suit.letter.lower()
        if action.declare is not None:
            text += " " + action.declare.value
        return text
    if isinstance(action, Take):
        return "t"
    if isinstance(action, Draw):
        return "d"
    if isinstance(action, Lucky):
        return "l"
    return "p"


def render_round_end(result: RoundResult, names: Sequence[str], match: Match,
                     look: Look) -> list[str]:
    """All hands face up, the round's points and the match table."""
    out: list[str] = []
    if result.ended_by is EndedBy.OUT and result.winner is not None:
        who = _seat(names, result.winner)
        headline = f"Round {result.number} is over: {who} went out."
    else:
        headline = f"Round {result.number} is over: nobody can move, the round is blocked."
    if result.loser is not None:  # R-ZW-SCORE
        loser = _seat(names, result.loser)
        holds = "hold" if loser == "You" else "holds"  # the local seat is named "You"
        headline += f" {loser} {holds} the highest hand: the round's loser."
    out.append(look.paint(f"══ {headline} ══", "bold"))
    rules = match.rules
    width = max(len(n) for n in names)
    out.append("Hands, face up:")
    for s, hand in enumerate(result.hands):
        cards = [Card.parse(c) for c in hand]
        shown = look.cards(numbered_hand(cards)) if cards else "— went out"
        bits = []
        if not rules.countdown:
            if cards:
                bits.append(f"hand value {sum(card_value(c, rules) for c in cards)}")
            if result.points[s] or (cards and rules.action_cards):
                bits.append(f"round points {result.points[s]:+d}")
        tail = ("  " + ", ".join(bits)) if bits else ""
        out.append(f"  {_seat(names, s):<{width}}  {shown}{tail}")
    out.extend(render_scores(match, names, look))
    return out


def render_scores(match: Match, names: Sequence[str], look: Look) -> list[str]:
    """The match table: every round's points and the totals (or countdown numbers)."""
    rules = match.rules
    width = max(len(n) for n in names)
    if rules.countdown:
        out = ["Match (countdown: the first to reach 0 wins):"]
        for s in match.standings():
            out.append(f"  {_seat(names, s):<{width}}  number {match.numbers[s]}")
        return out
    goal = ("lowest total wins once someone reaches it"
            if rules.rule_table.scoring is Scoring.HAND else "the first to reach it wins")
    out = [f"Match table (target {match.target}, {goal}):"]
    shown = match.results[-8:]
    head = f"  {'':<{width}}" + "".join(f"{'R' + str(r.number):>6}" for r in shown)
    out.append(head + f"{'total':>7}")
    for s in match.standings():
        row = f"  {_seat(names, s):<{width}}" + "".join(f"{r.points[s]:>6}" for r in shown)
        out.append(row + f"{match.totals[s]:>7}")
    if len(match.results) > len(shown):
        out.append(f"  (only the last {len(shown)} rounds are shown)")
    return out


def render_match_end(match: Match, names: Sequence[str], look: Look, *, me: int) -> list[str]:
    """The winner and the final standings."""
    winner = match.winner
    if winner is None:
        return []
    if winner == me:
        line = "You win the match!"
    else:
        line = f"{_seat(names, winner)} wins the match."
    if not match.rules.countdown:
        line += f" Final total: {match.totals[winner]} points."
    out = [look.paint(f"★ {line}" if not look.ascii else f"* {line}", "bold", "green")]
    if winner != me:
        place = match.standings().index(me) + 1
        nth = {1: "1st", 2: "2nd", 3: "3rd"}.get(place, f"{place}th")
        score = ("" if match.rules.countdown
                 else f" with {match.totals[me]} points")
        out.append(f"You finished {nth} of {match.players}{score}.")
    return out


HELP_LINES = (
    "Commands:",
    "  3        play card 3 of your hand (numbers as shown)",
    "  3 5      play several cards of the same rank; the last one sets the suit",
    "  4 h      play an 8 and declare a suit: c d h s (or you will be asked)",
    "  QS       cards can also be named: rank + suit, like QS, 10h, 8c",
    "  d        draw a card            p   pass (keep a drawn card)",
    "  t        take the draw penalty",
    "  hint     the expert's suggestion   rules  the rules in short",
    "  score    the match table           log    every move of this round",
    "  help     this list                 quit   save and leave (resume with p2p8s play)",
)


def help_lines(rules: Ruleset) -> tuple[str, ...]:
    """:data:`HELP_LINES` for the ruleset in play: no multi-play line with it off, no
    take line without penalties, the wild rank as the ruleset has it, the declared
    choices and the lucky card of RULES.md §11."""
    table = rules.rule_table
    out: list[str] = []
    for line in HELP_LINES:
        if line.startswith("  3 5") and not rules.multi_play:
            continue
        if line.startswith("  4 h") and rules.countdown:
            line = ("  4 h      play your wild card and declare a suit: c d h s (or you will "
                    "be asked)")
        if line.startswith("  t "):
            if not rules.action_cards or not any(table.rule(c).penalty
                                                  for c in table.deck_cards):
                continue
            if table.lucky:
                line = "  t        take the draw penalty    l   turn the lucky card"
        out.append(line)
        if line.startswith("  4 h"):
            choosers = [c for c in table.deck_cards if table.declarations(c)]
            if choosers:
                words = sorted({d.value for c in choosers for d in table.declarations(c)})
                example = min(words, key=len)  # the column holds 6 letters and a space
                out.append(f"  3 {example + ' ':<7}play card 3 and declare {either(words)} "
                           "(or you will be asked)")
    return tuple(out)


def rules_lines(rules: Ruleset, players: int) -> list[str]:
    """The rules in short, for the ruleset being played (RULES.md in our own words)."""
    out = [
        "Rules in short: " + describe_rules(rules) + ".",
        "- Play a card of the active suit or the top card's rank. 8s are wild: play one on "
        "anything and declare the suit the next player must follow.",
    ]
    if rules.countdown:
        out[1] = ("- Play a card of the active suit or the top card's rank. Your number is "
                  "your wild rank; declare a suit when you play it.")
    n = rules.draw_limit
    limit = f"up to {n} card{'' if n == 1 else 's'}" if n else "until one fits"
    if rules.draw_when_playable:  # R-DRAW-ANY
        out.append(f"- You may draw even when a card fits ({limit}); after each draw play "
                   "any card that fits, draw again or pass.")
    else:
        out.append(f"- Nothing fits? Draw ({limit}). A drawn card that fits may be played "
                   "at once; otherwise pass.")
    if rules.multi_play:
        out.append("- Several cards of one rank may go together: the first must fit, the "
                   "last sets the suit.")
    variant = effect_lines(rules, players)
    if variant:
        out.extend(variant)
        table = rules.rule_table
        values = values_text(table)
        if table.scoring is Scoring.HAND:
            out.append(f"- When someone goes out, everyone else scores their hand: {values}. "
                       "Lowest total wins." + (" The highest hand is the round's loser."
                                               if table.loser else ""))
        else:
            out.append(f"- Whoever goes out collects the others' hands: {values}. First to "
                       "the target wins.")
    elif rules.action_cards:
        out.append("- 2: the next player draws 2 unless they play a 2 too (the penalty "
                   "grows by 2). Only a 2 counters, not even an 8.")
        ace = ("an ace works like a queen (you move again)" if players == 2
               else "an ace reverses the direction")
        out.append(f"- Q: the next player misses a turn. A: {ace}.")
        out.append("- When someone goes out, everyone else scores their hand: 8 = 50, "
                   "2/Q/A = 20, J/K = 10, others face value. Lowest total wins.")
    elif rules.countdown:
        out.append("- Everyone starts at 8 (cards dealt and wild rank). Go out to count "
                   "down by 1; whoever reaches 0 wins.")
    else:
        out.append("- Whoever goes out collects the others' hands: 8 = 50, J/Q/K = 10, "
                   "A = 1, others face value. First to the target wins.")
    out.append("- The round ends the moment someone plays their last card. No undo."
               if not rules.rule_table.in_the_air else "- No undo.")
    out.append("The full rules: run `p2p8s rules` in another terminal.")
    return out
