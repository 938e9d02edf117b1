"""Fixtures shared by the test packages (pytest puts ``tests/`` on the import path), and
the one rule of the parallel run.

The suite runs on two pytest-xdist workers (``-n auto --maxprocesses 2 --dist
loadgroup``, pyproject.toml). Tests that run on the wall clock — real ``p2p8s``
processes (the ``procs`` fixture), coroutines over real sockets with heartbeat and turn
timers of a second or less, and any test marked ``wall_clock`` (a timing measured in a
subprocess, say) — are one xdist group: they run one at a time on one worker, as in a
serial run, while the other worker takes the in-memory tests. A test marked
``apart`` (the Wi-Fi soak: minutes of real processes in network namespaces of its own,
mostly waiting) is a group of its own, run on the other worker beside the wall-clock
group instead of after it.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator, Sequence

import pytest
from net.procs import Proc

from p2p8s.crypto import shuffle_proof
from p2p8s.crypto.group import Point
from p2p8s.crypto.shuffle_proof import ShuffleProof
from p2p8s.crypto.transcript import Transcript

#: The xdist group of the tests that run on the wall clock (one at a time).
WALL_CLOCK = "wall-clock"
#: The xdist group of the tests marked ``apart``.
APART = "apart"


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
        if item.get_closest_marker("apart") is not None:
            item.add_marker(pytest.mark.xdist_group(APART))
        elif runs_on_the_wall_clock(item):
            item.add_marker(pytest.mark.xdist_group(WALL_CLOCK))


@pytest.fixture
def procs() -> Iterator[list[Proc]]:
    """The real ``p2p8s`` processes a test starts; any still running is killed after."""
    started: list[Proc] = []
    yield started
    for proc in started:
        proc.stop()



#: The shuffle-proof verdicts of the running test (:func:`_one_verdict_per_proof`).
_VERDICTS: dict[tuple[object, ...], bool] = {}
_VERIFY = shuffle_proof.verify


def _remembered_verify(t: Transcript, key: Point, inputs: Sequence[Point],
                       outputs: Sequence[Point], proof: ShuffleProof) -> bool:
    statement = (t.digest(), key, tuple(inputs), tuple(outputs), proof)
    verdict = _VERDICTS.get(statement)
    if verdict is None:
        verdict = _VERDICTS[statement] = _VERIFY(t, key, inputs, outputs, proof)
    return verdict


@pytest.fixture(autouse=True)
def _one_verdict_per_proof(request: pytest.FixtureRequest,
                           monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Outside tests/crypto, the nodes of an in-process table (and the audits of their
    logs) verify each shuffle proof once per test, not once per node: the verdict is a
    pure function of the transcript and the bytes checked (mental-poker.md §5.3.1), so
    they share it instead of repeating the same multi-exponentiations, the suite's
    largest cost. A changed proof, statement or transcript is another key, verified
    afresh. tests/crypto checks :func:`shuffle_proof.verify` itself, uncached; real
    processes (and benchmarks) never see this."""
    if "crypto" not in request.node.path.parts:
        monkeypatch.setattr(shuffle_proof, "verify", _remembered_verify)
    yield
    _VERDICTS.clear()
