"""Shared fixtures for the solo tests: a private home for settings and saves, a way to
run the real ``p2p8s play`` process, and scripted input that follows the hints."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from p2p8s.bots.hints import hint
from p2p8s.cards import parse_cards, standard_deck
from p2p8s.cli import view as v
from p2p8s.cli.words import Speaker, narration
from p2p8s.engine import Event, OrderedDeck, Play, Round
from p2p8s.rules import Ruleset
from p2p8s.solo import HUMAN, Phase, SoloSession, SoloSettings

P2P8S = str(Path(sys.executable).with_name("p2p8s"))
ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Home:
    """A private XDG home: ``env`` for subprocesses; ``save`` and ``settings`` paths."""

    root: Path
    env: dict[str, str]

    @property
    def save(self) -> Path:
        return self.root / "data" / "p2p8s" / "solo" / "match.json"

    @property
    def settings(self) -> Path:
        return self.root / "config" / "p2p8s" / "settings.json"

    def run(self, *args: str, stdin: str | None = "", timeout: float = 60,
            extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """Run ``p2p8s play ARGS`` with ``stdin`` piped (None: no input at all)."""
        env = {**self.env, **(extra_env or {})}
        return subprocess.run([P2P8S, "play", *args], input=stdin, capture_output=True,
                              text=True, env=env, timeout=timeout,
                              stdin=subprocess.DEVNULL if stdin is None else None)

    def popen(self, *args: str, extra_env: dict[str, str] | None = None
              ) -> subprocess.Popen[str]:
        """Start ``p2p8s play ARGS`` with pipes for stdin and stdout."""
        return subprocess.Popen([P2P8S, "play", *args], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env={**self.env, **(extra_env or {})})


def make_home(root: Path) -> Home:
    env = {k: val for k, val in os.environ.items()
           if k not in ("NO_COLOR", "P2P8S_PACE_S", "COLUMNS")}
    env.update({"XDG_DATA_HOME": str(root / "data"), "XDG_CONFIG_HOME": str(root / "config"),
                "HOME": str(root), "PYTHONIOENCODING": "utf-8", "LC_ALL": "C.UTF-8"})
    return Home(root, env)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Home]:
    """A private home; also points this process's XDG dirs at it."""
    h = make_home(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", h.env["XDG_DATA_HOME"])
    monkeypatch.setenv("XDG_CONFIG_HOME", h.env["XDG_CONFIG_HOME"])
    yield h


def hint_script(settings: SoloSettings, seed: int, *, max_rounds: int = 99,
                max_moves: int = 10**6,
                extra: Callable[[SoloSession], list[str]] | None = None,
                ) -> tuple[str, SoloSession]:
    """The input a player who always follows the hint would type, and the final session.

    Replays the match in-process (the same seeds, the same bots), so the real process
    fed this input plays the identical match. ``extra`` may add lines before each move.
    """
    s = SoloSession.new(settings, seed)
    bots = s.bots()
    lines: list[str] = []
    while s.phase is not Phase.MATCH_OVER:
        if s.phase is Phase.ROUND_OVER:
            if s.round_number >= max_rounds:
                break
            lines.append("")
            s.next_round()
            continue
        if s.round.turn != HUMAN:
            s.apply(s.choose(bots[s.round.turn]))
            continue
        if len(lines) >= max_moves:
            return "\n".join(lines) + "\n", s
        if extra is not None:
            lines += extra(s)
        legal = s.legal()
        action = hint(s.view(HUMAN), legal, s.rng("hint")).action
        hand = v.numbered_hand(s.view(HUMAN).hand)
        lines.append(v.action_keys(action, hand))
        assert isinstance(action, Play) or action in legal
        s.apply(action)
    if s.phase is Phase.MATCH_OVER:
        lines.append("n")
    return "\n".join(lines) + "\n", s


def engine_event(players: int, seat: int, play: str, *, rules: Ruleset | None = None,
                 direction: int = 1) -> Event:
    """The engine's own :class:`Event` for ``seat`` playing ``play`` (``"QH QC"``) at a
    table of ``players`` (play going ``direction``), on a starter the first card fits:
    the effect it records (skipped, reversed, next turn, penalty) is the engine's."""
    played = parse_cards(play.split())
    rest = [c for c in standard_deck(1) if c not in played]
    starter = next(c for c in rest if c.suit == played[0].suit and c.rank in (5, 6, 7, 9))
    rest.remove(starter)
    size = len(played) + 1  # one card more: the play does not go out
    dealer = (seat - 1) % players
    hands = {s: rest[s * size:(s + 1) * size] for s in range(players) if s != seat}
    hands[seat] = [*played, rest[seat * size]]
    used = {c for h in hands.values() for c in h}
    order = [hands[(dealer + 1 + k) % players][i] for i in range(size) for k in range(players)]
    order += [starter, *(c for c in rest if c not in used)]
    rnd = Round.deal(rules or Ruleset(), players=players, dealer=dealer,
                     deck=OrderedDeck(order), hand_size=size)
    rnd.direction = direction
    return rnd.apply(Play(tuple(played)))


def say_turn(events: list[Event], names: list[str], *, me: int = HUMAN,
             rules: Ruleset | None = None, final: bool | None = None,
             look: v.Look | None = None) -> str:
    """The narration's sentence for one turn, as the clients say it."""
    return narration.turn_line(events, Speaker(names, me, look or v.Look()),
                               rules=rules or Ruleset(), final=final)
