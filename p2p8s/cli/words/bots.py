"""The words of the computer players: their descriptions, and the reasons of a hint
(:class:`~p2p8s.bots.hints.HintCode`).

A hint names players by the speaker's names; a speaker without names says "the next
player" for the next seat and "seat N" for another.

>>> from p2p8s.errors import Note
>>> from p2p8s.cards import Rank
>>> from p2p8s.cli.words import Speaker
>>> note = Note.of(HintCode.ATTACK, rank=Rank.QUEEN, seat=1, next=1, left=1)
>>> Speaker().say(note.code, **note.params), Speaker(names=("Ann", "Bea")).say(
...     note.code, **note.params)
('Play the Q now: the next player has one card left.', 'Play the Q now: Bea has one card left.')
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum

from p2p8s.bots.arena import ArenaCode
from p2p8s.bots.hints import HintCode
from p2p8s.bots.registry import BotCode
from p2p8s.cards import Rank
from p2p8s.cli.words import Speaker, Template
from p2p8s.cli.words.phrases import SUIT_MANY, SUIT_ONE, Params, article, derive, number

BOTS: dict[Enum, Template] = {
    BotCode.HANNA: "Hoards her 8s for the last card or the tightest spot.",
    BotCode.KARL: ("Sheds his expensive cards first: kings, queens and action cards never "
                   "linger."),
    BotCode.VERA: "Goes after whoever is about to go out with queens, 2s and aces.",
    BotCode.MAX: ("Counts cards and reads the table: who drew, who passed, which suit was "
                  "called."),
    BotCode.EXPERT: "Thinks ahead: plays out hundreds of possible futures before every move.",
    BotCode.RANDOM: "Plays any legal move at random — the baseline.",
    BotCode.UNKNOWN: derive("no computer player called {n} (known: {names})",
                            n=lambda p: repr(p["name"]), names=lambda p: ", ".join(p["known"])),
    ArenaCode.ROUND_CAP: "a round did not end within the action cap",
    ArenaCode.MATCH_CAP: "the match did not end within the round cap",
}


def _who(sp: Speaker, p: Params, key: str) -> str:
    seat = p[key]
    if sp.names or seat != p.get("next"):
        return sp.name(seat)
    return "the next player"


def _hint(text: str | Callable[[Params], str], /, **extra: Callable[[Params], object]
          ) -> Template:
    """A reason template: ``{who}`` (and ``{target_who}``) name the seats (module doc);
    ``{name}`` is the suit's name; ``extra`` as in :func:`~p2p8s.cli.words.rules.derive`."""
    base = derive(text, **extra)

    def render(sp: Speaker, p: Params) -> str:
        more: dict[str, object] = {}
        if "seat" in p:
            more["who"] = _who(sp, p, "seat")
        if "target" in p:
            more["target_who"] = _who(sp, p, "target")
        if "suit" in p:
            more["name"] = SUIT_MANY[p["suit"]]
        return base(sp, {**p, **more})

    return render


def _count(k: int, suit: int) -> str:
    """``a club``, ``three clubs``."""
    return f"a {SUIT_ONE[suit]}" if k == 1 else f"{number(k)} {SUIT_MANY[suit]}"


def _cards_left(p: Params) -> str:
    return "one card" if p["left"] == 1 else "two cards"


def _ranks(p: Params) -> str:
    return " or ".join(Rank(r).letter for r in p["counters"])


def _every(p: Params) -> str:
    return "both" if p["held"] == 2 else f"all {number(p['held'])}"


def _kept(p: Params) -> str:
    what = "wild card" if p["own"] else Rank(p["wild"]).letter
    return article(what) if p["kept"] == 1 else f"{number(p['kept'])} {what}s"


def _rank_list(key: str) -> Callable[[Params], str]:
    return lambda p: " or ".join(Rank(r).letter for r in p[key])


