"""Bots think off the event loop: heartbeats, messages and timers go on meanwhile.

The expert takes a second or two per move. Here a bot's thinking has a known size in
*loop time*: a :class:`GatedBot` returns only once a ticking coroutine on the loop has
ticked ``ticks`` more times. Thinking on the loop would stop the ticker, so the bot could
never finish: it gives up after ``CAP_S`` and records a stall (and the 1-second heartbeat
timeout of the test nodes would have declared the peers dead by then). No assertion
depends on how fast the machine is.
"""

from __future__ import annotations

import asyncio
import io
import random
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest
from net.test_mesh import table as dealt_table

from p2p8s.bots.base import Bot, View
from p2p8s.bots.hints import Hint
from p2p8s.bots.registry import get_bot
from p2p8s.cli import table_view, words
from p2p8s.cli.table_view import TableScreen
from p2p8s.cli.terminal import Terminal
from p2p8s.cli.words.table import said
from p2p8s.engine import Action
from p2p8s.errors import Code, Note
from p2p8s.net.lobby import Mesh
from p2p8s.net.runner import EOF_MARK, Options, Result, play_table
from p2p8s.table import Table
from p2p8s.table import events as tev

#: Seconds of wall clock after which a gated bot gives up (only reached when it thinks
#: on the loop and stops the ticker, i.e. when the test fails).
CAP_S = 8.0
#: Seconds between ticks (asyncio.sleep: at least this long).
TICK_S = 0.02


class Ticker:
    """Counts the times it got the loop back after a short sleep."""

    def __init__(self) -> None:
        self.count = 0

    async def run(self) -> None:
        while True:
            await asyncio.sleep(TICK_S)
            self.count += 1


class Gate:
    """Blocks the calling (worker) thread until the ticker advanced ``ticks`` times."""

    def __init__(self, ticker: Ticker, ticks: int) -> None:
        self.ticker = ticker
        self.ticks = ticks
        self.advanced: list[int] = []  # ticks seen during each wait
        self.stalled = False

    def wait(self) -> None:
        start = self.ticker.count
        give_up = time.monotonic() + CAP_S
        while self.ticker.count < start + self.ticks:
            if time.monotonic() > give_up:
                self.stalled = True
                break
            time.sleep(0.002)
        self.advanced.append(self.ticker.count - start)


class GatedBot:
    """Plays like ``inner``, but its first ``gated`` decisions think for ``gate``."""

    def __init__(self, inner: Bot, gate: Gate, *, gated: int = 1) -> None:
        self.name = inner.name
        self.inner = inner
        self.gate = gate
        self.gated = gated

    def choose(self, view: View, legal: Sequence[Action], rng: random.Random) -> Action:
        if self.gated > 0:
            self.gated -= 1
            self.gate.wait()
        return self.inner.choose(view, legal, rng)


class Recorder:
    """A frontend that keeps the events."""

    def __init__(self) -> None:
        self.events: list[object] = []

    def started(self, table: Table, *_: object, **__: object) -> None:
        pass

    def show(self, table: Table, events: Sequence[object], now: float) -> None:
        self.events.extend(events)

    def presence(self, seat: int, name: str, *, connected: bool, reason: str) -> None:
        self.events.append(("presence", seat, connected, reason))

    def turn(self, table: Table, now: float) -> None:
        pass

    def warn(self, table: Table, seconds_left: float) -> None:
        pass

    def typed(self, table: Table, line: str, now: float) -> None:
        return None

    def finished(self, table: Table, why: str) -> None:
        pass


@pytest.fixture
async def ticker() -> AsyncIterator[Ticker]:
    t = Ticker()
    task = asyncio.ensure_future(t.run())
    yield t
    task.cancel()


async def _play(meshes: list[Mesh], fronts: Sequence[Any], options: Sequence[Options],
                lines: Sequence[asyncio.Queue[str] | None] = ()) -> list[object]:
    queues = list(lines) or [None] * len(meshes)
    async with asyncio.timeout(90):
        return await asyncio.gather(
            *(play_table(m, f, options=o, lines=q)
              for m, f, o, q in zip(meshes, fronts, options, queues, strict=True)),
            return_exceptions=True)


