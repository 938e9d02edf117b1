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
illegal action ``ok`` is false, ``error`` is ``{"action": index, "code", "rule"}`` (the
``p2p8s scenario`` command adds the ``message`` in words) and ``state`` is the state
before that action. A malformed scenario raises :class:`~p2p8s.errors.MalformedInput`
(a :class:`ScenarioCode`, or the code of the layer that refused a value) naming the
problem; :func:`load_scenario` turns the file's text into the dict and refuses what
``json.loads`` would let through or crash on (a repeated key, a number thousands of
digits long, absurdly deep nesting).

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

from p2p8s.cards import Card, Rank, Suit, decks_for, sort_hand, standard_deck
from p2p8s.engine import (
    DRAW,
    LUCKY,
    PASS,
    TAKE,
    Action,
    Declare,
    EngineCode,
    OrderedDeck,
    Play,
    Round,
)
from p2p8s.errors import Code, IllegalAction, MalformedInput
from p2p8s.rules import COUNTDOWN_START, Ruleset, check_players


class ScenarioCode(Code):
    """Why a scenario is refused (MalformedInput), or an action in it (IllegalAction).

    ``what`` names the place in the scenario (``actions[3].seat``); ``value`` is a
    short repr of what was given, or ``digits`` its length for a number too long to
    show.
    """

    NOT_JSON = "scenario-not-json"  #: ``detail`` from the JSON decoder
    DUPLICATE_KEY = "scenario-duplicate-key"  #: ``key``
    NUMBER_TOO_LONG = "scenario-number-too-long"  #: ``start`` of it, ``digits``
    NOT_A_NUMBER = "scenario-not-a-number"  #: ``text`` (NaN, Infinity)
    TOO_DEEP = "scenario-too-deep"  #: nested more than ``limit`` levels
    NOT_AN_OBJECT = "scenario-not-an-object"
    UNKNOWN_KEY = "scenario-unknown-key"  #: ``key``, ``known``; ``what``: where (if any)
    MISSING_KEY = "scenario-missing-key"  #: ``key``
    NOT_WHOLE = "scenario-not-whole"  #: ``what``, ``value``
    OUT_OF_RANGE = "scenario-out-of-range"  #: ``what``, ``value`` or ``digits``
    NOT_CARDS = "scenario-not-cards"  #: ``what`` is not a list of cards
    IN = "scenario-in"  #: at ``what``: ``error`` (the refusal of that value)
    CARD_TOO_OFTEN = "scenario-card-too-often"  #: ``card``, ``times``, ``players``, ``decks``
    DECK_INCOMPLETE = "scenario-deck-incomplete"  #: ``cards``, ``players``, ``needed``, ``missing``
    DEALER = "scenario-dealer"  #: ``dealer`` not a seat of ``players``
    NOT_BOOL = "scenario-not-bool"  #: ``what``
    NOT_A_LIST = "scenario-not-a-list"  #: ``what``; ``of``: "cards" for a list of card lists
    ACTION_NOT_OBJECT = "scenario-action-not-object"  #: ``what``
    ACTION_NO_SEAT = "scenario-action-no-seat"  #: ``what``
    ACTION_BAD_SEAT = "scenario-action-bad-seat"  #: ``what``, ``seat``, ``players``
    ACTION_KIND = "scenario-action-kind"  #: ``what`` has not exactly one kind
    SUIT_NOT_PLAY = "scenario-suit-not-play"  #: ``what``
    EMPTY_PLAY = "scenario-empty-play"  #: ``what``
    SUIT_NOT_TEXT = "scenario-suit-not-text"  #: ``what``
    BAD_DECLARE = "scenario-bad-declare"  #: ``what``, ``value``, ``known`` (RULES.md §11)
    NOT_TRUE = "scenario-not-true"  #: ``what``, ``kind``
    NUMBERS_NOT_COUNTDOWN = "scenario-numbers-not-countdown"
    NUMBERS_PER_SEAT = "scenario-numbers-per-seat"  #: ``players``
    NUMBERS_RANGE = "scenario-numbers-range"  #: ``start``
    HAND_SIZE_SMALL = "scenario-hand-size-small"
    HAND_SIZE_COUNTDOWN = "scenario-hand-size-countdown"
    RESHUFFLE_ORDER = "scenario-reshuffle-order"  #: ``index``, ``cards``, ``missing``, ``extra``
    NOT_ON_TURN = "scenario-not-on-turn"  #: ``turn``, ``seat`` (IllegalAction)
    FILE_NOT_TEXT = "scenario-file-not-text"  #: ``name`` is not UTF-8 text
    IN_FILE = "scenario-in-file"  #: in file ``name``: ``error``

