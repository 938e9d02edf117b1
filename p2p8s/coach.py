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
that fits), ``limit`` (the draw limit reached); and the cards of RULES.md §11:
``choice`` (a card that declares skip, reverse or bounce), ``joker`` (fits on anything,
adds a penalty), ``block`` (an ace blocks a penalty), ``lucky`` (the lucky card),
``pickplay`` (play one card after taking), ``nopick`` (a penalty without pick and play)
and ``air`` (an empty hand that is not out).

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
from p2p8s.ruletable import TABLE, Declare, RuleTable

#: The effects of a card (fields of :class:`~p2p8s.ruletable.CardRule`) the coach explains,
#: in the order it explains them; each is also the name of its topic.
_EFFECTS = ("penalty", "skip", "reverse")

#: Every topic the coach knows, in no particular order.
TOPICS = ("match", "eight", "declared", "penalty", "counter", "skip", "reverse", "multi",
          "draw", "drawn", "limit", "choice", "joker", "block", "lucky", "pickplay", "nopick",
          "air")


class CoachCode(Code):
    """What the coach says; the parameters are named after the colon."""

    MATCH = "coach-match"  #: what fits
    EIGHT = "coach-eight"  #: ``wild`` rank; ``own``: a countdown number; ``value`` points;
    #: ``scoring``: ``hand`` (it costs its holder), ``collect`` (the winner collects it)
    #: or None (countdown: no points)
    DECLARED = "coach-declared"  #: ``seat`` declared ``suit``
    PENALTY = "coach-penalty"  #: ``rank`` adds ``penalty`` cards (R-TWO); ``pick``: the
    #: taker may still play one card (R-ZW-PICKPLAY); ``fits``: a counter must fit too
    COUNTER = "coach-counter"  #: ``pending``; ``counters`` ranks, ``cards``, ``jokers``,
    #: ``fits`` (what counters: :func:`_counter_params`), ``wild`` rank;
    #: ``passed``: the penalty a counter passes on, or None when the player holds none;
    #: ``blocks`` ranks that block it, ``lucky``: the lucky card, ``pick``: pick and play
    SKIP = "coach-skip"  #: ``rank`` skips; ``heads_up``: two players (R-QUEEN);
    #: ``passes``: the skip is passed on by a card of the same rank (R-ZW-SEVEN)
    REVERSE = "coach-reverse"  #: ``rank`` reverses; ``heads_up``: two players, where it
    #: works ``like`` a rank that skips (the highest; None if none does) (R-ACE)
    MULTI = "coach-multi"  #: several cards of a rank (R-MULTI)
    DRAW = "coach-draw"  #: nothing fits: draw, up to ``limit`` (0: until one fits);
    #: ``any``: after a draw any fitting card may go (R-DRAW-ANY)
    DRAWN = "coach-drawn"  #: a card fits after a draw; ``any``: any fitting card may go
    #: (R-DRAW-ANY), ``fits``: the drawn card is one, ``again``: drawing again is allowed
    LIMIT = "coach-limit"  #: the draw ``limit`` is reached (0: nothing left to draw)
    CHOICE = "coach-choice"  #: ``rank`` declares one of ``choices`` (R-WC-SKIP, R-ZW-JACK)
    JOKER = "coach-joker"  #: a joker adds ``penalty``, fits on anything (R-ZW-PENALTY)
    BLOCK = "coach-block"  #: ``rank`` blocks a pending penalty (R-ZW-PENALTY)
    LUCKY = "coach-lucky"  #: the lucky card may be turned (R-ZW-LUCKY)
    PICK_PLAY = "coach-pick-play"  #: after taking, one card may still go (R-ZW-PICKPLAY)
    NOPICK = "coach-nopick"  #: ``seat`` declared nopick with a penalty (R-ZW-PICKPLAY)
    AIR = "coach-air"  #: ``seat`` is in the air (R-ZW-OUT); ``you``: the player is
    # why a play is refused
    ONE_CARD = "coach-one-card"  #: multi-play is off
    RANKS_DIFFER = "coach-ranks-differ"  #: ``card`` and ``other`` differ in rank
    PENALTY_WAITING = "coach-penalty-waiting"  #: ``card``; ``pending``, ``wild`` and
    #: what counters (as COUNTER)
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
    """The ranks whose cards all answer a pending penalty by adding to it (R-COUNTER;
    jokers, single cards like the Q♠ of R-WC-PENALTY and the blocking aces aside)."""
    return sorted({c.rank for c in table.deck_cards if c.rank and _adds(table, c)
                   and all(_adds(table, d) for d in table.deck_cards if d.rank == c.rank)})


