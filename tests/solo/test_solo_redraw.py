"""Every change of state reaches the screen before the next prompt (issue #10).

After a play that gives you the turn again (R-NEXT: a Q or an A with two players, two Qs
with three) the move is told at once and the table is shown again, so the hand on screen
has the numbers a typed number picks; an empty Enter shows the table again. Run through
the real ``p2p8s play`` process with piped input.
"""

from __future__ import annotations

import pytest

from p2p8s.bots.hints import hint
from p2p8s.cli import view as v
from p2p8s.engine import Event, Play
from p2p8s.solo import HUMAN, SoloSession, SoloSettings

from .conftest import Home, say_turn

#: (opponents, seed): the hint's moves reach a play that gives you the turn again, then
#: play a card — with one opponent an ace (seed 2), a queen (13), three aces (27); two
#: queens with two opponents (7).
AGAIN = [(1, 2), (1, 13), (1, 27), (2, 7)]


def _script(opponents: int, seed: int) -> tuple[list[str], Event, list[str], str]:
    """Hint-chosen moves up to the first play that gives you the turn again and one
    more; returns the lines typed, that play's event, your hand as it must be shown
    after it, and the card the next line plays."""
    s = SoloSession.new(SoloSettings(opponents=opponents), seed)
    bots = s.bots()
    lines: list[str] = []
    again: Event | None = None
    hand: list[str] = []
    while True:
        while s.round.turn != HUMAN:
            s.apply(s.choose(bots[s.round.turn]))
        view = s.view(HUMAN)
        action = hint(view, s.legal(), s.rng("hint")).action
        lines.append(v.action_keys(action, v.numbered_hand(view.hand)))
        event = s.apply(action)
        if again is not None:
            assert isinstance(action, Play)
            return lines, again, hand, v.Look().cards(action.cards)
        if isinstance(action, Play) and event.next_turn == HUMAN:
            again = event
            after = s.view(HUMAN)
            hand = v.render_hand(after.hand, v.playable_cards(after, s.legal()), v.Look())


@pytest.mark.parametrize(("opponents", "seed"), AGAIN)
def test_a_play_that_gives_you_the_turn_again_is_told_and_the_table_shown(
        home: Home, opponents: int, seed: int) -> None:
    lines, again, hand, next_cards = _script(opponents, seed)
    proc = home.run("--seed", str(seed), "--opponents", str(opponents), stdin="\n".join(lines)
                    + "\n")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    s = SoloSession.new(SoloSettings(opponents=opponents), seed)
    told = say_turn([again], list(s.names))
    assert "you play again" in told
    # the answer that made the play is followed at once by its narration, then the table
    answer = f": {lines[-2]}\n{told}\n\n── Round 1 "
    assert answer in out, out
    shown = out[out.index(answer):]
    before_prompt = shown[:shown.index("Your move (")]
    assert "\n".join(hand) in before_prompt  # the hand as it is now, numbered anew
    # the next number typed plays the card shown under that number
    assert f": {lines[-1]}\nYou played {next_cards}" in out


def test_an_empty_enter_shows_the_table_again(home: Home) -> None:
    proc = home.run("--seed", "11", "--opponents", "2", stdin="\n")
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr
    first = out.index("Your move (")
    again = out[first:]
    assert again.count("── Round 1 ") == 1 and "Your hand (7 cards)" in again
    assert again.index("── Round 1 ") < again.index("Type a card number, d to draw, hint")
    assert out.count("Your move (") == 2
