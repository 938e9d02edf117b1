"""The narration of a round: engine events in, one sentence per turn out.

Written once for the solo game and the friends' table. Every effect is read from what the
engine recorded on the :class:`~p2p8s.engine.Event` as it applied the play (R-NEXT):
``skipped`` (the seats passed over, in order), ``reversed``, ``next_turn`` (``None``: the
round ended), ``direction`` (after the play) and ``penalty`` (the pending draw penalty
after it). Nothing here works out a rule again, so the narration cannot disagree with the
engine. The sentences are templates of :data:`TEMPLATES` (codes of :class:`Said`), said
through a :class:`~p2p8s.cli.words.Speaker`, so a translation hooks in here too.

>>> from p2p8s.cards import Card
>>> from p2p8s.engine import Play
>>> from p2p8s.rules import Ruleset
>>> qq = Event(0, Play((Card.parse("QH"), Card.parse("QC"))), skipped=(1, 0), next_turn=1)
>>> turn_line([qq], Speaker(names=("You", "Max"), me=0), rules=Ruleset())
'You played Q♥ Q♣ — two skips go round the table: Max plays next.'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from p2p8s.cards import Card, Rank
from p2p8s.cli.words import Speaker, Template
from p2p8s.engine import Draw, Event, Lucky, Pass, Play, Take
from p2p8s.errors import Code
from p2p8s.rules import Ruleset


class Said(Code):
    """The pieces of a turn's sentence."""

    TURN = "turn"  #: ``who`` and the ``parts`` of a turn, joined
    DREW = "drew"  #: own cards drawn, shown
    DREW_HIDDEN = "drew-hidden"  #: ``n`` cards drawn face down
    PLAYED = "played"
    DECLARED = "declared"
    PASSED = "passed"
    PASSED_NO_DRAW = "passed-no-draw"
    TOOK = "took"  #: the draw penalty taken: own ``cards`` shown
    TOOK_HIDDEN = "took-hidden"  #: ... or ``n`` cards face down
    WENT_OUT = "went-out"
    RESHUFFLED = "reshuffled"
    PENALTY_FOR = "penalty-for"  #: R-TWO: ``n`` cards now wait for ``seat``
    PLAYS_AGAIN = "plays-again"  #: R-NEXT: one skip with two players
    MISS_TURN = "miss-turn"  #: R-NEXT: ``seats`` lose their turn ...
    MISS_THEN_AGAIN = "miss-then-again"  #: ... and ``seat`` (the player) moves again
    ROUND_THE_TABLE = "round-the-table"  #: R-NEXT: ``n`` skips pass the player itself
    REVERSED = "reversed"  #: R-ACE: play now goes ``direction``
    REVERSED_TWICE = "reversed-twice"  #: R-ACE: an even count of aces
    MISSED = "missed"  #: R-ZW-SEVEN: a pass facing a skip, the missed turn
    SKIP_PENDING = "skip-pending"  #: R-ZW-SEVEN: ``seat`` plays a ``ranks`` or misses a turn
    BOUNCE = "bounce"  #: R-ZW-JACK: ``seat`` moves once, then ``player`` again
    BLOCKED = "blocked"  #: R-ZW-PENALTY: the play (or lucky card) cancelled the penalty
    NOPICK = "nopick"  #: R-ZW-PICKPLAY: the penalty comes without pick and play
    PICK_PLAY = "pick-play"  #: R-ZW-PICKPLAY: after taking, the player may play one card
    LUCKY = "lucky"  #: R-ZW-LUCKY: the lucky ``card`` turned up ...
    LUCKY_TAKEN = "lucky-taken"  #: ... and was taken with the penalty: ``cards`` or ``n``
    IN_THE_AIR = "in-the-air"  #: R-ZW-OUT: the hand is empty, the round goes on
    END_DRAWS = "end-draws"  #: R-ZW-OUT, R-ZW-SCORE: ``seats`` drew at the round's end
    LOSER = "loser"  #: R-ZW-SCORE: ``seat`` holds the highest hand: the round's loser


_COUNT_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}


