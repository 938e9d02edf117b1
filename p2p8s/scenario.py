"""The scenario runner: one round from a JSON-ready dict, the state as a dict (pure).

The format is specified in ``protocol/scenario.md``; ``p2p8s scenario FILE`` reads the
file and prints what :func:`run_scenario` returns. In short::

    {"players": 3, "dealer": 0,
     "rules": {"action_cards": true, "draw_limit": 3},     # RULES.md §2 option names
     "stock": ["7H", "QS", ...],          # the complete deck before the deal, top first
     "reshuffles": [["3C", ...], ...],    # optional: each new stock order, top first
     "numbers": [8, 8, 7],                # optional, countdown: each player's number
     "actions": [{"seat": 1, "play": ["7H"]}, {"seat": 2, "play": ["8C"], "suit": "H"},
                 {"seat": 0, "draw": true}, {"seat": 0, "pass": true},
                 {"seat": 1, "take": true}]}

The runner deals (R-DEALORDER), turns the starter (R-STARTER) and applies the actions in
order; it never acts for a player. The result is ``{"ok", "error", "state"}``: on an
illegal action ``ok`` is false, ``error`` is ``{"action": index, "message", "rule"}`` and
``state`` is the state before that action. A malformed scenario raises
:class:`~p2p8s.errors.MalformedInput` naming the problem; :func:`load_scenario` turns
the file's text into the dict and refuses what ``json.loads`` would let through or
crash on (a repeated key, a number thousands of digits long, absurdly deep nesting).

>>> from p2p8s.cards import standard_deck
>>> deck = [str(c) for c in standard_deck()]  # AC 2C .. KC AD 2D 3D ..: seat 1 gets AC
>>> out = run_scenario({"players": 2, "dealer": 0, "stock": deck,
...                     "actions": [{"seat": 1, "play": ["AC"]}]})
>>> out["ok"], out["error"]["rule"], out["state"]["top"]  # 2D was buried (R-STARTER)
(False, 'R-MATCH', '3D')
"""

from __future__ import annotations

import json
import reprlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from p2p8s.cards import Card, Suit, decks_for, sort_hand, standard_deck
from p2p8s.engine import DRAW, PASS, TAKE, Action, OrderedDeck, Play, Round
from p2p8s.errors import IllegalAction, MalformedInput
from p2p8s.rules import COUNTDOWN_START, Ruleset, check_players

#: Keys a scenario may have; ``rule``, ``description``, ``expect`` and ``comment`` are
#: for people and test harnesses and are ignored by the runner.
KEYS = frozenset({"players", "dealer", "rules", "stock", "reshuffles", "actions",
                  "numbers", "hand_size", "partial_deck",
                  "rule", "description", "expect", "comment"})
_ACTION_KEYS = frozenset({"seat", "play", "suit", "draw", "pass", "take"})

#: Most digits a whole number in a scenario file may have (:func:`load_scenario`); no
#: meaningful scenario value comes close, and Python refuses to convert numbers past
#: 4300 digits anyway.
MAX_NUMBER_DIGITS = 20
#: Deepest nesting of lists and objects :func:`load_scenario` accepts (the scenario
#: files in tests/scenarios nest 5 deep at most, their ``expect`` included).
MAX_DEPTH = 32
#: Largest magnitude :func:`parse_scenario` accepts for a whole number (seats, sizes).
_MAX_INT = 2**31 - 1
_show = reprlib.Repr()
_show.maxstring = _show.maxother = 40


