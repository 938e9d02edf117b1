"""The coach's words (:class:`~p2p8s.coach.CoachCode`): the topics, said once each in a
first round ("Coach: …"), and why a card cannot go.

>>> from p2p8s.errors import Note
>>> from p2p8s.cards import Card, Rank, Suit
>>> from p2p8s.cli.look import Look
>>> from p2p8s.cli.words import Speaker
>>> lines(Speaker(look=Look(ascii=True)), [Note.of(CoachCode.NO_FIT, card=Card.parse("5C"),
...       top=Card.parse("AH"), suit=Suit.HEARTS, rank=Rank.ACE, wild=Rank.EIGHT, own=False)])
["5C doesn't fit on AH: you need a heart, an ace, or an 8."]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from enum import Enum

from p2p8s.cli.words import Speaker, Template
from p2p8s.cli.words.phrases import (
    SUIT_MANY,
    SUIT_ONE,
    Params,
    article,
    derive,
    either,
    rank_name,
)
from p2p8s.coach import CoachCode
from p2p8s.errors import Note


def _a(key: str) -> Callable[[Params], str]:
    """The parameter ``key`` (a rank) as ``a queen`` / ``an 8``."""
    return lambda p: article(rank_name(p[key]))


def _counters(p: Params) -> str:
    """What counters a penalty, as template text (``a 2 or the {cards}``, ``a 2 or a
    joker``; ``{cards}`` is filled by the speaker's look)."""
    return either([article(rank_name(r)) for r in p["counters"]]
                  + (["the {cards}"] if p.get("cards") else [])
                  + (["a joker"] if p.get("jokers") else [])) + (
        " that also fits the top card" if p.get("fits") else "")


def _no_counter(p: Params) -> str:
    """``no 2 or joker``; ``none that fits`` when a counter must fit the top card too."""
    if p.get("fits"):
        return "none that fits"
    return "no " + either([rank_name(r) for r in p["counters"]]
                          + (["{cards}"] if p.get("cards") else [])
                          + (["joker"] if p.get("jokers") else []), "or")


def _wild_name(p: Params) -> str:
    return f"{rank_name(p['wild'])}s" + (" (your number)" if p["own"] else "")


def _counter_how(p: Params) -> str:
    extra = ""
    if p.get("blocks"):
        extra += ", block it with {a_block}"
    if p.get("lucky"):
        extra += ", turn the lucky card (l)"
    if p["passed"] is None:
        return "you hold " + _no_counter(p) + ", so" + (
            extra[1:] + " or" if extra else "") + " type t to take them"
    return "play one to pass a penalty of {passed} to the next player" + extra + \
        ", or type t to take them"


def _after_take(p: Params) -> str:
    return (" After taking you may still play one card (unless it came with nopick)."
            if p.get("pick") else " Taking ends your turn.")


def _costs(p: Params) -> str:
    scoring = p.get("scoring", "hand")
    if scoring is None:
        return ""  # countdown: no points
    if scoring == "collect":
        return " — left in your hand it is worth {value} points to whoever goes out"
    return " — held too long it costs {value} points"


def _reverse(p: Params) -> str:
    if p["heads_up"]:
        return ("Coach: {a_rank} reverses the direction; with two players that works like "
                "{like_text}: the same player moves again.")
    return ("Coach: {a_rank} reverses the direction of play — the 'Play goes' line shows who "
            "is next.")


_CHOICE_WORDS = {"skip": "skip (the next player misses a turn)",
                 "reverse": "reverse (the direction of play turns)",
                 "bounce": "bounce (the previous player moves once, then you again)"}


TEMPLATES: dict[Enum, Template] = {
    CoachCode.MATCH: ("Coach: cards marked * fit: same suit as the top card (or the declared "
                      "suit) or the same rank. Type a card's number to play it."),
    CoachCode.EIGHT: derive(
        lambda p: ("Coach: {name} are wild: play one on anything, then declare the suit the "
                   "next player must follow. Keep it for when nothing else fits, or for your "
                   "last card" + _costs(p) + "."), name=_wild_name),
    CoachCode.DECLARED: derive(
        "Coach: {seat:Who} declared {many}. Until another card changes it, only a {one} or "
        "another wild card fits — whatever the top card shows.",
        many=lambda p: SUIT_MANY[p["suit"]], one=lambda p: SUIT_ONE[p["suit"]]),
    CoachCode.PENALTY: derive(
        lambda p: ("Coach: {a_rank} is a draw penalty: the next player draws {penalty} cards "
                   + ("and may then still play one card" if p.get("pick")
                      else "and misses the turn")
                   + " — unless they play {a_rank} of their own"
                   + (" that also fits the top card" if p.get("fits") else "")
                   + ", which adds {penalty} and passes it on."), a_rank=_a("rank")),
    CoachCode.COUNTER: derive(
        lambda p: ("Coach: a penalty of {pending} cards is waiting for you. Only "
                   + _counters(p) + " counters it — not even {a_wild}: " + _counter_how(p)
                   + "." + _after_take(p)),
        a_wild=_a("wild"),
        a_block=lambda p: either(article(rank_name(r)) for r in p.get("blocks") or [1])),
    CoachCode.SKIP: derive(
        lambda p: ("Coach: {a_rank} skips the next player: they miss their turn"
                   + (" — unless they play {a_rank} of their own, which passes the skip on "
                      "(facing a skip: play one, or p to miss the turn)" if p.get("passes")
                      else "") + "."
                   + (" With two players that means the same player moves again."
                      if p["heads_up"] else "")),
        a_rank=_a("rank")),
    CoachCode.CHOICE: derive(
        lambda p: ("Coach: with {a_rank} you choose: " + " or ".join(
            _CHOICE_WORDS[c] for c in p["choices"]) + ". Type it with the card (like "
            "`3 " + p["choices"][-1] + "`), or you will be asked."), a_rank=_a("rank")),
    CoachCode.JOKER: ("Coach: a joker fits on any card (not on a skip) and adds {penalty} to "
                      "the draw penalty; a 2 may go on it. It declares no suit."),
    CoachCode.BLOCK: derive("Coach: {a_rank} blocks a draw penalty: nobody draws, and the "
                            "next player plays on it.", a_rank=_a("rank")),
    CoachCode.LUCKY: ("Coach: facing a penalty you may turn the lucky card (l): an ace "
                      "blocks it, a 2 or a joker is played and passes it on, anything else "
                      "you take together with the penalty."),
    CoachCode.PICK_PLAY: ("Coach: you took the penalty — you may still play one card that "
                          "fits (pick and play), or pass (p)."),
    CoachCode.NOPICK: ("Coach: {seat:Who} declared nopick with the penalty: whoever takes it "
                       "may not play a card after taking."),
    CoachCode.AIR: derive(lambda p: (
        "Coach: you are in the air: your last card was special, so you are not out. At "
        "your turn draw a card (d), then play on." if p["you"] else
        "Coach: {seat:Who} is in the air: the last card was special, so the round goes on; "
        "at their turn they draw a card first.")),
    CoachCode.REVERSE: derive(_reverse, a_rank=_a("rank"), like_text=lambda p: (
        article(rank_name(p["like"])) if p.get("like") is not None else "a skip")),
    CoachCode.MULTI: ("Coach: several cards of the same rank may go in one turn, like `3 5`: "
                      "the first must fit, the others only need the same rank, and the last "
                      "sets the suit."),
    CoachCode.DRAW: derive(
        lambda p: ("Coach: nothing fits, so draw (d), one card at a time — "
                   + ("up to {limit} card{limit:s} this turn, then you pass" if p["limit"]
                      else "until one fits")
                   + (". After a draw any card that fits may go, or draw again, or pass."
                      if p.get("any") else ". A drawn card that fits may be played at once."))),
    CoachCode.DRAWN: derive(lambda p: (
        ("Coach: " + ("the card you drew fits, and " if p.get("fits") else "")
         + "any card that fits may go now: type its number"
         + (", draw again (d)" if p.get("again") else "") + ", or pass (p).")
        if p.get("any") else
        "Coach: the card you drew fits: play it with its number now, or keep it and pass "
        "(p).")),
    CoachCode.LIMIT: derive(
        lambda p: ("Coach: that was the draw limit ({limit} card{limit:s} a turn) — nothing "
                   "fits, so pass (p)." if p["limit"]
                   else "Coach: nothing is left to draw, so pass (p).")),
    CoachCode.ONE_CARD: "This table plays one card a turn (multi-play is off).",
    CoachCode.RANKS_DIFFER: "Cards played together must share a rank: {card} and {other} do not.",
    CoachCode.PENALTY_WAITING: derive(
        lambda p: ("{card} can't go now: a draw penalty of {pending} is waiting and only "
                   + _counters(p) + " counters it (not even {a_wild}). Play one or take "
                   "the cards (t)."), a_wild=_a("wild")),
    CoachCode.ONLY_DRAWN: ("After drawing you may only play the card you drew ({drawn}), "
                           "or pass (p) to keep it."),
    CoachCode.DECLARED_SUIT: derive(
        "{card} doesn't fit: {many} were declared, so you need a {one} or a wild card.",
        many=lambda p: SUIT_MANY[p["suit"]], one=lambda p: SUIT_ONE[p["suit"]]),
    CoachCode.NO_FIT: derive(
        "{card} doesn't fit on {top}: you need a {one}, {a_rank}, or {wild_text}.",
        one=lambda p: SUIT_ONE[p["suit"]], a_rank=_a("rank"),
        wild_text=lambda p: article(rank_name(p["wild"]))
        + (" (your wild rank)" if p["own"] else "")),
}


def lines(speaker: Speaker, notes: Iterable[Note]) -> list[str]:
    """What ``speaker`` says for each of the coach's ``notes``."""
    return [speaker.note(n) for n in notes]
