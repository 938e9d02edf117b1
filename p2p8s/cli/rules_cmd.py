"""``p2p8s rules``: the rules of the game in a page (written from RULES.md)."""

from __future__ import annotations

import click

_COMMON = """\
CRAZY EIGHTS — {title}

Cards and seats
  2 to 7 players, one 52-card deck (no jokers); with 6 or 7 players two decks are
  mixed, so identical cards can appear. Cards are written rank+suit: ranks
  A 2 3 4 5 6 7 8 9 T J Q K (10 works for T), suits C D H S — 8S, TD, QH.

The deal
  The first dealer is drawn at random; the deal moves one seat left every round.
  Cards are dealt one at a time from the top of the stock, starting left of the dealer.
  {hands}
  The next card is turned up to start the discard pile. {starter}
  such a card is put back into the middle of the stock and the next one is turned.
  Play starts left of the dealer and goes clockwise.

Your turn
  Play a card of the active suit or of the top card's rank, or any 8. Whoever plays an
  8 names the suit to follow (any suit, the 8's own too); after that only the named
  suit or another 8 can be played.
  Multi-play (on by default): after a playable first card you may add any cards of the
  same rank; the last card sets the suit (with 8s: one suit named after the last 8;
  the order of several 8s makes no difference).
  Nothing to play? Draw one card at a time. A playable drawn card may be played at
  once (it starts the play; same-rank cards from your hand may follow it) or kept,
  and then you pass. After drawing, only the drawn card may start a play. An unplayable
  drawn card means you draw again, up to the draw limit (3 cards by default; 0 means
  until one is playable or nothing is left); then you pass. You may not draw while you
  hold a playable card, unless the table allows it ("draw when playable").
  When the stock runs out, the discards under the top card are shuffled into a new
  stock (unless reshuffling is off: then the stock stays empty for the round). With
  nothing to draw and nothing to play, you pass.
  There is no undo: an action, once made, is final.
{actions}
End of the round
  The round ends the moment someone plays their last card, whatever it is: a last 8
  names no suit, a last action card has no effect, pending penalties lapse.
  If every player in turn passes without being able to draw, the round is blocked.
{scoring}"""

_TABLE_ACTIONS = """
Action cards (table rules)
  2   the next player must play a 2 (several 2s with multi-play, +2 each) and pass the
      growing penalty on, or take it: draw all pending cards and end the turn. Nothing
      else is allowed — no 8, no ordinary draw. After a taken penalty the 2 stays on
      top and the next player plays on it as usual.
  Q   the next player misses a turn.
  A   reverses the direction of play; with 2 players an ace works like a queen.
  Several at once count one each: two queens skip two players, two aces keep the
  direction, and with 2 players two queens or two aces give the turn to the opponent.
"""

_TABLE_SCORING = """
Scoring (table rules)
  At the end of a round, blocked or not, everyone adds the value of the cards left in
  their hand to their total:
      8 = 50    2, Q, A = 20    J, K = 10    3-7, 9, T = face value
  Example: 8H QS AD KC 5D TS = 115.
  The match target is 50 points per seat in a solo game (100 for 2 players ... 350 for
  7); at a friends' table the host picks 100 (default) or 200. Once any total reaches
  the target, the lowest total wins; if the lowest is shared, another round is played.

Defaults: action cards on, multi-play on, draw limit 3, no drawing while able to play,
reshuffle on. `p2p8s rules --classic` shows the classic game.
"""

_CLASSIC_SCORING = """
Scoring (classic)
  There are no action cards: 2, Q and A are ordinary cards.
  The player who goes out collects the value of every card left in the other hands:
      8 = 50    J, Q, K = 10    A = 1    2-7, 9, T = face value
  Example: 8H QS AD KC 5D TS = 86.
  A blocked round goes to the lowest hand, who collects the difference between each
  other hand and their own; players sharing the lowest value each collect those
  differences (hands 12, 30, 12: both 12s collect 18).
  The first player to reach 100 points (adjustable) wins; if several reach it in the
  same round the highest total wins, and a tie at the top plays another round.

Defaults: multi-play on, draw limit 3, no drawing while able to play, reshuffle on.
"""

_COUNTDOWN = """
Countdown variant (optional)
  Everyone starts at 8. Your number is both how many cards you are dealt and your own
  wild rank (8: eights are wild for you; 1: aces). Action cards are off. After someone
  names a suit, only that suit or your own wild rank can be played. Going out lowers
  your number by one; whoever reaches 0 wins the match. No points are counted.
"""


def rules_text(*, classic: bool = False) -> str:
    """The rules page: table rules (default) or the classic game, plus countdown."""
    if classic:
        text = _COMMON.format(
            title="the classic game",
            hands="Two players get 7 cards each, three or more players 5 each.",
            starter="It may not be an 8:", actions="", scoring=_CLASSIC_SCORING)
    else:
        text = _COMMON.format(
            title="table rules (the default)",
            hands="Everyone gets 7 cards; with 5 to 7 players 5 each.",
            starter="It may not be an 8, 2, Q or A:", actions=_TABLE_ACTIONS,
            scoring=_TABLE_SCORING)
    return text + _COUNTDOWN


@click.command("rules")
@click.option("--classic", is_flag=True, help="The classic game (no action cards).")
def rules(classic: bool) -> None:
    """Print the rules of the game (table rules unless --classic)."""
    click.echo(rules_text(classic=classic), nl=False)


COMMANDS = [rules]
