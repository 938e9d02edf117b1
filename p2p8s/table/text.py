"""Sentences for people about applied actions (the ``text`` of
:class:`~p2p8s.table.events.Applied`).

>>> from p2p8s.cards import Card
>>> from p2p8s.engine import Event, Play
>>> from p2p8s.rules import Ruleset
>>> q = Play((Card.parse("QS"),))
>>> describe(Event(1, q), names=("Ann", "Bea", "Cem"), me=0, rules=Ruleset(),
...          direction=1, out=False)
'Bea played Q♠ — Cem misses a turn'
"""

from __future__ import annotations

from collections.abc import Sequence

from p2p8s.cards import Card, Rank
from p2p8s.engine import Draw, Event, Pass, Play, Take
from p2p8s.rules import Ruleset


def _cards(cards: Sequence[Card]) -> str:
    return " ".join(c.pretty() for c in cards)


def _name(names: Sequence[str], seat: int, me: int) -> str:
    return "you" if seat == me else names[seat]


def _effect(play: Play, seat: int, *, players: int, names: Sequence[str], me: int,
            rules: Ruleset, direction: int, penalty: int) -> str:
    """R-TWO, R-QUEEN, R-ACE, R-NEXT in words; ``direction`` is the one before the play."""
    if not rules.action_cards:
        return ""
    rank = play.cards[-1].rank
    k = len(play.cards)
    if rank == Rank.TWO:
        return f" — draw penalty {penalty} for {_name(names, (seat + direction) % players, me)}"
    if rank == Rank.QUEEN or (rank == Rank.ACE and players == 2):
        skipped = {(seat + direction * j) % players for j in range(1, k + 1)} - {seat}
        if not skipped or (players == 2 and k % 2 == 1):
            return f" — {_name(names, seat, me)} {'play' if seat == me else 'plays'} again"
        who = [_name(names, s, me) for s in sorted(skipped)]
        text = who[0] if len(who) == 1 else ", ".join(who[:-1]) + " and " + who[-1]
        verb = "misses" if len(who) == 1 and who[0] != "you" else "miss"
        return f" — {text} {verb} a turn"
    if rank == Rank.ACE:
        return " — reversed twice, same direction" if k % 2 == 0 else " — direction reversed"
    return ""


def describe(event: Event, *, names: Sequence[str], me: int, rules: Ruleset, direction: int,
             out: bool) -> str:
    """One sentence for an applied engine ``event``; ``me`` (the local seat) is "You"
    and sees its own drawn cards; ``out`` marks a play that emptied the hand (R-OUT)."""
    seat = event.seat
    who = "You" if seat == me else names[seat]
    action = event.action
    note = " (the discards were shuffled into a new stock)" if event.reshuffled else ""
    drawn = [c for c in event.drawn if c is not None]
    shown = seat == me and len(drawn) == len(event.drawn) and drawn
    if isinstance(action, Draw):
        if not event.drawn:
            return f"{who} could not draw{note}"
        return f"{who} drew {_cards(drawn) if shown else 'a card'}{note}"
    if isinstance(action, Pass):
        return f"{who} passed"
    if isinstance(action, Take):
        n = len(event.drawn)
        what = _cards(drawn) if shown else f"{n} card{'' if n == 1 else 's'}"
        return f"{who} took the draw penalty: {what}{note}"
    assert isinstance(action, Play)
    text = f"{who} played {_cards(action.cards)}"
    if out:
        return text + f" and {'go' if seat == me else 'goes'} out"
    if action.suit is not None:
        text += f" and declared {action.suit.glyph}"
    return text + _effect(action, seat, players=len(names), names=names, me=me, rules=rules,
                          direction=direction, penalty=event.penalty)