#: Keys a scenario may have; ``rule``, ``description``, ``expect`` and ``comment`` are
#: for people and test harnesses and are ignored by the runner.
KEYS = frozenset({"players", "dealer", "rules", "stock", "reshuffles", "actions",
                  "numbers", "hand_size", "partial_deck",
                  "rule", "description", "expect", "comment"})
_ACTION_KEYS = frozenset({"seat", "play", "suit", "declare", "draw", "pass", "take",
                          "lucky"})

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


def _shown(value: Any) -> dict[str, Any]:
    """``value`` as error parameters: ``value``, a short repr (never thousands of
    characters, never a crash), or ``digits`` for a number too long to show."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return {"digits": int(value.bit_length() * 0.30103) + 1}
    return {"value": _show.repr(value)}


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise MalformedInput(ScenarioCode.DUPLICATE_KEY, key=_show.repr(key))
        obj[key] = value
    return obj


def _bounded_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_NUMBER_DIGITS:
        raise MalformedInput(ScenarioCode.NUMBER_TOO_LONG, start=text[:12], digits=digits)
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
    raise MalformedInput(ScenarioCode.NOT_A_NUMBER, text=text)


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
    p2p8s.errors.MalformedInput: scenario-duplicate-key key='players'
    """
    try:
        data = json.loads(text, object_pairs_hook=_unique_keys, parse_int=_bounded_int,
                          parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise MalformedInput(ScenarioCode.NOT_JSON, detail=str(exc)) from None
    except RecursionError:  # deeper than the interpreter can decode
        raise MalformedInput(ScenarioCode.TOO_DEEP, limit=MAX_DEPTH) from None
    if _depth(data) > MAX_DEPTH:
        raise MalformedInput(ScenarioCode.TOO_DEEP, limit=MAX_DEPTH)
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
        raise MalformedInput(ScenarioCode.NOT_WHOLE, what=what, **_shown(value))
    if abs(value) > _MAX_INT:
        raise MalformedInput(ScenarioCode.OUT_OF_RANGE, what=what, **_shown(value))
    return value


def _cards(value: Any, what: str) -> tuple[Card, ...]:
    if not isinstance(value, list):
        raise MalformedInput(ScenarioCode.NOT_CARDS, what=what)
    try:
        return tuple(Card.parse(t) for t in value)
    except MalformedInput as exc:
        raise MalformedInput(ScenarioCode.IN, what=what, error=exc) from None


def _check_deck(stock: Sequence[Card], players: int, partial: bool, jokers: bool) -> None:
    """R-DECK: the complete deck (two decks for 6-7 players; with ``jokers`` two per
    deck, R-ZW-DECK), or a sub-multiset of it."""
    decks = decks_for(players)
    counts = Counter(stock)
    full = Counter(standard_deck(decks, jokers=jokers))
    for card, n in sorted(counts.items()):
        if n > full[card]:
            raise MalformedInput(ScenarioCode.CARD_TOO_OFTEN, card=card, times=n,
                                 players=players, decks=decks)
    if partial:
        return
    missing = full - counts
    if missing:
        raise MalformedInput(ScenarioCode.DECK_INCOMPLETE, cards=len(stock), players=players,
                             needed=full.total(), missing=sorted(missing.elements()))


def _action(index: int, raw: Any, players: int) -> ScenarioAction:
    where = f"actions[{index}]"
    if not isinstance(raw, Mapping):
        raise MalformedInput(ScenarioCode.ACTION_NOT_OBJECT, what=where)
    unknown = sorted(set(raw) - _ACTION_KEYS)
    if unknown:
        raise MalformedInput(ScenarioCode.UNKNOWN_KEY, what=where, key=repr(unknown[0]),
                             known=sorted(_ACTION_KEYS))
    if "seat" not in raw:
        raise MalformedInput(ScenarioCode.ACTION_NO_SEAT, what=where)
    seat = _int(raw["seat"], f"{where}.seat")
    if not 0 <= seat < players:
        raise MalformedInput(ScenarioCode.ACTION_BAD_SEAT, what=where, seat=seat,
                             players=players)
    kinds = [k for k in ("play", "draw", "pass", "take", "lucky") if k in raw]
    if len(kinds) != 1:
        raise MalformedInput(ScenarioCode.ACTION_KIND, what=where)
    kind = kinds[0]
    if ("suit" in raw or "declare" in raw) and kind != "play":
        raise MalformedInput(ScenarioCode.SUIT_NOT_PLAY, what=where)
    if kind == "play":
        cards = _cards(raw["play"], f"{where}.play")
        if not cards:
            raise MalformedInput(ScenarioCode.EMPTY_PLAY, what=where)
        suit = raw.get("suit")
        if suit is not None and not isinstance(suit, str):
            raise MalformedInput(ScenarioCode.SUIT_NOT_TEXT, what=f"{where}.suit")
        try:
            declared = None if suit is None else Suit.parse(suit)
        except MalformedInput as exc:
            raise MalformedInput(ScenarioCode.IN, what=f"{where}.suit", error=exc) from None
        choice = raw.get("declare")
        if choice is not None and choice not in set(Declare):
            raise MalformedInput(ScenarioCode.BAD_DECLARE, what=f"{where}.declare",
                                 value=str(choice)[:40], known=[str(d) for d in Declare])
        return ScenarioAction(seat, Play(cards, declared,
                                         None if choice is None else Declare(choice)))
    if raw[kind] is not True:
        raise MalformedInput(ScenarioCode.NOT_TRUE, what=where, kind=kind)
    simple: dict[str, Action] = {"draw": DRAW, "pass": PASS, "take": TAKE, "lucky": LUCKY}
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
        raise MalformedInput(ScenarioCode.NOT_AN_OBJECT)
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise MalformedInput(ScenarioCode.UNKNOWN_KEY, key=repr(unknown[0]),
                             known=sorted(KEYS))
    for key in ("players", "stock"):
        if key not in data:
            raise MalformedInput(ScenarioCode.MISSING_KEY, key=key)
    players = _int(data["players"], "players")
    check_players(players)
    dealer = _int(data.get("dealer", 0), "dealer")
    if not 0 <= dealer < players:
        raise MalformedInput(ScenarioCode.DEALER, dealer=dealer, players=players)
    rules = Ruleset.from_dict(data.get("rules", {}))
    partial = data.get("partial_deck", False)
    if not isinstance(partial, bool):
        raise MalformedInput(ScenarioCode.NOT_BOOL, what="partial_deck")
    stock = _cards(data["stock"], "stock")
    _check_deck(stock, players, partial, rules.rule_table.jokers)
    raw_reshuffles = data.get("reshuffles", [])
    if not isinstance(raw_reshuffles, list):
        raise MalformedInput(ScenarioCode.NOT_A_LIST, what="reshuffles", of="cards")
    reshuffles = tuple(_cards(r, f"reshuffles[{i}]") for i, r in enumerate(raw_reshuffles))
    raw_actions = data.get("actions", [])
    if not isinstance(raw_actions, list):
        raise MalformedInput(ScenarioCode.NOT_A_LIST, what="actions")
    actions = tuple(_action(i, a, players) for i, a in enumerate(raw_actions))
    numbers: tuple[int, ...] | None = None
    if "numbers" in data:
        if not rules.countdown:
            raise MalformedInput(ScenarioCode.NUMBERS_NOT_COUNTDOWN)
        raw = data["numbers"]
        if not isinstance(raw, list) or len(raw) != players:
            raise MalformedInput(ScenarioCode.NUMBERS_PER_SEAT, players=players)
        numbers = tuple(_int(x, "numbers[]") for x in raw)
        if not all(1 <= x <= COUNTDOWN_START for x in numbers):
            raise MalformedInput(ScenarioCode.NUMBERS_RANGE, start=COUNTDOWN_START)
    elif rules.countdown:
        numbers = (COUNTDOWN_START,) * players
    hand_size = None
    if "hand_size" in data:
        hand_size = _int(data["hand_size"], "hand_size")
        if hand_size < 1:
            raise MalformedInput(ScenarioCode.HAND_SIZE_SMALL)
        if numbers is not None:
            raise MalformedInput(ScenarioCode.HAND_SIZE_COUNTDOWN)
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
            raise MalformedInput(ScenarioCode.RESHUFFLE_ORDER, index=self.used - 1,
                                 cards=len(cards), missing=sorted(missing.elements()),
                                 extra=sorted(extra.elements()))
        return order


def state_of(rnd: Round) -> dict[str, Any]:
    """The JSON-ready state of a round, as the scenario runner prints it.

    Keys: ``turn`` (the engine's: once the round is over, the winner after going out,
    or the seat after the last passer in a blocked round), ``direction`` (1 clockwise,
    -1 counter-clockwise), ``top``, ``suit`` (active suit letter), ``declared``,
    ``pending_draw``, ``drawn`` (cards drawn this turn), ``hands`` (per seat, sorted
    C D H S then A..K; ``"??"`` for a hidden card), ``stock`` and ``discard`` (sizes),
    ``round_over``, ``ended_by`` (null, ``"out"``, ``"blocked"``), ``winner``,
    ``points`` (this round's score change per seat); RULES.md §11: ``pending_skip``,
    ``picking`` (pick-and-play, R-ZW-PICKPLAY), ``nopick``, ``air`` (seats in the air,
    R-ZW-OUT), ``bounce_seat`` (R-ZW-JACK), ``loser`` (R-ZW-SCORE).
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
        "pending_skip": rnd.pending_skip,
        "picking": rnd.picking,
        "nopick": rnd.nopick,
        "air": [s for s in range(rnd.players) if rnd.air[s]],
        "bounce_seat": rnd.bounce_seat,
        "loser": rnd.loser,
    }


@dataclass(frozen=True, slots=True, kw_only=True)
class ScenarioRun:
    """A scenario played: the ``state`` (:func:`state_of`) after the last applied action;
    ``refused`` the index of the action that was refused (None if all applied) and
    ``error`` its refusal."""

    state: dict[str, Any]
    refused: int | None = None
    error: IllegalAction | None = None

    @property
    def ok(self) -> bool:
        """True when every action applied."""
        return self.error is None

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready result ``{"ok", "error", "state"}`` (protocol/scenario.md)."""
        if self.error is None:
            return {"ok": True, "error": None, "state": self.state}
        code = self.error.code
        return {"ok": False,
                "error": {"action": self.refused, "code": code.value if code else None,
                          "rule": self.error.rule,
                          "params": {k: _json(v) for k, v in self.error.params.items()}},
                "state": self.state}


def _json(value: Any) -> Any:
    """An error parameter as JSON: a card as its text, a suit or rank as its letter."""
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, Suit | Rank):
        return value.letter
    if isinstance(value, list | tuple):
        return [_json(v) for v in value]
    return value


