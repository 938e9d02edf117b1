"""The coach: in a player's first round ever, it explains each card kind the first time
it matters and says why a card cannot be played. Pure: views and events in, lines out.

Topics (each explained once, :attr:`Coach.seen` remembers which):
``match`` (what fits), ``eight`` (wild 8s), ``declared`` (a declared suit), ``penalty``
(the 2), ``counter`` (facing a penalty), ``skip`` (Q), ``reverse`` (A), ``multi``
(several cards at once), ``draw`` (drawing and the draw limit), ``drawn`` (a drawn card
that fits), ``limit`` (the draw limit reached).

>>> from p2p8s.cards import parse_cards
>>> coach = Coach()
>>> coach.why_not_text(top=Card.parse("9H"), suit=Suit.HEARTS, declared=False,
...                    pending=0, drawn=None, cards=parse_cards(["5C"]), wild=8)
"5C doesn't fit on 9H: you need a heart, a 9, or an 8."
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from p2p8s.bots.base import View
from p2p8s.cards import Card, Rank, Suit
from p2p8s.engine import Action, Draw, Event, Pass, Play, Take

SUIT_ONE = ("club", "diamond", "heart", "spade")
SUIT_MANY = ("clubs", "diamonds", "hearts", "spades")

#: Every topic the coach knows, in no particular order.
TOPICS = ("match", "eight", "declared", "penalty", "counter", "skip", "reverse", "multi",
          "draw", "drawn", "limit")

CardText = Callable[[Card], str]


def _rank_name(rank: int) -> str:
    return {1: "ace", 11: "jack", 12: "queen", 13: "king", 10: "10"}.get(rank, str(rank))


class Coach:
    """Explains the game once per topic. ``card`` formats a card (default ``str``).

    Every method returns lines prefixed ``Coach:``; an empty list means nothing new.
    """

    def __init__(self, seen: Iterable[str] = (), card: CardText = str) -> None:
        self.seen: set[str] = {t for t in seen if t in TOPICS}
        self.card = card

    def _once(self, topic: str, text: str) -> list[str]:
        if topic in self.seen:
            return []
        self.seen.add(topic)
        return [f"Coach: {text}"]

    # ------------------------------------------------------------------ moves

    def on_turns(self, view: View, turns: Sequence[Sequence[Event]],
                 names: Sequence[str]) -> list[str]:
        """Explain cards that were just played (``turns`` as grouped events)."""
        out: list[str] = []
        for events in turns:
            last = events[-1]
            if isinstance(last.action, Play):
                out += self._played(view, last, names)
        return out

    def _played(self, view: View, event: Event, names: Sequence[str]) -> list[str]:
        play = event.action
        assert isinstance(play, Play)
        who = "You" if event.seat == view.seat else names[event.seat]
        out: list[str] = []
        rank = play.cards[-1].rank
        if len(play.cards) > 1:
            out += self._multi()
        if rank == view.wild[event.seat] and play.suit is not None:
            out += self._eight(view)
            suit = play.suit
            out += self._once(
                "declared",
                f"{who} declared {SUIT_MANY[suit]}. Until another card changes it, only "
                f"a {SUIT_ONE[suit]} or another wild card fits — whatever the top card "
                "shows.")
        if not view.rules.action_cards:
            return out
        if rank == Rank.TWO:
            out += self._penalty()
        elif rank == Rank.QUEEN:
            out += self._skip(view)
        elif rank == Rank.ACE:
            out += self._reverse(view)
        return out

    def _eight(self, view: View) -> list[str]:
        wild = view.wild[view.seat]
        name = "8s are" if wild == 8 else f"{_rank_name(wild)}s (your number) are"
        return self._once(
            "eight",
            f"{name} wild: play one on anything, then declare the suit the next player "
            "must follow. Keep it for when nothing else fits, or for your last card — "
            "held too long it costs 50 points.")

    def _penalty(self) -> list[str]:
        return self._once(
            "penalty",
            "a 2 is a draw penalty: the next player draws 2 cards and misses the turn — "
            "unless they play a 2 of their own, which adds 2 and passes it on.")

    def _skip(self, view: View) -> list[str]:
        extra = (" With two players that means the same player moves again."
                 if view.players == 2 else "")
        return self._once("skip", "a queen skips the next player: they miss their turn."
                          + extra)

    def _reverse(self, view: View) -> list[str]:
        if view.players == 2:
            text = ("an ace reverses the direction; with two players that works like a "
                    "queen: the same player moves again.")
        else:
            text = ("an ace reverses the direction of play — the 'Play goes' line shows "
                    "who is next.")
        return self._once("reverse", text)

    def _multi(self) -> list[str]:
        return self._once(
            "multi",
            "several cards of the same rank may go in one turn, like `3 5`: the first "
            "must fit, the others only need the same rank, and the last sets the suit.")

    # ------------------------------------------------------------------ decisions

    def before_move(self, view: View, legal: Sequence[Action]) -> list[str]:
        """Explain what matters for the decision the player now faces."""
        out: list[str] = []
        plays = [a for a in legal if isinstance(a, Play)]
        if view.pending_draw:
            twos = bool(plays)
            how = ("play a 2 to pass a penalty of "
                   f"{view.pending_draw + 2} to the next player, or type t to take them"
                   if twos else "you hold no 2, so type t to take them")
            out += self._penalty()
            out += self._once(
                "counter",
                f"a penalty of {view.pending_draw} cards is waiting for you. Only a 2 "
                f"counters it — not even an 8: {how}. Taking ends your turn.")
            return out
        if view.drawn:
            if plays:
                out += self._once(
                    "drawn",
                    "the card you drew fits: play it with its number now, or keep it "
                    "and pass (p).")
            elif not any(isinstance(a, Draw) for a in legal) and any(
                    isinstance(a, Pass) for a in legal):
                limit = view.rules.draw_limit
                out += self._once(
                    "limit",
                    f"that was the draw limit ({limit} cards a turn) — nothing fits, so "
                    "pass (p)." if limit else "nothing is left to draw, so pass (p).")
            return out
        if plays:
            out += self._once(
                "match",
                "cards marked * fit: same suit as the top card (or the declared suit) "
                "or the same rank. Type a card's number to play it.")
            firsts = {p.cards[0].rank for p in plays}
            if view.wild[view.seat] in firsts:
                out += self._eight(view)
            if view.rules.action_cards:
                if Rank.TWO in firsts:
                    out += self._penalty()
                if Rank.QUEEN in firsts:
                    out += self._skip(view)
                if Rank.ACE in firsts:
                    out += self._reverse(view)
            if view.rules.multi_play and any(len(p.cards) > 1 for p in plays):
                out += self._multi()
        elif any(isinstance(a, Draw) for a in legal):
            limit = view.rules.draw_limit
            how = (f"up to {limit} cards this turn, then you pass" if limit
                   else "until one fits")
            out += self._once(
                "draw",
                f"nothing fits, so draw (d), one card at a time — {how}. A drawn card "
                "that fits may be played at once.")
        elif any(isinstance(a, Take) for a in legal):
            pass
        return out

    # ------------------------------------------------------------------ refusals

    def why_not(self, view: View, cards: Sequence[Card], message: str) -> str:
        """Why the play of ``cards`` is refused, in one line; ``message`` is the
        engine's reason, used when there is no better explanation."""
        text = self.why_not_text(
            top=view.top, suit=view.suit, declared=view.declared, pending=view.pending_draw,
            drawn=view.last_drawn if view.drawn else None, cards=cards,
            wild=view.wild[view.seat], multi=view.rules.multi_play)
        return text or message[:1].upper() + message[1:] + "."

    def why_not_text(self, *, top: Card, suit: Suit, declared: bool, pending: int,
                     drawn: Card | None, cards: Sequence[Card], wild: int,
                     multi: bool = True) -> str:
        """The explanation for :meth:`why_not` from the facts it needs ("" if none)."""
        if not cards:
            return ""
        c = self.card
        first = cards[0]
        if len(cards) > 1 and not multi:
            return "This table plays one card a turn (multi-play is off)."
        if any(x.rank != first.rank for x in cards):
            return (f"Cards played together must share a rank: {c(first)} and "
                    f"{c(next(x for x in cards if x.rank != first.rank))} do not.")
        if pending:
            if first.rank == Rank.TWO:
                return ""
            return (f"{c(first)} can't go now: a draw penalty of {pending} is waiting and "
                    "only a 2 counters it (not even an 8). Play a 2 or take the cards (t).")
        if drawn is not None and first != drawn:
            return (f"After drawing you may only play the card you drew ({c(drawn)}), "
                    "or pass (p) to keep it.")
        if first.rank == wild:
            return ""
        if declared:
            if first.suit == suit:
                return ""
            return (f"{c(first)} doesn't fit: {SUIT_MANY[suit]} were declared, so you need "
                    f"a {SUIT_ONE[suit]} or a wild card.")
        if first.suit == suit or first.rank == top.rank:
            return ""
        wild_text = "an 8" if wild == 8 else f"a {_rank_name(wild)} (your wild rank)"
        return (f"{c(first)} doesn't fit on {c(top)}: you need a {SUIT_ONE[suit]}, "
                f"a {_rank_name(top.rank)}, or {wild_text}.")