def _seats(sp: Speaker, seats: Sequence[int]) -> str:
    """Seats named mid-sentence and joined with "and" ("you" for the local seat)."""
    words = [sp.who(s) for s in seats]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _plays(sp: Speaker, seat: int) -> str:
    return "play" if seat == sp.me else "plays"


def _turn(sp: Speaker, p: Mapping[str, Any]) -> str:
    parts: list[str] = p["parts"]
    who = sp.who(p["seat"], start=True)
    if len(parts) == 2 and " and " in parts[1]:
        return f"{who} {parts[0]}, then {parts[1]}."
    return f"{who} " + " and ".join(parts) + "."


def _drew_hidden(sp: Speaker, p: Mapping[str, Any]) -> str:
    return "drew a card" if p["n"] == 1 else f"drew {p['n']} cards"


def _miss(sp: Speaker, p: Mapping[str, Any]) -> str:
    seats: Sequence[int] = p["seats"]
    plural = len(seats) > 1 or sp.me in seats
    return f" — {_seats(sp, seats)} {'miss' if plural else 'misses'} a turn"


def _round_the_table(sp: Speaker, p: Mapping[str, Any]) -> str:
    seat, player, n = p["seat"], p["player"], p["n"]
    when = "again" if seat == player else "next"
    count = _COUNT_WORDS.get(n, str(n))
    return f" — {count} skips go round the table: {sp.who(seat)} {_plays(sp, seat)} {when}"


def _reversed(sp: Speaker, p: Mapping[str, Any]) -> str:
    way = "clockwise" if p["direction"] == 1 else "counter-clockwise"
    return f" — reverse: play now goes {way}"


TEMPLATES: dict[Code, Template] = {
    Said.TURN: _turn,
    Said.DREW: "drew {cards}",
    Said.DREW_HIDDEN: _drew_hidden,
    Said.PLAYED: "played {cards}",
    Said.DECLARED: " and declared {suit}",
    Said.PASSED: "passed",
    Said.PASSED_NO_DRAW: "passed (nothing to draw)",
    Said.TOOK: "took the draw penalty: {cards}",
    Said.TOOK_HIDDEN: "took the draw penalty: {n} card{n:s}",
    Said.WENT_OUT: " and went out!",
    Said.RESHUFFLED: " (The discards were shuffled into a new stock.)",
    Said.PENALTY_FOR: " — draw penalty {n} for {seat:who}",
    Said.PLAYS_AGAIN: lambda sp, p: f" — {sp.who(p['seat'])} {_plays(sp, p['seat'])} again",
    Said.MISS_TURN: _miss,
    Said.MISS_THEN_AGAIN: lambda sp, p: f": {sp.who(p['seat'])} {_plays(sp, p['seat'])} again",
    Said.ROUND_THE_TABLE: _round_the_table,
    Said.REVERSED: _reversed,
    Said.REVERSED_TWICE: " — reversed twice, same direction",
    Said.MISSED: "missed a turn (skipped)",
    Said.SKIP_PENDING: lambda sp, p: (f" — {sp.who(p['seat'])} must play "
                                      f"{p['ranks']} or miss a turn"),
    Said.BOUNCE: lambda sp, p: (f" — bounce: {sp.who(p['seat'])} {_moves(sp, p['seat'])} "
                                f"once, then {sp.who(p['player'])} again"),
    Said.BLOCKED: " — the draw penalty is blocked",
    Said.NOPICK: " (no pick and play)",
    Said.PICK_PLAY: " and may still play one card",
    Said.LUCKY: "turned the lucky card {card}",
    Said.LUCKY_TAKEN: lambda sp, p: (sp.format(" and took it with the penalty: {cards}", **p)
                                     if "cards" in p else sp.format(
                                         " and took it with the penalty: {n} card{n:s}", **p)),
    Said.IN_THE_AIR: lambda sp, p: (f" {sp.who(p['seat'], start=True)} "
                                    f"{'are' if p['seat'] == sp.me else 'is'} in the air: no "
                                    "cards left, still in the round."),
    Said.LOSER: lambda sp, p: (f" {sp.who(p['seat'], start=True)} "
                               f"{'are' if p['seat'] == sp.me else 'is'} the round's loser "
                               "(the highest hand)."),
    Said.END_DRAWS: lambda sp, p: (f" {_capital(_seats(sp, p['seats']))} drew at the "
                                   "round's end (in the air, or tied for the round's loser)."),
}