def _describe(value: Any) -> str:
    """A short repr for messages (never thousands of characters, never a crash)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"a number of about {int(value.bit_length() * 0.30103) + 1} digits"
    return _show.repr(value)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise MalformedInput(f"the key {_describe(key)} appears twice in one object")
        obj[key] = value
    return obj


def _bounded_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_NUMBER_DIGITS:
        raise MalformedInput(f"the number {text[:12]}… is too long ({digits} digits)")
    return int(text)


def _depth(data: Any) -> int:
    """How deeply lists and objects nest in ``data`` (iteratively: no recursion)."""
    deepest = 0
    todo: list[tuple[Any, int]] = [(data, 0)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            level += 1
            deepest = max(deepest, level)
            if level <= MAX_DEPTH:
                todo.extend((x, level) for x in item)
    return deepest


def _no_constant(text: str) -> Any:
    raise MalformedInput(f"{text} is not a JSON number")


def load_scenario(text: str) -> Any:
    """Parse a scenario file's text as strict JSON; raises MalformedInput instead of
    ``json.loads``' errors (one line each).

    Beyond plain JSON syntax it refuses a key repeated within one object (which
    ``json.loads`` would silently resolve to the last value), a whole number longer
    than :data:`MAX_NUMBER_DIGITS`, ``NaN``/``Infinity`` and lists or objects nested
    more than :data:`MAX_DEPTH` levels deep.

    >>> load_scenario('{"players": 2, "players": 3}')
    Traceback (most recent call last):
    ...
    p2p8s.errors.MalformedInput: the key 'players' appears twice in one object
    """
    too_deep = f"not a scenario: lists and objects nest more than {MAX_DEPTH} levels deep"
    try:
        data = json.loads(text, object_pairs_hook=_unique_keys, parse_int=_bounded_int,
                          parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise MalformedInput(f"not valid JSON: {exc}") from None
    except RecursionError:  # deeper than the interpreter can decode
        raise MalformedInput(too_deep) from None
    if _depth(data) > MAX_DEPTH:
        raise MalformedInput(too_deep)
    return data


@dataclass(frozen=True, slots=True)
class ScenarioAction:
    """One parsed action: the acting ``seat`` and the engine action."""

    seat: int
    action: Action


@dataclass(frozen=True, slots=True, kw_only=True)
class Scenario:
    """A parsed, validated scenario (see :func:`parse_scenario`)."""

    players: int
    dealer: int
    rules: Ruleset
    stock: tuple[Card, ...]
    reshuffles: tuple[tuple[Card, ...], ...]
    actions: tuple[ScenarioAction, ...]
    numbers: tuple[int, ...] | None
    hand_size: int | None


def _int(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise MalformedInput(f"{what} must be a whole number, not {_describe(value)}")
    if abs(value) > _MAX_INT:
        raise MalformedInput(f"{what} is out of range: {_describe(value)}")
    return value


def _cards(value: Any, what: str) -> tuple[Card, ...]:
    if not isinstance(value, list):
        raise MalformedInput(f"{what} must be a list of cards like [\"7H\", \"QS\"]")
    try:
        return tuple(Card.parse(t) for t in value)
    except MalformedInput as exc:
        raise MalformedInput(f"{what}: {exc}") from None


def _check_deck(stock: Sequence[Card], players: int, partial: bool) -> None:
    """R-DECK: the complete deck (two decks for 6-7 players), or a sub-multiset of it."""
    decks = decks_for(players)
    counts = Counter(stock)
    for card, n in sorted(counts.items()):
        if n > decks:
            times = "twice" if n == 2 else f"{n} times"
            raise MalformedInput(
                f"stock: {card} appears {times}; a {players}-player game uses "
                + ("one deck" if decks == 1 else "two decks (each card at most twice)"))
    if partial:
        return
    missing = Counter(standard_deck(decks)) - counts
    if missing:
        names = " ".join(str(c) for c in sorted(missing.elements()))
        raise MalformedInput(
            f"stock: the deck is incomplete ({len(stock)} cards; a {players}-player game "
            f"needs all {52 * decks}): missing {names}")


def _action(index: int, raw: Any, players: int) -> ScenarioAction:
    where = f"actions[{index}]"
    if not isinstance(raw, Mapping):
        raise MalformedInput(f"{where} must be an object like {{\"seat\": 0, \"draw\": true}}")
    unknown = sorted(set(raw) - _ACTION_KEYS)
    if unknown:
        raise MalformedInput(f"{where}: unknown key {unknown[0]!r} "
                             f"(known: {', '.join(sorted(_ACTION_KEYS))})")
    if "seat" not in raw:
        raise MalformedInput(f"{where}: which seat acts? (\"seat\" is missing)")
    seat = _int(raw["seat"], f"{where}.seat")
    if not 0 <= seat < players:
        raise MalformedInput(f"{where}: seat {seat} does not exist (seats 0..{players - 1})")
    kinds = [k for k in ("play", "draw", "pass", "take") if k in raw]
    if len(kinds) != 1:
        raise MalformedInput(f"{where} needs exactly one of play, draw, pass, take")
    kind = kinds[0]
    if "suit" in raw and kind != "play":
        raise MalformedInput(f"{where}: only a play declares a suit")
    if kind == "play":
        cards = _cards(raw["play"], f"{where}.play")
        if not cards:
            raise MalformedInput(f"{where}: a play needs at least one card")
        suit = raw.get("suit")
        if suit is not None and not isinstance(suit, str):
            raise MalformedInput(f"{where}.suit must be one of C, D, H, S")
        try:
            declared = None if suit is None else Suit.parse(suit)
        except MalformedInput as exc:
            raise MalformedInput(f"{where}.suit: {exc}") from None
        return ScenarioAction(seat, Play(cards, declared))
    if raw[kind] is not True:
        raise MalformedInput(f"{where}: write \"{kind}\": true")
    simple: dict[str, Action] = {"draw": DRAW, "pass": PASS, "take": TAKE}
    return ScenarioAction(seat, simple[kind])


def parse_scenario(data: Any) -> Scenario:
    """Validate a scenario dict (the JSON of ``protocol/scenario.md``).

    Raises :class:`~p2p8s.errors.MalformedInput` naming the first problem: an unknown
    key, a bad card, a deck that is not the complete deck (R-DECK: 52 cards, or the
    104-card two-deck multiset for 6-7 players) unless ``partial_deck`` is true, a bad
    rule option, a seat that does not exist, an action that is not exactly one of
    play/draw/pass/take.
    """
    if not isinstance(data, Mapping):
        raise MalformedInput("a scenario is a JSON object with players, stock and actions")
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise MalformedInput(f"unknown key {unknown[0]!r} (known: {', '.join(sorted(KEYS))})")
    for key in ("players", "stock"):
        if key not in data:
            raise MalformedInput(f"the scenario needs {key!r}")
    players = _int(data["players"], "players")
    check_players(players)
    dealer = _int(data.get("dealer", 0), "dealer")
    if not 0 <= dealer < players:
        raise MalformedInput(f"dealer must be a seat 0..{players - 1}, not {dealer}")
    rules = Ruleset.from_dict(data.get("rules", {}))
    partial = data.get("partial_deck", False)
    if not isinstance(partial, bool):
        raise MalformedInput("partial_deck must be true or false")
    stock = _cards(data["stock"], "stock")
    _check_deck(stock, players, partial)
    raw_reshuffles = data.get("reshuffles", [])
    if not isinstance(raw_reshuffles, list):
        raise MalformedInput("reshuffles must be a list of card lists")
    reshuffles = tuple(_cards(r, f"reshuffles[{i}]") for i, r in enumerate(raw_reshuffles))
    raw_actions = data.get("actions", [])
    if not isinstance(raw_actions, list):
        raise MalformedInput("actions must be a list")
    actions = tuple(_action(i, a, players) for i, a in enumerate(raw_actions))
    numbers: tuple[int, ...] | None = None
    if "numbers" in data:
        if not rules.countdown:
            raise MalformedInput("numbers belong to the countdown variant "
                                 "(set \"variant\": \"countdown\" in rules)")
        raw = data["numbers"]
        if not isinstance(raw, list) or len(raw) != players:
            raise MalformedInput(f"numbers must list one number per seat ({players})")
        numbers = tuple(_int(x, "numbers[]") for x in raw)
        if not all(1 <= x <= COUNTDOWN_START for x in numbers):
            raise MalformedInput(f"countdown numbers run from {COUNTDOWN_START} down to 1")
    elif rules.countdown:
        numbers = (COUNTDOWN_START,) * players
    hand_size = None
    if "hand_size" in data:
        hand_size = _int(data["hand_size"], "hand_size")
        if hand_size < 1:
            raise MalformedInput("hand_size must be 1 or more")
        if numbers is not None:
            raise MalformedInput("in the countdown variant the numbers set the hand sizes")
    return Scenario(players=players, dealer=dealer, rules=rules, stock=stock,
                    reshuffles=reshuffles, actions=actions, numbers=numbers,
                    hand_size=hand_size)


class _Reshuffles:
    """Gives the listed stock orders in turn, then keeps the discards' order."""

    def __init__(self, orders: Sequence[Sequence[Card]]) -> None:
        self.orders = list(orders)
        self.used = 0

    def __call__(self, cards: Sequence[Card]) -> list[Card]:
        if self.used >= len(self.orders):
            return list(cards)
        order = list(self.orders[self.used])
        self.used += 1
        missing = Counter(cards) - Counter(order)
        extra = Counter(order) - Counter(cards)
        if missing or extra:
            parts = []
            if missing:
                parts.append("missing " + " ".join(str(c) for c in sorted(missing.elements())))
            if extra:
                parts.append("not discarded " + " ".join(str(c) for c in sorted(extra.elements())))
            raise MalformedInput(
                f"reshuffles[{self.used - 1}] must hold exactly the {len(cards)} discards "
                f"under the top card ({'; '.join(parts)})")
        return order