async def test_the_loop_and_the_heartbeats_run_while_the_auto_player_thinks(
        ticker: Ticker) -> None:
    """Each gated decision holds for 60 ticks (at least 1.2 s of loop time): longer than
    the nodes' 1-second heartbeat timeout, yet no peer is declared dead."""
    gate = Gate(ticker, ticks=60)
    fronts = [Recorder(), Recorder()]
    async with dealt_table(2) as (_nodes, meshes, _views):
        results = await _play(meshes, fronts, [
            Options(auto=get_bot("karl"), rounds=1, write_log=False),
            Options(auto=GatedBot(get_bot("vera"), gate, gated=2), rounds=1,
                    write_log=False)])
    assert all(isinstance(r, Result) and r.rounds == 1 for r in results), results
    assert not gate.stalled
    assert gate.advanced and all(n >= 60 for n in gate.advanced)
    lost = [e for f in fronts for e in f.events if isinstance(e, tuple) and not e[2]]
    assert lost == []


async def test_a_choice_that_comes_after_the_turn_timer_is_dropped(ticker: Ticker) -> None:
    """The auto player thinks for 30 ticks (at least 0.6 s) on a 0.3-second turn: the
    timer plays the turn on the loop meanwhile, and the late choice is not played."""
    gate = Gate(ticker, ticks=30)
    fronts = [Recorder(), Recorder()]
    async with dealt_table(2) as (_nodes, meshes, _views):
        results = await _play(meshes, fronts, [
            Options(auto=get_bot("karl"), rounds=1, write_log=False, turn_timeout_s=0.3),
            Options(auto=GatedBot(get_bot("vera"), gate), rounds=1, write_log=False,
                    turn_timeout_s=0.3)])
    assert all(isinstance(r, Result) and r.rounds == 1 for r in results), results
    assert not gate.stalled and len(gate.advanced) == 1
    infos = [said(e) for e in fronts[1].events if isinstance(e, tev.Info)]
    assert any("the computer played for you" in t for t in infos), infos
    assert not any("not your turn" in t for t in infos), infos


class HintingScreen(TableScreen):
    """The table screen of a person who asks for a hint at the first turn, then stops
    typing (the input ends: the computer plays on)."""

    def __init__(self, term: Terminal, *, me: int, lines: asyncio.Queue[str]) -> None:
        super().__init__(term, me=me)
        self.lines = lines
        self.asked = False

    def turn(self, table: Table, now: float) -> None:
        super().turn(table, now)
        if not self.asked:
            self.asked = True
            self.lines.put_nowait("hint\n")
            self.lines.put_nowait(EOF_MARK)


class _Gate(Code):
    """The fake hint's reason."""

    OPENED = "test-gate-opened"


words.register({_Gate.OPENED: "the gate opened"})


async def test_a_hint_is_thought_out_off_the_loop(ticker: Ticker,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    gate = Gate(ticker, ticks=60)

    def gated_hint(view: View, legal: Sequence[Action], rng: random.Random) -> Hint:
        gate.wait()
        return Hint(action=legal[0], reason=Note(_Gate.OPENED))

    monkeypatch.setattr(table_view, "hint", gated_hint)
    out = io.StringIO()
    lines: asyncio.Queue[str] = asyncio.Queue()
    screen = HintingScreen(Terminal(out=out, inp=io.StringIO(), pace_s=0), me=1, lines=lines)
    async with dealt_table(2) as (_nodes, meshes, _views):
        results = await _play(meshes, [Recorder(), screen], [
            Options(auto=get_bot("karl"), rounds=1, write_log=False),
            Options(rounds=1, write_log=False)], lines=[None, lines])
    assert all(isinstance(r, Result) and r.rounds == 1 for r in results), results
    assert not gate.stalled and gate.advanced and gate.advanced[0] >= 60
    text = out.getvalue()
    assert "Hint: " in text and " - the gate opened" in text, text
    assert "Your input ended: the computer (Max) plays your seat" in text
