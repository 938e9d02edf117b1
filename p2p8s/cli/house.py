"""House rules on the command line: ``--rules PRESET`` and the single rules on top of it
(RULES.md §2, §11), the same options for ``p2p8s play``, ``p2p8s host`` and
``p2p8s simulate``.

:func:`house_options` adds the options to a click command; the command passes what it
received to :class:`HouseChoice` and builds the :class:`~p2p8s.rules.Ruleset` with
:meth:`HouseChoice.ruleset`. Options that contradict each other (``--rules table
--classic``) or mean nothing under the preset (``--target`` or ``--hand-size`` with
countdown) are click usage errors (exit 2), said before anything is played.

>>> HouseChoice(preset="classic", draw_limit=0).ruleset().draw_limit
0
>>> HouseChoice(classic=True).chosen_preset()
'classic'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import click

from p2p8s.cards import deck_size, decks_for
from p2p8s.rules import PRESET_NAMES, Ruleset, check_players

F = TypeVar("F", bound=Callable[..., Any])

#: The presets a person picks (RULES.md §11), the default first.
PRESETS: tuple[str, ...] = PRESET_NAMES
#: The largest hand a host may deal (R-ZW-DEAL allows 5-8; more is never dealt).
MAX_HAND = 12
#: The hand sizes a host may choose under a preset, where it says (R-ZW-DEAL: 5-8).
HAND_CHOICE: dict[str, range] = {"zimbabwe": range(5, 9)}


@dataclass(frozen=True, slots=True, kw_only=True)
class HouseChoice:
    """What the rule options of one command line said (``None``: not given).

    ``preset`` is ``--rules``; ``classic``/``table``/``countdown`` the old flags that
    name a preset (``--classic``, ``--table``, ``--countdown``; ``standard`` is
    ``--standard``, "not countdown"); the rest are the single house rules.
    """

    preset: str | None = None
    classic: bool | None = None
    countdown: bool | None = None
    multi: bool | None = None
    draw_limit: int | None = None
    draw_when_playable: bool | None = None
    reshuffle: bool | None = None
    hand_size: int | None = None
    target: int | None = None

    def chosen_preset(self) -> str | None:
        """The preset the options name, or None when none does. Raises
        click.UsageError when two options name different presets."""
        chosen: dict[str, str] = {}
        if self.preset is not None:
            chosen[f"--rules {self.preset}"] = self.preset
        if self.classic is not None:
            chosen["--classic" if self.classic else "--table"] = (
                "classic" if self.classic else "table")
        if self.countdown:
            chosen["--countdown"] = "countdown"
        kinds = set(chosen.values())
        if len(kinds) > 1:
            raise click.UsageError(f"{' and '.join(chosen)} contradict each other: "
                                   f"choose one of {', '.join(PRESETS)}")
        return kinds.pop() if kinds else None

    def singles(self) -> dict[str, Any]:
        """The single house rules given, as :class:`~p2p8s.rules.Ruleset` options."""
        given = {"multi_play": self.multi, "draw_limit": self.draw_limit,
                 "draw_when_playable": self.draw_when_playable, "reshuffle": self.reshuffle,
                 "hand_size": self.hand_size, "target": self.target}
        return {k: v for k, v in given.items() if v is not None}

    def ruleset(self, *, base: str | None = None, players: int | None = None) -> Ruleset:
        """The ruleset: the chosen preset (else ``base``, else table rules) with the
        single rules on top. ``players``, when known, checks that the hand size can be
        dealt. Raises click.UsageError for options that contradict each other or the
        preset."""
        name = self.chosen_preset() or base or PRESETS[0]
        return house_ruleset(name, self.singles(), players=players)


def house_ruleset(preset: str, singles: dict[str, Any], *, players: int | None = None
                  ) -> Ruleset:
    """``preset``'s ruleset with ``singles`` (Ruleset option names) on top; raises
    click.UsageError for a single rule that means nothing under the preset or a hand
    that cannot be dealt to ``players``."""
    rules = Ruleset.for_preset(preset)
    if rules.countdown:
        if "target" in singles:
            raise click.UsageError("--target means nothing in countdown: a countdown match "
                                   "ends when a player's number reaches 0, not at a score")
        if "hand_size" in singles:
            raise click.UsageError("--hand-size means nothing in countdown: each player's "
                                   "number is their hand size")
    rules = rules.with_changes(**singles)
    size = singles.get("hand_size")
    sizes = HAND_CHOICE.get(preset)
    if size is not None and sizes is not None and size not in sizes:
        raise click.UsageError(f"--hand-size {size} is not allowed in {preset}: the host "
                               f"may deal {sizes.start} to {sizes.stop - 1} cards")
    if players is not None and size is not None:
        check_players(players)
        deck = deck_size(decks_for(players), jokers=rules.rule_table.jokers)
        if size * players >= deck:
            raise click.UsageError(
                f"--hand-size {size} cannot be dealt to {players} players from "
                f"{deck} cards (one card must start the pile)")
    return rules


def house_options(*, play: bool = False) -> Callable[[F], F]:
    """Add ``--rules`` and the single house rules to a command. ``play`` adds the
    on/off pairs and the old preset flags of ``p2p8s play`` (``--classic/--table``,
    ``--countdown/--standard``, ``--multi/--no-multi``) and lets ``--target 0`` mean
    the default; otherwise ``--classic`` and ``--no-multi`` are plain flags (as
    ``p2p8s host`` always had them)."""

    def add(command: F) -> F:
        opts: list[Callable[[F], F]] = [
            click.option("--rules", "preset", type=click.Choice(PRESETS), default=None,
                         help="House rules preset (default: table)."),
        ]
        if play:
            opts += [
                click.option("--classic/--table", default=None,
                             help="Same as --rules classic / --rules table."),
                click.option("--countdown/--standard", default=None,
                             help="The countdown variant (--classic, --table or --target "
                                  "imply --standard)."),
                click.option("--multi/--no-multi", default=None,
                             help="Several cards of one rank in a turn (default: the "
                                  "preset's)."),
                click.option("--draw-when-playable/--no-draw-when-playable", default=None,
                             help="Drawing is allowed while holding a playable card; the "
                                  "turn goes on after a draw."),
                click.option("--reshuffle/--no-reshuffle", default=None,
                             help="Shuffle the discards into a new stock when it runs out."),
                click.option("--target", type=click.IntRange(0, None), metavar="T",
                             help="Match target in points; 0 = the preset's default."),
            ]
        else:
            opts += [
                click.option("--classic", is_flag=True, default=None,
                             help="Same as --rules classic."),
                click.option("--no-multi", "multi", flag_value=False, default=None,
                             help="One card a turn (no multi-play)."),
                click.option("--draw-when-playable", is_flag=True, default=None,
                             help="Drawing is allowed while holding a playable card; the "
                                  "turn goes on after a draw."),
                click.option("--no-reshuffle", "reshuffle", flag_value=False, default=None,
                             help="An empty stock stays empty for the round."),
                click.option("--target", type=click.IntRange(1, None), metavar="T",
                             help="Match target in points (default: the preset's)."),
            ]
        opts += [
            click.option("--draw-limit", type=click.IntRange(0, None), metavar="N",
                         help="Cards one turn may draw; 0 = until one fits (default: the "
                              "preset's)."),
            click.option("--hand-size", type=click.IntRange(1, MAX_HAND), metavar="N",
                         help="Cards dealt to each player (default: the preset's)."),
        ]
        for opt in reversed(opts):
            command = opt(command)
        return command

    return add


def house_choice(params: dict[str, Any]) -> HouseChoice:
    """Take the house-rule options out of a command's keyword ``params`` (they are
    removed) as a :class:`HouseChoice`; ``--target 0`` means "the default"."""
    target = params.pop("target", None)
    return HouseChoice(
        preset=params.pop("preset", None), classic=params.pop("classic", None),
        countdown=params.pop("countdown", None), multi=params.pop("multi", None),
        draw_limit=params.pop("draw_limit", None),
        draw_when_playable=params.pop("draw_when_playable", None),
        reshuffle=params.pop("reshuffle", None), hand_size=params.pop("hand_size", None),
        target=target or None)
