"""The move prompt without the terminal: what a player types and what is said back.

Shared by the solo client (:mod:`p2p8s.cli.play_cmd`) and the friends' table
(:mod:`p2p8s.cli.table_view`); pure functions and small values, no input or output.

- :func:`parse_input` reads an answer at the move prompt: card numbers as shown
  (``3``, ``3 5``), card names (``QS``, ``10h``), a suit to declare (``4 h``, ``4h``),
  ``d``/``p``/``t`` or a command (``hint``, ``help``, ``quit``…, see :func:`word_of`);
- :func:`read_move` turns the answer into a legal action of a :class:`~p2p8s.engine.Round`,
  or says a suit must be asked for first (:class:`NeedSuit`);
- :func:`read_suit` reads the answer at the suit prompt (:data:`SUIT_PROMPT`);
- :func:`move_prompt` names what makes sense now; :func:`sentence`, :func:`drew_line`
  and :func:`hint_line` are the lines said back.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from p2p8s.bots.base import View
from p2p8s.bots.hints import Hint
from p2p8s.cards import Card, Suit
from p2p8s.cli.errors import CliCode
from p2p8s.cli.look import SUIT_NAMES, Look
from p2p8s.cli.view import action_keys, action_text, numbered_hand
from p2p8s.cli.words import Speaker
from p2p8s.cli.words.cardrules import DECLARE_MEANS
from p2p8s.cli.words.phrases import article, either, rank_name
from p2p8s.coach import Coach
from p2p8s.engine import DRAW, LUCKY, PASS, TAKE, Action, Play, Round
from p2p8s.errors import IllegalAction, MalformedInput
from p2p8s.ruletable import Declare

# --------------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True)
class Command:
    """A non-move command typed at the prompt: ``hint``, ``help``, ``rules``…"""

    name: str


@dataclass(frozen=True, slots=True)
class CardChoice:
    """Cards picked from the hand (in the order typed), an optional suit and an
    optional declared choice (``4h reverse``, ``jc bounce``, ``2s nopick``)."""

    cards: tuple[Card, ...]
    suit: Suit | None
    declare: Declare | None = None


@dataclass(frozen=True, slots=True)
class NeedSuit:
    """The typed ``cards`` make a legal wild play once a suit is declared: ask for it
    (:data:`SUIT_PROMPT`), then play ``Play(cards, suit)``."""

    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class NeedChoice:
    """The typed play is legal once its player declares one of ``options`` (RULES.md
    §11: the 4's skip or reverse, the J's reverse or bounce; ``None`` among them: the
    declaration may be left out, as ``nopick``): ask (:func:`choice_prompt`), then play
    ``Play(cards, suit, choice)``."""

    cards: tuple[Card, ...]
    suit: Suit | None
    options: tuple[Declare | None, ...]


@dataclass(frozen=True, slots=True)
class Cancel:
    """The player backed out of the suit prompt (to choose another move)."""


CANCEL = Cancel()

#: The single words understood at the prompt and what they stand for.
WORDS: dict[str, Action | Command] = {
    "d": DRAW, "draw": DRAW, "p": PASS, "pass": PASS, "t": TAKE, "take": TAKE,
    "l": LUCKY, "lucky": LUCKY,
    "hint": Command("hint"), "help": Command("help"), "?": Command("help"),
    "rules": Command("rules"), "score": Command("score"), "scores": Command("score"),
    "log": Command("log"), "q": Command("quit"), "quit": Command("quit"),
    "exit": Command("quit"),
}

#: The declarations typed after a play's cards, in full (``4h reverse``), and the
#: single letters the choice prompt also takes.
DECLARE_WORDS: dict[str, Declare] = {d.value: d for d in Declare}
_DECLARE_LETTERS: dict[str, Declare] = {d.value[0]: d for d in Declare}

#: Answers that back out of the suit prompt.
CANCEL_WORDS = ("cancel", "back")

#: The suit prompt: ``Declare a suit (c clubs, d diamonds, h hearts, s spades; or cancel): ``.
SUIT_PROMPT = ("Declare a suit ("
               + ", ".join(f"{s.letter.lower()} {SUIT_NAMES[s]}" for s in Suit)
               + "; or cancel): ")

#: Said when the answer at the suit prompt is empty (see :func:`suit_retry`).
SUIT_RETRY = "Type c, d, h or s (or cancel to choose another move)."

#: How much of a typed answer is quoted back (longer answers are cut with an ellipsis).
QUOTE_LIMIT = 40

#: Said when a hint is asked for while the player has nothing to decide.
NOTHING_TO_DECIDE = "Nothing to decide right now."


# --------------------------------------------------------------------------- reading


def shorten(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis, for quoting it back.

    >>> shorten("x" * 50, 5)
    'xxxx…'
    """
    return text if len(text) <= limit else text[:limit - 1] + "…"