def _adds(table: RuleTable, card: Card) -> bool:
    return table.counters(card) and not table.rule(card).block


def _counter_params(table: RuleTable) -> dict[str, object]:
    """What counters a pending penalty, from the rule table: ``counters`` ranks (every
    card of the rank), ``cards``: single cards of other ranks (the Q♠, R-WC-PENALTY),
    ``jokers`` (R-ZW-PENALTY), ``fits``: a counter must fit the top card too (R-MATCH)."""
    ranks = _counters(table)
    cards = sorted(c for c in table.deck_cards
                   if c.rank and c.rank not in ranks and _adds(table, c))
    return {"counters": ranks, "cards": cards, "fits": table.counter_match,
            "jokers": any(c.joker and _adds(table, c) for c in table.deck_cards)}


def _ranks(table: RuleTable, has: str) -> list[Rank]:
    """The ranks with a card whose rule has the field ``has`` set."""
    return sorted({c.rank for c in table.deck_cards if c.rank and getattr(table.rule(c), has)},
                  key=_ace_high)


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
        table = view.rules.rule_table
        if len(play.cards) > 1:
            out += self._multi()
        if last.joker:
            out += self._joker(table, last)
        if event.blocked:
            out += self._block(table)
        if play.declare is not None and play.declare is not Declare.NOPICK:
            out += self._choice(table, last)
        if event.nopick:
            out += self._once("nopick", CoachCode.NOPICK, seat=event.seat)
        if event.in_the_air:
            out += self._air(view, event.seat)
        if last.rank == view.wild[event.seat] and play.suit is not None:
            out += self._eight(view)
            out += self._once("declared", CoachCode.DECLARED, seat=event.seat, suit=play.suit)
        rule = view.rules.rule_table.rule(last)
        kind = next((k for k in _EFFECTS if getattr(rule, k)), None)
        return out if kind is None or last.joker else out + self._effect(view, last, kind)

    def _effect(self, view: View, card: Card, kind: str) -> list[Note]:
        """The topic of ``card``'s effect ``kind`` in the rule table (:data:`_EFFECTS`)."""
        if kind == "penalty":
            return self._penalty(_rank(card), view.rules.rule_table.rule(card).penalty)
        table = view.rules.rule_table
        if kind == "skip":
            return self._once(kind, CoachCode.SKIP, rank=card.rank, heads_up=view.players == 2,
                              passes=table.skip_counters)
        skips = {c.rank for c in table.deck_cards if c.rank and table.rule(c).skip}
        like = max(skips, key=_ace_high) if skips else None
        return self._once(kind, CoachCode.REVERSE, rank=card.rank, heads_up=view.players == 2,
                          like=like)

    def _eight(self, view: View) -> list[Note]:
        table = view.rules.rule_table
        wild = view.wild[view.seat]
        return self._once("eight", CoachCode.EIGHT, wild=Rank(wild),
                          own=wild != table.wild_rank,
                          value=table.value(Card.of(table.wild_rank, Suit.CLUBS)),
                          scoring=None if view.rules.countdown else str(table.scoring))

    def _penalty(self, rank: Rank, penalty: int, table: RuleTable = TABLE) -> list[Note]:
        return self._once("penalty", CoachCode.PENALTY, rank=rank, penalty=penalty,
                          pick=table.pick_play, fits=table.counter_match)

    def _joker(self, table: RuleTable, card: Card) -> list[Note]:
        return self._once("joker", CoachCode.JOKER, penalty=table.rule(card).penalty)

    def _block(self, table: RuleTable) -> list[Note]:
        blocks = _ranks(table, "block")
        return self._once("block", CoachCode.BLOCK, rank=blocks[0]) if blocks else []

    def _choice(self, table: RuleTable, card: Card) -> list[Note]:
        choices = [d for d in table.declarations(card) if d is not Declare.NOPICK]
        if not choices or card.rank is None:
            return []
        return self._once("choice", CoachCode.CHOICE, rank=card.rank,
                          choices=[str(d) for d in choices])

    def _air(self, view: View, seat: int) -> list[Note]:
        return self._once("air", CoachCode.AIR, seat=seat, you=seat == view.seat)

    def _multi(self) -> list[Note]:
        return self._once("multi", CoachCode.MULTI)

    # ------------------------------------------------------------------ decisions

    def before_move(self, view: View, legal: Sequence[Action]) -> list[Note]:
        """Explain what matters for the decision the player now faces."""
        out: list[Note] = []
        table = view.rules.rule_table
        plays = [a for a in legal if isinstance(a, Play)]
        if view.air and view.air[view.seat]:
            return self._air(view, view.seat)
        if view.picking:
            return self._once("pickplay", CoachCode.PICK_PLAY)
        if view.pending_skip:
            card = next((p.cards[0] for p in plays), None)
            skip = card or next((c for c in table.deck_cards if table.rule(c).skip), None)
            return [] if skip is None else self._effect(view, skip, "skip")
        if view.pending_draw:
            counter = next((p.cards[0] for p in plays if table.rule(p.cards[0]).penalty),
                           None)
            if counter is not None:
                out += (self._joker(table, counter) if counter.joker else
                        self._penalty(_rank(counter), table.rule(counter).penalty, table))
            else:
                out += self._penalties(table)
            if any(table.rule(p.cards[0]).block for p in plays):
                out += self._block(table)
            passed = (view.pending_draw + table.rule(counter).penalty
                      if counter is not None else None)
            out += self._once("counter", CoachCode.COUNTER, pending=view.pending_draw,
                              **_counter_params(table), wild=Rank(table.wild_rank),
                              passed=passed, blocks=_ranks(table, "block"),
                              lucky=table.lucky, pick=table.pick_play)
            if table.lucky:
                out += self._once("lucky", CoachCode.LUCKY)
            return out
        if view.drawn:
            if plays:
                out += self._once("drawn", CoachCode.DRAWN,
                                  any=view.rules.draw_when_playable,
                                  fits=any(view.last_drawn in p.cards for p in plays),
                                  again=any(isinstance(a, Draw) for a in legal))
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
                    out += (self._joker(table, card) if card.joker
                            else self._effect(view, card, kind))
            joker = next((c for c in firsts if c.joker), None)
            if joker is not None:
                out += self._joker(table, joker)
            chooser = next((c for c in firsts if table.rule(c).choices), None)
            if chooser is not None:
                out += self._choice(table, chooser)
            if view.rules.multi_play and any(len(p.cards) > 1 for p in plays):
                out += self._multi()
        elif any(isinstance(a, Draw) for a in legal):
            out += self._once("draw", CoachCode.DRAW, limit=view.rules.draw_limit,
                              any=view.rules.draw_when_playable)
        elif any(isinstance(a, Take) for a in legal):
            pass
        return out

    def _penalties(self, table: RuleTable) -> list[Note]:
        """The penalty topic for the first card that adds a penalty (none in hand)."""
        card = next((c for c in table.deck_cards if c.rank and table.rule(c).penalty), None)
        return [] if card is None else self._penalty(_rank(card), table.rule(card).penalty,
                                                     table)

    # ------------------------------------------------------------------ refusals

    def why_not(self, view: View, cards: Sequence[Card], refusal: IllegalAction
                ) -> IllegalAction:
        """Why the play of ``cards`` is refused: the coach's explanation as an
        IllegalAction (a :class:`CoachCode`, the rule of ``refusal``), or ``refusal``
        itself (the engine's reason) when there is no better one."""
        note = self.why_not_text(
            top=view.top, suit=view.suit, declared=view.declared, pending=view.pending_draw,
            drawn=(view.last_drawn if view.drawn and not view.rules.draw_when_playable
                   else None), cards=cards,
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
        if table.rule(first).fits_any or table.rule(first).block:
            return None  # the joker, the ace of R-ZW-PENALTY: the engine says why not
        if pending:
            if table.counters(first):
                return None
            return Note.of(CoachCode.PENALTY_WAITING, card=first, pending=pending,
                           **_counter_params(table), wild=Rank(table.wild_rank))
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
