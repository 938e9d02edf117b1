"""Rulesets: the options of RULES.md §2 and the rule table each one plays by.

A :class:`Ruleset` holds the options a host picks; :attr:`Ruleset.rule_table` is its
preset's :class:`~p2p8s.ruletable.RuleTable` (card effects, hand sizes, card values,
scoring, targets). :meth:`Ruleset.for_preset` builds a preset of RULES.md §11
(``table``, ``classic``, ``countdown``, ``wildcards``, ``zimbabwe``) with its options,
single rules changed on top. The functions below apply the table to a ruleset, with the
countdown variant (R-COUNTDOWN) on top.

>>> Ruleset().action_cards, Ruleset().draw_limit
(True, 3)
>>> Ruleset.classic().rule_table.name
'classic'
>>> Ruleset.from_dict({"draw_limit": 0}).draw_limit
0
>>> z = Ruleset.for_preset("zimbabwe", hand_size=6)
>>> z.name, z.draw_limit, z.draw_when_playable, z.hand_size, z.rule_table.name
('zimbabwe', 1, True, 6, 'zimbabwe')
>>> Ruleset.from_dict({"preset": "wildcards", "multi_play": True}).multi_play
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from enum import StrEnum
from typing import Any

from p2p8s.cards import Card
from p2p8s.errors import Code, MalformedInput
from p2p8s.ruletable import CLASSIC, PRESETS, RuleTable


class RulesCode(Code):
    """Why a ruleset or a number of players is refused (MalformedInput)."""

    NOT_WHOLE = "rules-not-whole"  #: ``option`` is not a whole number (``value``)
    DRAW_LIMIT_NEGATIVE = "rules-draw-limit-negative"
    NOT_BOOL = "rules-not-bool"  #: ``option`` is not true or false
    NOT_AN_OBJECT = "rules-not-an-object"
    UNKNOWN_OPTION = "rules-unknown-option"  #: ``option``; ``known`` option names
    BAD_VARIANT = "rules-bad-variant"  #: ``value``
    BAD_PRESET = "rules-bad-preset"  #: ``value``; ``known`` preset names (RULES.md §11)
    PRESET_NEEDS_ACTIONS = "rules-preset-needs-action-cards"  #: ``preset``
    HAND_SIZE = "rules-hand-size"  #: ``value`` is not 1..13 (R-HAND)
    PLAYERS = "rules-players"  #: ``players`` is not 2..7 (R-SEATS)


class Variant(StrEnum):
    """The standard game, or the countdown variant (R-COUNTDOWN)."""

    STANDARD = "standard"
    COUNTDOWN = "countdown"


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True, kw_only=True)
class Ruleset:
    """The options of RULES.md §2, with their defaults ("table rules").

    ``draw_limit`` counts cards one turn may draw, 0 = unlimited (R-DRAW).
    ``target`` is the match target in points; ``None`` means the default for the
    context (:func:`default_target`). The countdown variant forces action cards off.
    ``preset`` names the action-card rule table: ``table``, ``wildcards`` or
    ``zimbabwe`` (RULES.md §11); ``classic`` and ``countdown`` given here become
    ``action_cards`` off / ``variant`` countdown and ``preset`` ``table`` (one form per
    ruleset; :attr:`name` gives the five-way name). Use :meth:`for_preset` for a
    preset with its options. ``hand_size``: cards dealt to each player, ``None`` = the
    preset's (R-HAND, R-ZW-DEAL). Raises MalformedInput (a :class:`RulesCode`) for a
    bad value, an unknown preset, or action cards off with wildcards/zimbabwe.
    """

    action_cards: bool = True
    multi_play: bool = True
    draw_limit: int = 3
    draw_when_playable: bool = False
    reshuffle: bool = True
    target: int | None = None
    variant: Variant = Variant.STANDARD
    preset: str = "table"
    hand_size: int | None = None

    def __post_init__(self) -> None:
        if not _whole(self.draw_limit):
            raise MalformedInput(RulesCode.NOT_WHOLE, option="draw_limit",
                                 value=self.draw_limit)
        if self.draw_limit < 0:
            raise MalformedInput(RulesCode.DRAW_LIMIT_NEGATIVE)
        if self.target is not None and (not _whole(self.target) or self.target < 1):
            raise MalformedInput(RulesCode.NOT_WHOLE, option="target", value=self.target,
                                 positive=True)
        for name in ("action_cards", "multi_play", "draw_when_playable", "reshuffle"):
            if not isinstance(getattr(self, name), bool):
                raise MalformedInput(RulesCode.NOT_BOOL, option=name)
        if self.hand_size is not None and (not _whole(self.hand_size)
                                           or not 1 <= self.hand_size <= 13):
            raise MalformedInput(RulesCode.HAND_SIZE, value=self.hand_size)
        if self.preset == "classic":
            object.__setattr__(self, "action_cards", False)
        elif self.preset == "countdown":
            object.__setattr__(self, "variant", Variant.COUNTDOWN)
        elif self.preset not in _ACTION_PRESETS:
            raise MalformedInput(RulesCode.BAD_PRESET, value=str(self.preset)[:40],
                                 known=list(PRESET_NAMES))
        if self.variant == Variant.COUNTDOWN and self.action_cards:
            object.__setattr__(self, "action_cards", False)
        if self.preset in ("classic", "countdown"):
            object.__setattr__(self, "preset", "table")
        if not self.action_cards and self.preset != "table":
            raise MalformedInput(RulesCode.PRESET_NEEDS_ACTIONS, preset=self.preset)

    @classmethod
    def table(cls, **changes: Any) -> Ruleset:
        """The default "table rules" preset (action cards on), with ``changes``."""
        return cls(**changes)

    @classmethod
    def classic(cls, **changes: Any) -> Ruleset:
        """The classic preset (action cards off, R-PTS-CLASSIC), with ``changes``."""
        return cls(**{"action_cards": False, **changes})

    @classmethod
    def for_preset(cls, name: str, **changes: Any) -> Ruleset:
        """The preset ``name`` of RULES.md §11 with its options (:data:`PRESET_OPTIONS`),
        single rules in ``changes`` on top. Raises MalformedInput (BAD_PRESET, or a bad
        option value)."""
        if name not in PRESET_OPTIONS:
            raise MalformedInput(RulesCode.BAD_PRESET, value=str(name)[:40],
                                 known=list(PRESET_NAMES))
        return cls(**{**PRESET_OPTIONS[name], **changes})

    @property
    def name(self) -> str:
        """The preset's name: ``countdown``, ``classic``, or :attr:`preset`."""
        if self.countdown:
            return "countdown"
        return self.preset if self.action_cards else "classic"

    @property
    def countdown(self) -> bool:
        """True for the countdown variant (R-COUNTDOWN)."""
        return self.variant == Variant.COUNTDOWN

    @property
    def rule_table(self) -> RuleTable:
        """The preset's rule table: :data:`~p2p8s.ruletable.TABLE` (or the wildcards or
        zimbabwe table) with action cards, else :data:`~p2p8s.ruletable.CLASSIC`
        (countdown plays it too)."""
        return PRESETS[self.preset] if self.action_cards else CLASSIC

    def changes(self) -> dict[str, Any]:
        """The options that differ from the preset's own (:data:`PRESET_OPTIONS`), as
        :meth:`to_dict` writes them: what a table card shows beside the preset."""
        base = Ruleset.for_preset(self.name).to_dict()
        return {k: v for k, v in self.to_dict().items() if base.get(k) != v}

    def with_changes(self, **changes: Any) -> Ruleset:
        """A copy with some options changed."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The options as a JSON-ready dict (option names of RULES.md §2); ``preset``
        only when not ``table`` and ``hand_size`` only when set, so a table-rules,
        classic or countdown ruleset writes what it always wrote."""
        d = asdict(self)
        d["variant"] = str(self.variant)
        if d["preset"] == "table":
            del d["preset"]
        if d["hand_size"] is None:
            del d["hand_size"]
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ruleset:
        """Build from option names; omitted ones take defaults — the preset's when
        ``preset`` is given (RULES.md §11: the options override single rules).

        Raises :class:`~p2p8s.errors.MalformedInput` for an unknown option or bad value.
        """
        if not isinstance(data, Mapping):
            raise MalformedInput(RulesCode.NOT_AN_OBJECT)
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            raise MalformedInput(RulesCode.UNKNOWN_OPTION, option=unknown[0],
                                 known=sorted(known))
        kwargs = dict(data)
        if "variant" in kwargs:
            try:
                kwargs["variant"] = Variant(kwargs["variant"])
            except ValueError:
                raise MalformedInput(RulesCode.BAD_VARIANT, value=kwargs["variant"]) from None
        if "preset" in kwargs:
            return cls.for_preset(kwargs.pop("preset"), **kwargs)
        return cls(**kwargs)