def quoted(text: str) -> str:
    """A typed word quoted back in an answer: ``'xyz'`` (cut by :func:`shorten`)."""
    return repr(shorten(text))


def number_of(word: str) -> int | None:
    """The card number ``word`` is written as, in ASCII digits only (``²``, ``３`` and
    ``١`` are not numbers here), or None.

    >>> number_of("12"), number_of("²"), number_of("３")
    (12, None, None)
    """
    if word and word.isascii() and word.isdigit():
        return int(word)
    return None


def word_of(text: str) -> Action | Command | None:
    """The action or command one typed word stands for (any case), or None.

    >>> word_of(" Hint "), word_of("d"), word_of("3")
    (Command(name='hint'), Draw(), None)
    """
    return WORDS.get(text.strip().lower())


def parse_suit(text: str) -> Suit | None:
    """The suit ``text`` names (a letter, glyph or name, any case), or None."""
    try:
        return Suit.parse(text)
    except MalformedInput:
        return None


def parse_input(text: str, hand: Sequence[Card]) -> Action | Command | CardChoice:
    """Read one answer at the move prompt; ``hand`` is in display order (card 1 first).

    Raises :class:`~p2p8s.errors.MalformedInput` (a :class:`~p2p8s.cli.errors.CliCode`).

    >>> from p2p8s.cards import parse_cards
    >>> hand = parse_cards(["3C", "8S", "QH"])
    >>> parse_input("2 h", hand)
    CardChoice(cards=(Card.parse('8S'),), suit=<Suit.HEARTS: 2>, declare=None)
    >>> parse_input("qh reverse", hand).declare
    <Declare.REVERSE: 'reverse'>
    >>> parse_input("qh", hand).cards
    (Card.parse('QH'),)
    """
    words = text.replace(",", " ").lower().split()
    if not words:
        raise MalformedInput(CliCode.EMPTY_ANSWER)
    if len(words) == 1 and words[0] in WORDS:
        return WORDS[words[0]]
    used: list[int] = []
    suit: Suit | None = None
    declare: Declare | None = None
    if len(words) > 1 and words[-1] in DECLARE_WORDS:
        declare = DECLARE_WORDS[words.pop()]
    for pos, word in enumerate(words):
        last = pos == len(words) - 1
        n = number_of(word)
        if n is not None:
            if not 1 <= n <= len(hand):
                raise MalformedInput(CliCode.NO_SUCH_NUMBER, n=n, size=len(hand))
            if n - 1 in used:
                raise MalformedInput(CliCode.NUMBER_TWICE, n=n)
            used.append(n - 1)
            continue
        if last and used and parse_suit(word) is not None:
            suit = parse_suit(word)
            continue
        try:
            card = Card.parse(word)
        except MalformedInput:
            card = None
        if card is not None:
            free = [i for i, c in enumerate(hand) if c == card and i not in used]
            if free:
                used.append(free[0])
                continue
        n = number_of(word[:-1])
        if (last and n is not None and parse_suit(word[-1]) is not None
                and 1 <= n <= len(hand) and n - 1 not in used):  # "4h": card 4, hearts
            used.append(n - 1)
            suit = parse_suit(word[-1])
            continue
        if card is not None:
            raise MalformedInput(CliCode.NOT_IN_HAND, word=word.upper())
        if word in WORDS or word in DECLARE_WORDS:
            raise MalformedInput(CliCode.WORD_ALONE, word=word)
        if last and used and word.isalpha():
            raise MalformedInput(CliCode.NOT_A_SUIT, word=word)
        raise MalformedInput(CliCode.NOT_UNDERSTOOD, word=word)
    if not used:  # a declaration alone: "nopick" is no move
        raise MalformedInput(CliCode.WORD_ALONE, word=words[0] if words else text.strip())
    return CardChoice(tuple(hand[i] for i in used), suit, declare)


