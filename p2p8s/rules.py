"""Rulesets: the options of RULES.md §2, hand sizes (R-HAND), card values and targets.

>>> Ruleset().action_cards, Ruleset().draw_limit
(True, 3)
>>> Ruleset.classic().action_cards
False
>>> Ruleset.from_dict({"draw_limit": 0}).draw_limit
0
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from enum import StrEnum
from typing import Any

from p2p8s.cards import Card, Rank
from p2p8s.errors import MalformedInput


class Variant(StrEnum):
    """The standard game, or the countdown variant (R-COUNTDOWN)."""

    STANDARD = "standard"
    COUNTDOWN = "countdown"


@dataclass(frozen=True, slots=True, kw_only=True)
class Ruleset:
    """The options of RULES.md §2, with their defaults ("table rules").

    ``draw_limit`` counts cards one turn may draw, 0 = unlimited (R-DRAW).
    ``target`` is the match target in points; ``None`` means the default for the
    context (:func:`default_target`). The countdown variant forces action cards off.
    """

    action_cards: bool = True
    multi_play: bool = True
    draw_limit: int = 3
    draw_when_playable: bool = False
    reshuffle: bool = True
    target: int | None = None
    variant: Variant = Variant.STANDARD

    def __post_init__(self) -> None:
        if not isinstance(self.draw_limit, int) or isinstance(self.draw_limit, bool):
            raise MalformedInput(f"draw_limit must be a whole number, not {self.draw_limit!r}")
        if self.draw_limit < 0:
            raise MalformedInput("draw_limit must be 0 (unlimited) or more")
        if self.target is not None and (
            not isinstance(self.target, int) or isinstance(self.target, bool) or self.target < 1
        ):
            raise MalformedInput(f"target must be a positive whole number, not {self.target!r}")
        for name in ("action_cards", "multi_play", "draw_when_playable", "reshuffle"):
            if not isinstance(getattr(self, name), bool):
                raise MalformedInput(f"{name} must be true or false")
        if self.variant == Variant.COUNTDOWN and self.action_cards:
            object.__setattr__(self, "action_cards", False)

    @classmethod
    def table(cls, **changes: Any) -> Ruleset:
        """The default "table rules" preset (action cards on), with ``changes``."""
        return cls(**changes)

    @classmethod
    def classic(cls, **changes: Any) -> Ruleset:
        """The classic preset (action cards off, R-PTS-CLASSIC), with ``changes``."""
        return cls(**{"action_cards": False, **changes})

    @property
    def countdown(self) -> bool:
        """True for the countdown variant (R-COUNTDOWN)."""
        return self.variant == Variant.COUNTDOWN

    def with_changes(self, **changes: Any) -> Ruleset:
        """A copy with some options changed."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The options as a JSON-ready dict (option names of RULES.md §2)."""
        d = asdict(self)
        d["variant"] = str(self.variant)
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ruleset:
        """Build from option names; omitted ones take defaults.

        Raises :class:`~p2p8s.errors.MalformedInput` for an unknown option or bad value.
        """
        if not isinstance(data, Mapping):
            raise MalformedInput("rules must be an object of option names")
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            raise MalformedInput(
                f"unknown rule option {unknown[0]!r} (known: {', '.join(sorted(known))})"
            )
        kwargs = dict(data)
        if "variant" in kwargs:
            try:
                kwargs["variant"] = Variant(kwargs["variant"])
            except ValueError:
                raise MalformedInput(
                    f"variant must be 'standard' or 'countdown', not {kwargs['variant']!r}"
                ) from None
        return cls(**kwargs)

    def describe(self) -> str:
        """One line for a table card or a lobby: ``table rules, multi-play, draw limit 3``."""
        parts = ["countdown" if self.countdown else
                 ("table rules" if self.action_cards else "classic")]
        parts.append("multi-play" if self.multi_play else "one card a turn")
        parts.append(f"draw limit {self.draw_limit}" if self.draw_limit else "draw until playable")
        if self.draw_when_playable:
            parts.append("may draw when able to play")
        if not self.reshuffle:
            parts.append("no reshuffle")
        if self.target is not None and not self.countdown:
            parts.append(f"target {self.target}")
        return ", ".join(parts)


def hand_size(rules: Ruleset, players: int) -> int:
    """Cards dealt to each player, R-HAND (countdown: see :func:`countdown_start`)."""
    check_players(players)
    if players >= 5:
        return 5
    if rules.action_cards or players == 2:
        return 7
    return 5


def check_players(players: int) -> None:
    """Raise MalformedInput unless 2 <= players <= 7 (R-SEATS)."""
    if not isinstance(players, int) or not 2 <= players <= 7:
        raise MalformedInput(f"a game has 2 to 7 players, not {players!r}")


#: R-COUNTDOWN: every player's starting number.
COUNTDOWN_START = 8

_TABLE_VALUES = {Rank.EIGHT: 50, Rank.TWO: 20, Rank.QUEEN: 20, Rank.ACE: 20,
                 Rank.JACK: 10, Rank.KING: 10}
_CLASSIC_VALUES = {Rank.EIGHT: 50, Rank.JACK: 10, Rank.QUEEN: 10, Rank.KING: 10, Rank.ACE: 1}

#: Card value by card index under table rules (R-PTS-TABLE) and classic (R-PTS-CLASSIC).
TABLE_VALUE: tuple[int, ...] = tuple(_TABLE_VALUES.get(Rank(i % 13 + 1), i % 13 + 1)
                                     for i in range(52))
CLASSIC_VALUE: tuple[int, ...] = tuple(_CLASSIC_VALUES.get(Rank(i % 13 + 1), i % 13 + 1)
                                       for i in range(52))


def card_value(card: Card, rules: Ruleset) -> int:
    """Penalty value of one card: R-PTS-TABLE with action cards, else R-PTS-CLASSIC."""
    return (TABLE_VALUE if rules.action_cards else CLASSIC_VALUE)[card]


def hand_value(cards: Iterable[Card], rules: Ruleset) -> int:
    """Sum of :func:`card_value` over a hand.

    >>> from p2p8s.cards import parse_cards
    >>> hand = parse_cards("8H QS AD KC 5D TS".split())
    >>> hand_value(hand, Ruleset()), hand_value(hand, Ruleset.classic())
    (115, 86)
    """
    values = TABLE_VALUE if rules.action_cards else CLASSIC_VALUE
    return sum(values[c] for c in cards)


def default_target(rules: Ruleset, players: int, *, solo: bool = True) -> int:
    """The match target when ``rules.target`` is None.

    Table rules: 50 per seat in solo play, 100 at a friends' table (R-TARGET-TABLE).
    Classic: 100 (R-TARGET-CLASSIC). Countdown has no points: returns 0.
    """
    if rules.target is not None:
        return rules.target
    if rules.countdown:
        return 0
    if rules.action_cards:
        return 50 * players if solo else 100
    return 100