#: The names of the presets (RULES.md §11), the default first.
PRESET_NAMES = ("table", "classic", "countdown", "wildcards", "zimbabwe")
_ACTION_PRESETS = ("table", "wildcards", "zimbabwe")

#: Each preset's options (RULES.md §2, §8, R-WC-DEAL, R-ZW-DRAW).
PRESET_OPTIONS: dict[str, dict[str, Any]] = {
    "table": {},
    "classic": {"action_cards": False},
    "countdown": {"variant": Variant.COUNTDOWN},
    "wildcards": {"preset": "wildcards", "multi_play": False, "draw_limit": 0,
                  "draw_when_playable": True, "reshuffle": True},
    "zimbabwe": {"preset": "zimbabwe", "multi_play": True, "draw_limit": 1,
                 "draw_when_playable": True},
}


def check_players(players: int) -> None:
    """Raise MalformedInput (:attr:`RulesCode.PLAYERS`) unless 2 <= players <= 7
    (R-SEATS)."""
    if not _whole(players) or not 2 <= players <= 7:
        raise MalformedInput(RulesCode.PLAYERS, players=players)


#: R-COUNTDOWN: every player's starting number.
COUNTDOWN_START = 8


def hand_size(rules: Ruleset, players: int) -> int:
    """Cards dealt to each player, R-HAND, or the ruleset's ``hand_size`` (countdown:
    see :func:`deal_sizes`)."""
    check_players(players)
    if rules.hand_size is not None:
        return rules.hand_size
    return rules.rule_table.hand_size(players)


