"""The coach: in a player's first round ever, it explains each card kind the first time
it matters and says why a card cannot be played. Pure: views and events in, notes out
(:class:`~p2p8s.bots.base.Note`: a :class:`CoachCode` and its data; the CLI says them).

What a card does comes from the ruleset's rule table (:mod:`p2p8s.ruletable`): a card
that adds a draw penalty is explained as the penalty, one that skips as the skip, one
that reverses as the reverse, whatever its rank.

Topics (each explained once, :attr:`Coach.seen` remembers which):
``match`` (what fits), ``eight`` (wild 8s), ``declared`` (a declared suit), ``penalty``
(the 2), ``counter`` (facing a penalty), ``skip`` (Q), ``reverse`` (A), ``multi``
(several cards at once), ``draw`` (drawing and the draw limit), ``drawn`` (a drawn card
that fits), ``limit`` (the draw limit reached).

>>> from p2p8s.cards import parse_cards
>>> coach = Coach()
>>> coach.why_not_text(top=Card.parse("9H"), suit=Suit.HEARTS, declared=False,
...                    pending=0, drawn=None, cards=parse_cards(["5C"]), wild=8).code
<CoachCode.NO_FIT: 'coach-no-fit'>
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from p2p8s.bots.base import View
from p2p8s.cards import Card, Rank, Suit
from p2p8s.engine import Action, Draw, Event, Pass, Play, Take
from p2p8s.errors import Code, IllegalAction, Note
from p2p8s.ruletable import TABLE, RuleTable

#: The effects of a card (fields of :class:`~p2p8s.ruletable.CardRule`) the coach explains,
#: in the order it explains them; each is also the name of its topic.
_EFFECTS = ("penalty", "skip", "reverse")

#: Every topic the coach knows, in no particular order.
TOPICS = ("match", "eight", "declared", "penalty", "counter", "skip", "reverse", "multi",
          "draw", "drawn", "limit")


class CoachCode(Code):
    """What the coach says; the parameters are named after the colon."""

    MATCH = "coach-match"  #: what fits
    EIGHT = "coach-eight"  #: ``wild`` rank; ``own``: a countdown number; ``value`` points
    DECLARED = "coach-declared"  #: ``seat`` declared ``suit``
    PENALTY = "coach-penalty"  #: ``rank`` adds ``penalty`` cards (R-TWO)
    COUNTER = "coach-counter"  #: ``pending``; ``counters`` ranks, ``wild`` rank;
    #: ``passed``: the penalty a counter passes on, or None when the player holds none
    SKIP = "coach-skip"  #: ``rank`` skips; ``heads_up``: two players (R-QUEEN)
    REVERSE = "coach-reverse"  #: ``rank`` reverses; ``heads_up``: two players, where it
    #: works ``like`` a rank that skips (the highest; None if none does) (R-ACE)
    MULTI = "coach-multi"  #: several cards of a rank (R-MULTI)
    DRAW = "coach-draw"  #: nothing fits: draw, up to ``limit`` (0: until one fits)
    DRAWN = "coach-drawn"  #: the drawn card fits
    LIMIT = "coach-limit"  #: the draw ``limit`` is reached (0: nothing left to draw)
    # why a play is refused
    ONE_CARD = "coach-one-card"  #: multi-play is off
    RANKS_DIFFER = "coach-ranks-differ"  #: ``card`` and ``other`` differ in rank
    PENALTY_WAITING = "coach-penalty-waiting"  #: ``card``; ``pending``, ``counters``,
    #: ``wild``
    ONLY_DRAWN = "coach-only-drawn"  #: ``drawn`` card
    DECLARED_SUIT = "coach-declared-suit"  #: ``card`` is not of the declared ``suit``
    NO_FIT = "coach-no-fit"  #: ``card`` on ``top``: ``suit``, ``rank``, ``wild`` rank;
    #: ``own``: the wild rank is the player's countdown number


def _ace_high(rank: Rank) -> int:
    return 14 if rank == Rank.ACE else int(rank)


def _rank(card: Card) -> Rank:
    """A card's rank; a joker (no rank, R-ZW-DECK) counts as a 2 until the coach
    explains jokers."""
    return card.rank or Rank.TWO


def _counters(table: RuleTable) -> list[Rank]:
    """The ranks whose cards answer a pending penalty (R-COUNTER)."""
    return sorted({Rank(c % 13 + 1) for c in range(52) if table.counters(c)})


class Coach:
    """Explains the game once per topic.

    Every method returns :class:`~p2p8s.bots.base.Note` items (the topics' lines begin
    "Coach:" when said); an empty list means nothing new.
    """

    def __init__(self, seen: Iterable[str] = ()) -> None:
        self.seen: set[str] = {t for t in seen if t in TOPICS}

    def _once(self, topic: str, code: CoachCode, **params: object) -> list[Note]:
        if topic in self.seen:
            return []
        self.seen.add(topic)
        return [Note(code, params)]

    # ------------------------------------------------------------------ moves

    def on_turns(self, view: View, turns: Sequence[Sequence[Event]]) -> list[Note]:
        """Explain cards that were just played (``turns`` as grouped events)."""
        out: list[Note] = []
        for events in turns:
            last = events[-1]
            if isinstance(last.action, Play):
                out += self._played(view, last)
        return out

    def _played(self, view: View, event: Event) -> list[Note]:
        play = event.action
        assert isinstance(play, Play)
        out: list[Note] = []
        last = play.cards[-1]
        if len(play.cards) > 1:
            out += self._multi()
        if last.rank == view.wild[event.seat] and play.suit is not None:
            out += self._eight(view)
            out += self._once("declared", CoachCode.DECLARED, seat=event.seat, suit=play.suit)
        rule = view.rules.rule_table.rule(last)
        kind = next((k for k in _EFFECTS if getattr(rule, k)), None)
        return out if kind is None else out + self._effect(view, last, kind)

    def _effect(self, view: View, card: Card, kind: str) -> list[Note]:
        """The topic of ``card``'s effect ``kind`` in the rule table (:data:`_EFFECTS`)."""
        if kind == "penalty":
            return self._penalty(_rank(card), view.rules.rule_table.rule(card).penalty)
        if kind == "skip":
            return self._once(kind, CoachCode.SKIP, rank=card.rank, heads_up=view.players == 2)
        table = view.rules.rule_table
        skips = {Rank(c % 13 + 1) for c in range(52) if table.rule(c).skip}
        like = max(skips, key=_ace_high) if skips else None
        return self._once(kind, CoachCode.REVERSE, rank=card.rank, heads_up=view.players == 2,
                          like=like)

    def _eight(self, view: View) -> list[Note]:
        table = view.rules.rule_table
        wild = view.wild[view.seat]
        return self._once("eight", CoachCode.EIGHT, wild=Rank(wild),
                          own=wild != table.wild_rank,
                          value=table.value(Card.of(table.wild_rank, Suit.CLUBS)))

    def _penalty(self, rank: Rank, penalty: int) -> list[Note]:
        return self._once("penalty", CoachCode.PENALTY, rank=rank, penalty=penalty)

    def _multi(self) -> list[Note]:
        return self._once("multi", CoachCode.MULTI)

    # ------------------------------------------------------------------ decisions

    def before_move(self, view: View, legal: Sequence[Action]) -> list[Note]:
        """Explain what matters for the decision the player now faces."""
        out: list[Note] = []
        table = view.rules.rule_table
        plays = [a for a in legal if isinstance(a, Play)]
        if view.pending_draw:
            counter = plays[0].cards[0] if plays else None
            if counter is not None:
                out += self._penalty(_rank(counter), table.rule(counter).penalty)
            else:
                out += self._penalties(table)
            passed = (view.pending_draw + table.rule(counter).penalty
                      if counter is not None else None)
            out += self._once("counter", CoachCode.COUNTER, pending=view.pending_draw,
                              counters=_counters(table), wild=Rank(table.wild_rank),
                              passed=passed)
            return out
        if view.drawn:
            if plays:
                out += self._once("drawn", CoachCode.DRAWN)
            elif not any(isinstance(a, Draw) for a in legal) and any(
                    isinstance(a, Pass) for a in legal):
                out += self._once("limit", CoachCode.LIMIT, limit=view.rules.draw_limit)
            return out
        if plays:
            out += self._once("match", CoachCode.MATCH)
            firsts = sorted({p.cards[0] for p in plays})
            if view.wild[view.seat] in {c.rank for c in firsts}:
                out += self._eight(view)
            for kind in _EFFECTS:
                card = next((c for c in firsts if getattr(table.rule(c), kind)), None)
                if card is not None:
                    out += self._effect(view, card, kind)
            if view.rules.multi_play and any(len(p.cards) > 1 for p in plays):
                out += self._multi()
        elif any(isinstance(a, Draw) for a in legal):
            out += self._once("draw", CoachCode.DRAW, limit=view.rules.draw_limit)
        elif any(isinstance(a, Take) for a in legal):
            pass
        return out

    def _penalties(self, table: RuleTable) -> list[Note]:
        """The penalty topic for the first card that adds a penalty (none in hand)."""
        card = next((Card(c) for c in range(52) if table.rule(c).penalty), None)
        return [] if card is None else self._penalty(_rank(card), table.rule(card).penalty)

    # ------------------------------------------------------------------ refusals

    def why_not(self, view: View, cards: Sequence[Card], refusal: IllegalAction
                ) -> IllegalAction:
        """Why the play of ``cards`` is refused: the coach's explanation as an
        IllegalAction (a :class:`CoachCode`, the rule of ``refusal``), or ``refusal``
        itself (the engine's reason) when there is no better one."""
        note = self.why_not_text(
            top=view.top, suit=view.suit, declared=view.declared, pending=view.pending_draw,
            drawn=view.last_drawn if view.drawn else None, cards=cards,
            wild=view.wild[view.seat], multi=view.rules.multi_play,
            table=view.rules.rule_table)
        if note is None:
            return refusal
        return IllegalAction(note.code, rule=refusal.rule, **note.params)

    def why_not_text(self, *, top: Card, suit: Suit, declared: bool, pending: int,
                     drawn: Card | None, cards: Sequence[Card], wild: int,
                     multi: bool = True, table: RuleTable = TABLE) -> Note | None:
        """The explanation for :meth:`why_not` from the facts it needs (None if none);
        ``table`` is the rule table played (default: table rules)."""
        if not cards:
            return None
        first = cards[0]
        if len(cards) > 1 and not multi:
            return Note(CoachCode.ONE_CARD)
        other = next((x for x in cards if x.rank != first.rank), None)
        if other is not None:
            return Note.of(CoachCode.RANKS_DIFFER, card=first, other=other)
        if pending:
            if table.counters(first):
                return None
            return Note.of(CoachCode.PENALTY_WAITING, card=first, pending=pending,
                           counters=_counters(table), wild=Rank(table.wild_rank))
        if drawn is not None and first != drawn:
            return Note.of(CoachCode.ONLY_DRAWN, drawn=drawn)
        if first.rank == wild:
            return None
        if declared:
            if first.suit == suit:
                return None
            return Note.of(CoachCode.DECLARED_SUIT, card=first, suit=suit)
        if first.suit == suit or first.rank == top.rank:
            return None
        return Note.of(CoachCode.NO_FIT, card=first, top=top, suit=suit, rank=top.rank,
                       wild=Rank(wild), own=wild != table.wild_rank)