HINTS: dict[Enum, Template] = {
    HintCode.LUCKY: derive(
        "Turn the lucky card: {good} of the {unseen} cards you have not seen would turn the "
        "penalty away; taking costs {pending} for sure."),
    HintCode.MISS_TURN: derive("Miss the turn (p): you have no {r} to pass the skip on.",
                               r=_rank_list("ranks")),
    HintCode.PASS_SKIP: _hint("Play {cards}: the skip passes on to {who} instead of you."),
    HintCode.BLOCK: "Block with {cards}: nobody draws the {pending} cards.",
    HintCode.BOUNCE: _hint("Bounce with the {r}: {who} moves once, then it is your turn again.",
                           r=lambda p: Rank(p["rank"]).letter),
    HintCode.AIR_DRAW: "You are in the air: draw a card first, then play on.",
    HintCode.GO_AIR: ("Play {cards}: your hand is empty but the card is special, so you stay "
                      "in the air — still better than keeping it."),
    HintCode.PICK_PASS: "Pass: after taking, nothing you could play is worth it now.",
    HintCode.DRAW_INSTEAD: derive(lambda p: (
        "Draw: " + ("the card that fits is" if p["fits"] == 1 else "the cards that fit are")
        + " worth more kept for later.")),
    HintCode.NO_COUNTER: derive("Take the penalty: you have no {r}.", r=_ranks),
    HintCode.SHIELD: derive("Take the {pending} cards and keep your {r} as a shield.", r=_ranks),
    HintCode.DRAW_AGAIN: "Draw again: the drawn card does not fit.",
    HintCode.DRAW: "Draw: nothing in your hand fits.",
    HintCode.KEEP_DRAWN: "Keep the drawn {card} and pass.",
    HintCode.PASS: "Pass: nothing fits and you may not draw any more.",
    HintCode.GO_OUT: "Play {cards} and go out: the round is yours.",
    HintCode.COUNTER: _hint("Counter with {cards}: {who} faces {faces} cards instead of you."),
    HintCode.REVERSE_AWAY: _hint(
        "Reverse with the {r} now: {who} has {count} left, the turn goes to {target_who} "
        "instead.", r=lambda p: Rank(p["rank"]).letter, count=_cards_left),
    HintCode.ATTACK: _hint("Play the {r} now: {who} has {count} left.",
                           r=lambda p: Rank(p["rank"]).letter, count=_cards_left),
    HintCode.DUMP_WILD: _hint(
        "Get rid of your {card} now: {who} has one card left, and it is worth {value} points."),
    HintCode.KEEP_WILD: derive(
        "Keep your {what}: you can follow suit with {card}.",
        what=lambda p: "wild card" if p["own"] else Rank(p["wild"]).letter),
    HintCode.MANY: derive("Play all {k} at once: that empties {count} of your {hand} cards in "
                          "one turn.", k=lambda p: number(p["count"])),
    HintCode.VOID_NEXT: _hint("Play {cards}: {who} drew on {name} and has none."),
    HintCode.BOTH: "Play both {cards}: two cards gone in one turn.",
    HintCode.SHED: "Shed the {cards} — {value} points you don't want to be caught with.",
    HintCode.KEEP_SUIT: _hint("Play {cards}: it keeps {name} on the pile, and you hold {k} more.",
                              k=lambda p: number(p["held"])),
    HintCode.FITS: "Play {cards}: it fits and keeps your options open.",
    HintCode.DECLARE_VOID_NEXT: _hint("Change to {name}: {who} drew on {name} and has none."),
    HintCode.DECLARE_ONLY_OTHER: _hint("Change to {name}: your only other card is {one}.",
                                       one=lambda p: _count(1, p["suit"])),
    HintCode.DECLARE_ALL_OTHER: _hint("Change to {name}: {every} of your other cards are {name}.",
                                      every=_every),
    HintCode.DECLARE_HOLD: _hint(
        "Change to {name}: you hold {held_text}{tail}.",
        held_text=lambda p: _count(p["held"], p["suit"]),
        tail=lambda p: ", your longest suit" if p["longest"] else ""),
    HintCode.DECLARE_ONLY_WILD: _hint(
        "Change to {name}: all you keep is {what}, and {fits} any suit.", what=_kept,
        fits=lambda p: "it fits" if p["kept"] == 1 else "they fit"),
    HintCode.DECLARE_VOID_LATER: _hint(
        "Change to {name}: you hold none, but {who} drew on {name} and has none either."),
    HintCode.DECLARE_ON_PILE: _hint(
        "Change to {name}: you hold none, but {gone_text} are already on the discard pile, "
        "so the others are short of them too.", gone_text=lambda p: _count(p["gone"], p["suit"])),
    HintCode.DECLARE_LOOKAHEAD: _hint(
        "Change to {name}: you hold none, but the look-ahead finds the others least able to "
        "follow {name}."),
}

TEMPLATES: dict[Enum, Template] = {**BOTS, **HINTS}