def _refusal(rnd: Round, step: ScenarioAction) -> IllegalAction | None:
    """Why ``step`` cannot be applied now, or None."""
    if rnd.over:
        return IllegalAction(EngineCode.ROUND_OVER, rule="R-OUT")
    if step.seat != rnd.turn:
        return IllegalAction(ScenarioCode.NOT_ON_TURN, turn=rnd.turn, seat=step.seat)
    try:
        rnd.check(step.action)
    except IllegalAction as exc:
        return exc
    return None


def play_scenario(data: Any) -> ScenarioRun:
    """Run one round from a scenario dict (see :func:`run_scenario`) as a
    :class:`ScenarioRun`, the refusal kept as the engine raised it."""
    sc = parse_scenario(data)
    deck = OrderedDeck(sc.stock, _Reshuffles(sc.reshuffles))
    rnd = Round.deal(sc.rules, players=sc.players, dealer=sc.dealer, deck=deck,
                     hand_size=sc.numbers if sc.numbers is not None else sc.hand_size,
                     wild=sc.numbers)
    for index, step in enumerate(sc.actions):
        refusal = _refusal(rnd, step)
        if refusal is not None:
            return ScenarioRun(state=state_of(rnd), refused=index, error=refusal)
        rnd.apply(step.action)
    return ScenarioRun(state=state_of(rnd))


def run_scenario(data: Any) -> dict[str, Any]:
    """Run one round from a scenario dict; returns ``{"ok", "error", "state"}``.

    Deals from ``stock`` (R-DEALORDER, R-HAND or ``hand_size``/``numbers``), turns the
    starter (R-STARTER), then applies each action. An action by a seat not on turn, or
    one the engine refuses (:class:`~p2p8s.errors.IllegalAction`), stops the run:
    ``ok`` false, ``error = {"action": index, "code": code, "rule": id or null,
    "params": {...}}``, ``state`` before that action. Raises
    :class:`~p2p8s.errors.MalformedInput` for a malformed scenario (see
    :func:`parse_scenario`) or a reshuffle order that does not hold exactly the
    discards.
    """
    return play_scenario(data).to_dict()
