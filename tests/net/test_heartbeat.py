"""The sans-IO heartbeat timers (the clock is an argument)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2p8s.net.heartbeat import Heartbeats


def test_idle_connection_gets_a_heartbeat_every_interval() -> None:
    hb = Heartbeats[str](interval_s=1.0, timeout_s=5.0)
    hb.add("b", now=10.0)
    assert hb.poll(now=10.5) == ([], [])
    assert hb.next_deadline() == 11.0
    assert hb.poll(now=11.0) == (["b"], [])
    hb.on_sent("b", now=11.0)
    assert hb.next_deadline() == 12.0


def test_traffic_postpones_heartbeats_and_death() -> None:
    hb = Heartbeats[str](interval_s=1.0, timeout_s=5.0)
    hb.add("b", now=0.0)
    for t in range(1, 20):
        hb.on_sent("b", now=t - 0.5)
        hb.on_received("b", now=t - 0.5)
        assert hb.poll(now=float(t)) == ([], [])


def test_silent_peer_is_dead_after_timeout_exactly_once() -> None:
    hb = Heartbeats[str](interval_s=1.0, timeout_s=5.0)
    hb.add("b", now=0.0)
    hb.add("c", now=0.0)
    hb.on_received("c", now=4.0)
    assert hb.poll(now=4.99)[1] == []
    assert hb.poll(now=5.0)[1] == ["b"]
    assert hb.poll(now=6.0)[1] == []
    assert hb.peers == ["c"]
    assert hb.poll(now=9.0)[1] == ["c"]
    assert hb.next_deadline() is None


def test_silence_counts_from_the_last_thing_heard() -> None:
    hb = Heartbeats[str](interval_s=1.0, timeout_s=5.0)
    hb.add("b", now=10.0)
    assert hb.silent_for("b", now=12.5) == 2.5
    hb.on_received("b", now=12.0)
    assert hb.silent_for("b", now=12.5) == 0.5
    assert hb.silent_for("b", now=11.0) == 0.0  # a clock read before the last frame
    assert hb.silent_for("gone", now=12.5) == 0.0


def test_bad_intervals_are_refused() -> None:
    with pytest.raises(ValueError):
        Heartbeats[str](interval_s=5.0, timeout_s=1.0)


@given(st.lists(st.floats(0.0, 3.0), min_size=1, max_size=30))
def test_never_dead_while_hearing_within_timeout(gaps: list[float]) -> None:
    hb = Heartbeats[int](interval_s=1.0, timeout_s=5.0)
    hb.add(1, now=0.0)
    now = 0.0
    for gap in gaps:
        now += gap
        due, dead = hb.poll(now=now)
        assert dead == []
        for peer in due:
            hb.on_sent(peer, now=now)
        deadline = hb.next_deadline()
        assert deadline is not None and deadline > now
        hb.on_received(1, now=now)