def state_of(rnd: Round) -> dict[str, Any]:
    """The JSON-ready state of a round, as the scenario runner prints it.

    Keys: ``turn`` (the engine's: once the round is over, the winner after going out,
    or the seat after the last passer in a blocked round), ``direction`` (1 clockwise,
    -1 counter-clockwise), ``top``, ``suit`` (active suit letter), ``declared``,
    ``pending_draw``, ``drawn`` (cards drawn this turn), ``hands`` (per seat, sorted
    C D H S then A..K; ``"??"`` for a hidden card), ``stock`` and ``discard`` (sizes),
    ``round_over``, ``ended_by`` (null, ``"out"``, ``"blocked"``), ``winner``,
    ``points`` (this round's score change per seat).
    """
    return {
        "turn": rnd.turn,
        "direction": rnd.direction,
        "top": str(rnd.top),
        "suit": rnd.suit.letter,
        "declared": rnd.declared,
        "pending_draw": rnd.pending_draw,
        "drawn": rnd.drawn,
        "hands": [[str(c) for c in sort_hand(c for c in h if c is not None)]
                  + ["??"] * sum(c is None for c in h) for h in rnd.hands],
        "stock": rnd.stock_size,
        "discard": len(rnd.discard),
        "round_over": rnd.over,
        "ended_by": None if rnd.ended_by is None else str(rnd.ended_by),
        "winner": rnd.winner,
        "points": rnd.points(),
    }


