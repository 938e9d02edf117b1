"""Fixtures shared by the test packages (pytest puts ``tests/`` on the import path)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from net.procs import Proc


@pytest.fixture
def procs() -> Iterator[list[Proc]]:
    """The real ``p2p8s`` processes a test starts; any still running is killed after."""
    started: list[Proc] = []
    yield started
    for proc in started:
        proc.stop()
