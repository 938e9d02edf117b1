"""Fixtures shared by the test packages (pytest puts ``tests/`` on the import path), and
the one rule of the parallel run.

The suite runs on two pytest-xdist workers (``-n auto --maxprocesses 2 --dist
loadgroup``, pyproject.toml). Tests that run on the wall clock — real ``p2p8s``
processes (the ``procs`` fixture), coroutines over real sockets with heartbeat and turn
timers of a second or less, and any test marked ``wall_clock`` (a timing measured in a
subprocess, say) — are one xdist group: they run one at a time on one worker, as in a
serial run, while the other worker takes the in-memory tests.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator

import pytest
from net.procs import Proc

#: The xdist group of the tests that run on the wall clock (one at a time).
WALL_CLOCK = "wall-clock"


def runs_on_the_wall_clock(item: pytest.Item) -> bool:
    """Whether ``item`` starts real processes, is a coroutine (real sockets, timers) or
    is marked ``wall_clock``."""
    if item.get_closest_marker("wall_clock") is not None:
        return True
    if not isinstance(item, pytest.Function):
        return False
    return "procs" in item.fixturenames or inspect.iscoroutinefunction(item.obj)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if runs_on_the_wall_clock(item):
            item.add_marker(pytest.mark.xdist_group(WALL_CLOCK))


@pytest.fixture
def procs() -> Iterator[list[Proc]]:
    """The real ``p2p8s`` processes a test starts; any still running is killed after."""
    started: list[Proc] = []
    yield started
    for proc in started:
        proc.stop()