def _moves(sp: Speaker, seat: int) -> str:
    return "move" if seat == sp.me else "moves"


# --------------------------------------------------------------------------- turns


def group_turns(log: Sequence[Event]) -> list[list[Event]]:
    """Split a round's log into turns: a seat's draws and the play, pass or take that
    ended them (the last turn may still be going on: only draws so far)."""
    turns: list[list[Event]] = []
    current: list[Event] = []
    for e in log:
        if current and current[0].seat != e.seat:
            turns.append(current)
            current = []
        current.append(e)
        if not isinstance(e.action, Draw) and not _goes_on(e):
            turns.append(current)
            current = []
    if current:
        turns.append(current)
    return turns


def _goes_on(e: Event) -> bool:
    """The seat's turn goes on after ``e``: a draw, or a taken penalty (or lucky card)
    followed by pick and play (R-ZW-PICKPLAY)."""
    return isinstance(e.action, Draw) or (e.pick_play and isinstance(e.action, Take | Lucky))


def completed_turns(log: Sequence[Event]) -> int:
    """How many turns of ``log`` are over (a turn of draws only is still going on)."""
    turns = group_turns(log)
    return len(turns) - (1 if turns and _goes_on(turns[-1][-1]) else 0)


def went_out(event: Event) -> bool:
    """The play emptied the hand and ended the round (the engine recorded no next turn)."""
    return isinstance(event.action, Play) and event.next_turn is None


def effect(event: Event, sp: Speaker, *, rules: Ruleset) -> str:
    """The effect of a play in words (`` — Max misses a turn``), read from the event."""
    play = event.action
    if not isinstance(play, Play) or event.next_turn is None:
        return ""
    seat = event.seat
    skipped = event.skipped
    if event.blocked:  # R-ZW-PENALTY: an ace
        return sp.say(Said.BLOCKED)
    if event.penalty:  # R-TWO: a play leaves a penalty only when it is 2s
        return sp.say(Said.PENALTY_FOR, n=event.penalty, seat=event.next_turn) + (
            sp.say(Said.NOPICK) if event.nopick else "")
    if event.skip_pending:  # R-ZW-SEVEN: the next player may pass the skip on
        return sp.say(Said.SKIP_PENDING, seat=event.next_turn, ranks=_skip_ranks(rules))
    if event.bounce:  # R-ZW-JACK
        return sp.say(Said.BOUNCE, seat=event.next_turn, player=seat)
    if skipped:
        if len(skipped) == 1 and event.next_turn == seat:  # two players, one skip
            return sp.say(Said.PLAYS_AGAIN, seat=seat)
        if len(set(skipped)) == len(skipped) and seat not in skipped:
            text = sp.say(Said.MISS_TURN, seats=skipped)
            if event.next_turn == seat:
                text += sp.say(Said.MISS_THEN_AGAIN, seat=seat)
            return text
        return sp.say(Said.ROUND_THE_TABLE, n=len(skipped), seat=event.next_turn,
                      player=seat)
    if event.reversed:
        return sp.say(Said.REVERSED, direction=event.direction)
    if _reverses(play, rules) and _reverses(play, rules) % 2 == 0:
        return sp.say(Said.REVERSED_TWICE)  # R-ACE, R-ZW-JACK: the reverses cancel out
    return ""


def _reverses(play: Play, rules: Ruleset) -> int:
    """How many times ``play`` flips the direction, from the rule table (R-NEXT) with the
    play's declared choice; read at a table of 3 (with 2 players a reverse is a skip, which
    the skipped seats already say)."""
    return rules.rule_table.effect(play.cards, 3, play.declare).reverses