def run_scenario(data: Any) -> dict[str, Any]:
    """Run one round from a scenario dict; returns ``{"ok", "error", "state"}``.

    Deals from ``stock`` (R-DEALORDER, R-HAND or ``hand_size``/``numbers``), turns the
    starter (R-STARTER), then applies each action. An action by a seat not on turn, or
    one the engine refuses (:class:`~p2p8s.errors.IllegalAction`), stops the run:
    ``ok`` false, ``error = {"action": index, "message": text, "rule": id or null}``,
    ``state`` before that action. Raises :class:`~p2p8s.errors.MalformedInput` for a
    malformed scenario (see :func:`parse_scenario`) or a reshuffle order that does not
    hold exactly the discards.
    """
    sc = parse_scenario(data)
    deck = OrderedDeck(sc.stock, _Reshuffles(sc.reshuffles))
    rnd = Round.deal(sc.rules, players=sc.players, dealer=sc.dealer, deck=deck,
                     hand_size=sc.numbers if sc.numbers is not None else sc.hand_size,
                     wild=sc.numbers)
    for index, step in enumerate(sc.actions):
        try:
            if rnd.over:
                raise IllegalAction("the round is over", rule="R-OUT")
            if step.seat != rnd.turn:
                raise IllegalAction(f"it is seat {rnd.turn}'s turn, not seat {step.seat}'s")
            rnd.apply(step.action)
        except IllegalAction as exc:
            return {"ok": False,
                    "error": {"action": index, "message": str(exc), "rule": exc.rule},
                    "state": state_of(rnd)}
    return {"ok": True, "error": None, "state": state_of(rnd)}