def read_move(text: str, rnd: Round, view: View, *, coach: Coach
              ) -> Action | Command | NeedSuit | NeedChoice:
    """Turn an answer at the move prompt into a legal action of ``view.seat`` in ``rnd``,
    a command to run, :class:`NeedSuit` (a wild play: ask for the suit first) or
    :class:`NeedChoice` (a card that declares a choice: ask for it, RULES.md §11).

    The hand is numbered as shown (:func:`~p2p8s.cli.view.numbered_hand` of
    ``view.hand``). With several cards, a fitting card of the same rank may lead the
    play (not the last, which sets the suit); going out needs no suit (R-OUT), and a
    suit typed with a play that does not need one is refused by the engine. Everything
    but the suit is checked before a suit is asked for.

    Raises MalformedInput / IllegalAction with a one-line message; a refused play is
    explained by ``coach`` (:meth:`~p2p8s.coach.Coach.why_not`).
    """
    seat = view.seat
    parsed = parse_input(text, numbered_hand(view.hand))
    if isinstance(parsed, Command):
        return parsed
    if not isinstance(parsed, CardChoice):
        rnd.check(parsed)
        return parsed
    cards = list(parsed.cards)
    if len(cards) > 1 and not rnd.playable(cards[0], seat):
        for i, c in enumerate(cards[1:-1], 1):
            if rnd.playable(c, seat) and c.rank == cards[0].rank:
                cards.insert(0, cards.pop(i))
                break
    out = len(cards) == len(view.hand)
    suit = None if out else parsed.suit
    wild = rnd.is_wild(cards[0], seat) and all(c.rank == cards[0].rank for c in cards)
    ask = wild and not out and suit is None
    if ask:
        # an 8 on a declared 8 declares nothing under R-ZW-EIGHT: no suit to ask for
        with contextlib.suppress(IllegalAction):
            rnd.check(Play(tuple(cards), None, parsed.declare))
            ask = False
    options = declarations(rnd, cards, None if ask else suit)
    choose = parsed.declare is None and bool(options) and options != (None,)
    declare = parsed.declare
    if choose and None not in options:
        declare = options[0]  # checked with one choice; the person picks after
    try:  # check everything but the suit and the declaration before asking for them
        rnd.check(Play(tuple(cards), Suit.CLUBS if ask else suit, declare))
    except IllegalAction as exc:
        raise coach.why_not(view, cards, exc) from None
    if ask:
        return NeedSuit(tuple(cards))
    if choose:
        return NeedChoice(tuple(cards), suit, options)
    return Play(tuple(cards), suit, declare)


def declarations(rnd: Round, cards: Sequence[Card], suit: Suit | None
                 ) -> tuple[Declare | None, ...]:
    """What the play of ``cards`` (with ``suit``) may declare by the engine: each
    legal declaration of its last card, and ``None`` when it may also declare nothing;
    ``()`` when nothing is to be declared (RULES.md §11, R-WC-SKIP, R-ZW-JACK,
    R-ZW-PICKPLAY)."""
    last = cards[-1] if cards else None
    offered = rnd.rules.rule_table.declarations(last) if last is not None else ()
    if not offered:
        return ()
    options: list[Declare | None] = []
    for d in (*offered, None):
        try:
            rnd.check(Play(tuple(cards), suit, d))
        except IllegalAction:
            continue
        options.append(d)
    return tuple(options) if options != [None] else ()