def deal_sizes(rules: Ruleset, players: int, numbers: Sequence[int] | None = None
               ) -> list[int]:
    """Cards dealt to each seat: R-HAND, or in the countdown variant each player's
    number (``numbers``, default :data:`COUNTDOWN_START` each, R-COUNTDOWN)."""
    if rules.countdown:
        return list(numbers) if numbers is not None else [COUNTDOWN_START] * players
    return [hand_size(rules, players)] * players


def card_value(card: Card, rules: Ruleset) -> int:
    """Penalty value of one card under ``rules`` (R-PTS-TABLE, R-PTS-CLASSIC)."""
    return rules.rule_table.value(card)


def hand_value(cards: Iterable[Card], rules: Ruleset) -> int:
    """Sum of :func:`card_value` over a hand.

    >>> from p2p8s.cards import parse_cards
    >>> hand = parse_cards("8H QS AD KC 5D TS".split())
    >>> hand_value(hand, Ruleset()), hand_value(hand, Ruleset.classic())
    (115, 86)
    """
    return rules.rule_table.hand_value(cards)


def round_points(rules: Ruleset, values: Sequence[int], winner: int | None) -> list[int]:
    """A finished round's score change per seat from the hands' ``values`` and the seat
    that went out (None: blocked): the preset's scoring
    (:meth:`~p2p8s.ruletable.RuleTable.round_points`); countdown scores nothing."""
    if rules.countdown:
        return [0] * len(values)
    return rules.rule_table.round_points(values, winner)


def default_target(rules: Ruleset, players: int, *, solo: bool = True) -> int:
    """The match target when ``rules.target`` is None.

    Table rules: 50 per seat in solo play, 100 at a friends' table (R-TARGET-TABLE).
    Classic: 100 (R-TARGET-CLASSIC). Countdown has no points: returns 0.
    """
    if rules.target is not None:
        return rules.target
    if rules.countdown:
        return 0
    table = rules.rule_table
    return (table.solo_target if solo else table.table_target).of(players)
