"""Events are data (issue #10): the table's events carry codes, seats, cards and numbers,
never a sentence; the CLI's catalogue has the words for every code the table uses."""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any

import pytest
from table_helpers import on_turn, quiet, said, until

from p2p8s.cards import Card
from p2p8s.cli import words
from p2p8s.engine import DRAW, Action
from p2p8s.errors import Error
from p2p8s.table import events as tev
from p2p8s.table.errors import LogCode, TableCode
from p2p8s.table.harness import TableNet, make_config

#: parameters that hold text from outside the table: a peer's claim (``stop``); every
#: layer has its codes now, so no other text
FOREIGN_TEXT = {"reason"}


@pytest.mark.parametrize("codes", [tev.InfoCode, tev.PauseWhy, TableCode, LogCode])
def test_every_code_of_the_table_has_words(codes: type[Enum]) -> None:
    assert words.missing(codes) == []


def _data(params: Mapping[str, Any]) -> None:
    for key, value in params.items():
        if key in FOREIGN_TEXT:
            continue
        assert isinstance(value, (int, float, bool, Enum, Card, Action, Error, list, tuple)
                          ) or value is None, (key, value)
        assert not isinstance(value, str) or isinstance(value, Enum), (key, value)


def _no_sentences(net: TableNet) -> int:
    """Check every event of every node; the number checked."""
    count = 0
    for seat in net.humans:
        for e in net.events[seat]:
            count += 1
            if isinstance(e, tev.Applied):
                assert not any(isinstance(getattr(e, f), str) for f in ("event", "out"))
            elif isinstance(e, tev.Info):
                assert isinstance(e.code, tev.InfoCode), e
                _data(e.params)
                assert said(e, net, seat)  # and the words exist
            elif isinstance(e, tev.Fault):
                assert isinstance(e.code, Enum), e
                _data(e.params)
                assert said(e, net, seat)
            elif isinstance(e, tev.RoundOver) and e.fault is not None:
                _data(e.fault.params)
    return count


def test_no_event_of_a_match_with_a_takeover_carries_a_sentence() -> None:
    net = TableNet(make_config(4, target=60, turn_timeout_s=30.0), seed=b"words",
                   idle=(1,))
    net.start()
    until(net, lambda: net.nodes[2].my_turn)
    net.crash(2)
    net.run()
    assert net.faults() == {}
    kinds = {type(e) for s in net.humans for e in net.events[s]}
    assert {tev.Applied, tev.Info, tev.SeatAway, tev.SeatTakenOver, tev.RoundOver} <= kinds
    assert _no_sentences(net) > 100


def test_no_fault_carries_a_sentence() -> None:
    net = TableNet(make_config(3), seed=b"c1", idle=range(3))
    net.start()
    quiet(net)
    cheat = (on_turn(net) + 1) % 3
    net.inject(cheat, lambda n: n._log.author(cheat, DRAW, ()))
    quiet(net)
    faults = net.faults()
    assert len(faults) == 3
    _no_sentences(net)
    honest = next(s for s in net.humans if s != cheat)
    assert said(faults[honest], net).endswith("acted (draw) out of turn: it is "
                                              f"{net.config.names[on_turn(net)]}'s turn")


def test_the_table_timer_is_the_earliest_timer_of_its_machines() -> None:
    net = TableNet(make_config(3, target=40, turn_timeout_s=10.0), seed=b"clock", idle=(1,))
    net.start()
    until(net, lambda: net.nodes[2].my_turn)
    net.crash(2)
    seen: set[str] = set()
    for _ in range(3000):
        for node in net.nodes.values():
            timers = {"seats": node._seats.get_timer(), "clock": node._clock.get_timer(),
                      "choices": node._choices.get_timer(),
                      "stall": node._clock.stall_timer()}
            others = [m.get_timer() for m in (node._sessions, node._deal, node._log,
                                              node._keys, node._inbox, node._resync,
                                              node._end, node._computer)]
            assert others == [None] * len(others)
            due = [t for t in timers.values() if t is not None]
            assert node.get_timer() == min(due, default=None)
            seen.update(k for k, t in timers.items() if t is not None)
        if not net.step():
            break
    assert {"seats", "clock"} <= seen


def test_a_peers_stop_shows_only_its_fault_code_never_its_text() -> None:
    """A stop notice's reason is the peer's claim: its code is named, its text is not."""
    from p2p8s.cli.words import Speaker
    from p2p8s.table.errors import TableCode, TableError

    sp = Speaker(names=("Ann", "Bob", "Cat"), me=1)
    coded = TableError(TableCode.STOPPED, seat=0, peer=2,
                       reason="table-seat-taken peer=0 player=0 proxy=1")
    assert sp.error(coded) == "Cat stopped the game: it reports a fault (table-seat-taken)"
    texted = TableError(TableCode.STOPPED, seat=0, peer=2, reason="Ann cheated, trust me")
    assert sp.error(texted) == "Cat stopped the game: it reports a fault"


def test_a_seat_param_that_names_nobody_never_breaks_a_sentence() -> None:
    """A seat taken over when every seat's key was recovered has no proxy (``None``):
    the sentence says so instead of failing (#11: ``p2p8s audit`` crashed on it)."""
    sp = words.Speaker(names=("Ann", "Bob", "Cat"))
    assert sp.say(TableCode.SEAT_TAKEN, peer=0, player=0, proxy=None) == (
        "Ann acted for Ann, whose seat was taken over (the computer plays it)")
    assert sp.say(TableCode.SEAT_TAKEN, peer=2, player=2, proxy=0) == (
        "Cat acted for Cat, whose seat was taken over (the computer plays it; its moves are "
        "sent by Ann's node)")
    assert (sp.name(None), sp.who(None), sp.who(None, start=True)) == (
        "nobody", "nobody", "Nobody")