def choice_prompt(options: Sequence[Declare | None]) -> str:
    """The choice prompt (no colon), e.g. ``Declare (s skip: the next player misses a
    turn; r reverse: the direction of play turns; or cancel)``; with ``None`` among the
    options an empty answer declares nothing.

    >>> choice_prompt([Declare.NOPICK, None])
    'Declare (n nopick: the taker may not pick and play; Enter: nothing; or cancel)'
    """
    named = [f"{d.value[0]} {d.value}: {DECLARE_MEANS[d]}" for d in options if d is not None]
    if None in options:
        named.append("Enter: nothing")
    return "Declare (" + "; ".join(named) + "; or cancel)"


def read_choice(text: str, options: Sequence[Declare | None]
                ) -> Declare | Cancel | bool | None:
    """An answer at the choice prompt: a declaration among ``options``, ``None`` (an
    empty answer where nothing may be declared), :data:`CANCEL`, or ``False`` (not an
    answer: say :func:`choice_retry` and ask again).

    >>> read_choice("r", [Declare.SKIP, Declare.REVERSE]), read_choice("", [Declare.NOPICK, None])
    (<Declare.REVERSE: 'reverse'>, None)
    >>> read_choice("bounce", [Declare.SKIP, Declare.REVERSE]), read_choice("back", [])
    (False, Cancel())
    """
    answer = text.strip().lower()
    if answer in CANCEL_WORDS:
        return CANCEL
    if not answer:
        return None if None in options else False
    choice = DECLARE_WORDS.get(answer) or _DECLARE_LETTERS.get(answer)
    return choice if choice is not None and choice in options else False


def choice_retry(text: str, options: Sequence[Declare | None]) -> str:
    """What is said when ``text``, typed at the choice prompt, is not one of ``options``.

    >>> choice_retry("x", [Declare.SKIP, Declare.REVERSE])
    "'x' is not a choice here (skip, reverse; or cancel)."
    """
    named = ", ".join(d.value for d in options if d is not None)
    answer = text.strip()
    if not answer:
        return f"Type {named} (or cancel to choose another move)."
    return f"{quoted(answer)} is not a choice here ({named}; or cancel)."


def read_suit(text: str) -> Suit | Cancel | None:
    """An answer at the suit prompt: the suit, :data:`CANCEL`, or None (not a suit:
    say :func:`suit_retry` and ask again).

    >>> read_suit("h"), read_suit("Back"), read_suit(""), read_suit("x")
    (<Suit.HEARTS: 2>, Cancel(), None, None)
    """
    answer = text.strip()
    if answer.lower() in CANCEL_WORDS:
        return CANCEL
    return parse_suit(answer) if answer else None


def suit_retry(text: str) -> str:
    """What is said when ``text``, typed at the suit prompt, is not a suit.

    >>> suit_retry("x")
    "'x' is not a suit (c, d, h, s; or cancel)."
    """
    answer = text.strip()
    if not answer:
        return SUIT_RETRY
    return f"{quoted(answer)} is not a suit (c, d, h, s; or cancel)."


# --------------------------------------------------------------------------- saying

#: A card written in a message: rank (``10`` or one of ``A2-9TJQK``) and a suit letter
#: or glyph, standing alone.
_CARD_TEXT = re.compile(r"(?<![\w])(10|[2-9AJQKT])([CDHS♣♦♥♠])(?![\w])")


def card_message(text: str, card: Callable[[Card], str]) -> str:
    """``text`` with every card written in it (``7C``, ``7♣``, ``10H``) redrawn by
    ``card`` (the client's style, e.g. :meth:`~p2p8s.cli.view.Look.card`).

    >>> card_message("the drawn 7C is playable", Look().card)
    'the drawn 7♣ is playable'
    >>> card_message("Keep 4♠ and QS", Look(ascii=True).card)
    'Keep 4S and QS'
    """
    def redraw(m: re.Match[str]) -> str:
        try:
            return card(Card.parse(m.group(0)))
        except MalformedInput:
            return m.group(0)

    return _CARD_TEXT.sub(redraw, text)