def _skip_ranks(rules: Ruleset) -> str:
    """``a 7``: the cards that pass a pending skip on (R-ZW-SEVEN), from the rule table."""
    table = rules.rule_table
    ranks = sorted({c.rank for c in table.deck_cards if c.rank and table.rule(c).skip})
    return " or ".join(("an " if r in (Rank.ACE, Rank.EIGHT) else "a ") + r.letter
                       for r in ranks) or "a skip card"


def _cards_part(sp: Speaker, own: bool, got: Sequence[Card | None], shown: Said,
                hidden: Said) -> str:
    known = [c for c in got if c is not None]
    return (sp.say(shown, cards=known) if own and got and len(known) == len(got)
            else sp.say(hidden, n=len(got)))


def turn_line(events: Sequence[Event], sp: Speaker, *, rules: Ruleset,
              final: bool | None = None) -> str:
    """One sentence for one seat's turn (its draws, a taken penalty or lucky card, and
    the play, pass or take that ended it). The local seat (``sp.me``) sees the cards it
    drew itself. ``final``: the play emptied the hand (default: as the engine recorded
    it, :func:`went_out`)."""
    seat = events[0].seat
    own = seat == sp.me
    parts: list[str] = []
    drawn: list[Card | None] = []

    def draws() -> None:
        if drawn:
            parts.append(_cards_part(sp, own, drawn, Said.DREW, Said.DREW_HIDDEN))
            drawn.clear()

    last = events[-1]
    out = went_out(last) if final is None else final
    for e in events:
        action = e.action
        if isinstance(action, Draw):
            drawn.extend(e.drawn)
            continue
        draws()
        if isinstance(action, Play):
            text = sp.say(Said.PLAYED, cards=list(action.cards))
            if action.suit is not None:
                text += sp.say(Said.DECLARED, suit=action.suit)
            parts.append(text + ("" if out and e is last else effect(e, sp, rules=rules)))
        elif isinstance(action, Pass):
            parts.append(sp.say(Said.MISSED) if e.missed else
                         sp.say(Said.PASSED if len(events) > 1 else Said.PASSED_NO_DRAW))
        elif isinstance(action, Take):
            parts.append(_cards_part(sp, own, e.drawn, Said.TOOK, Said.TOOK_HIDDEN)
                         + (sp.say(Said.PICK_PLAY) if e.pick_play and e is last else ""))
        elif isinstance(action, Lucky) and e.lucky is not None:
            text = sp.say(Said.LUCKY, card=e.lucky)
            if e.lucky_played:
                text += sp.say(Said.BLOCKED) if e.blocked else sp.say(
                    Said.PENALTY_FOR, n=e.penalty, seat=e.next_turn)
            else:
                text += _cards_part(sp, own, e.drawn, Said.LUCKY_TAKEN, Said.LUCKY_TAKEN)
                text += sp.say(Said.PICK_PLAY) if e.pick_play and e is last else ""
            parts.append(text)
    draws()
    line = sp.say(Said.TURN, seat=seat, parts=parts)
    if out and isinstance(last.action, Play):
        line = line[:-1] + sp.say(Said.WENT_OUT)
    elif last.in_the_air:
        line += sp.say(Said.IN_THE_AIR, seat=seat)
    if last.end_draws:
        line += sp.say(Said.END_DRAWS, seats=sorted({s for s, _ in last.end_draws}))
    if last.loser is not None:
        line += sp.say(Said.LOSER, seat=last.loser)
    if sum(e.reshuffled for e in events):
        line += sp.say(Said.RESHUFFLED)
    return line


def turn_lines(log: Sequence[Event], sp: Speaker, *, rules: Ruleset,
               last: int | None = None) -> list[str]:
    """The round ``log`` so far, one sentence per turn (the ``last`` few only, if given)."""
    lines = [turn_line(t, sp, rules=rules) for t in group_turns(log)]
    return lines[-last:] if last else lines


__all__ = ["TEMPLATES", "Said", "completed_turns", "effect", "group_turns", "turn_line",
           "turn_lines", "went_out"]