def move_prompt(view: View, legal: Sequence[Action]) -> str:
    """The move prompt for the seat on turn, naming what makes sense now (no colon:
    the table adds the seconds left before it)."""
    if view.pending_draw:
        return "Your move (" + _penalty_choices(view, legal) + "; hint, help)"
    can_play = any(isinstance(a, Play) for a in legal)
    if view.drawn:
        if can_play and view.rules.draw_when_playable:  # R-DRAW-ANY
            return ("Your move (a fitting card's number, "
                    + ("d to draw again, " if DRAW in legal else "") + "or p to pass)")
        if can_play:
            return "Your move (the drawn card's number, or p to keep it and pass)"
        return ("Your move (d to draw again; hint, help)" if DRAW in legal else
                "Your move (p to pass; hint, help)")
    if not can_play:
        return ("Your move (d to draw; hint, help)" if DRAW in legal else
                "Your move (p to pass; hint, help)")
    return "Your move (card number, d, hint, help)"


def _penalty_choices(view: View, legal: Sequence[Action]) -> str:
    """``the number of a 2 or a joker to counter, of an ace to block, l for the lucky
    card, or t to take``: the answers to a pending penalty among ``legal`` (R-COUNTER,
    R-ZW-PENALTY, R-ZW-LUCKY), named from the rule table."""
    table = view.rules.rule_table
    firsts = [a.cards[0] for a in legal if isinstance(a, Play)]

    def named(cards: Sequence[Card]) -> str:
        return either(dict.fromkeys("a joker" if c.joker else article(rank_name(c.rank or 0))
                                    for c in sorted(cards)))

    parts = []
    adds = [c for c in firsts if table.rule(c).penalty]
    blocks = [c for c in firsts if table.rule(c).block]
    if adds:
        parts.append(f"the number of {named(adds)} to counter")
    if blocks:
        parts.append(("of " if adds else "the number of ") + f"{named(blocks)} to block")
    if LUCKY in legal:
        parts.append("l for the lucky card")
    if TAKE in legal:
        parts.append("t to take")
    return either(parts, "or") if parts else "p to pass"


def sentence(text: str) -> str:
    """A message as a sentence: capital first letter, full stop at the end.

    >>> sentence("there is no card 9")
    'There is no card 9.'
    """
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


def drew_line(card: Card | None, look: Look, *, reshuffled: bool = False) -> str:
    """``You drew Q♠.`` (``a card`` when unseen), noting a reshuffle of the discards."""
    drawn = look.card(card) if card is not None else "a card"
    return f"You drew {drawn}." + (" (The discards were shuffled into a new stock.)"
                                   if reshuffled else "")


def hint_line(h: Hint, hand: Sequence[Card], look: Look, names: Sequence[str] = ()) -> str:
    """``Hint: play 8♠ and declare hearts ♥ (type 2 h) — reason``; ``hand`` is the
    seat's hand (numbered as shown), ``names`` the seats' names the reason may use."""
    keys = action_keys(h.action, numbered_hand(hand))
    reason = Speaker(names, None, look).note(h.reason)
    return f"Hint: {action_text(h.action, look)} (type {keys}) — {reason}"


__all__ = ["CANCEL", "CANCEL_WORDS", "DECLARE_WORDS", "NOTHING_TO_DECIDE", "QUOTE_LIMIT",
           "SUIT_PROMPT", "SUIT_RETRY", "WORDS", "Cancel", "CardChoice", "Command",
           "NeedChoice", "NeedSuit", "card_message", "choice_prompt", "choice_retry",
           "declarations", "drew_line", "hint_line", "move_prompt", "number_of",
           "parse_input", "parse_suit", "quoted", "read_choice", "read_move", "read_suit",
           "sentence", "shorten", "suit_retry", "word_of"]
