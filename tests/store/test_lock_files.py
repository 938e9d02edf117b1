"""The ``<id>.lock`` files of the tables directory do not pile up (QA of #14): a lock
released removes its file, the files no live process holds are cleared, and never one a
live process holds — with real processes holding and dying, and real files."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from net.procs import Proc
from net.test_connecting_lock import busy_table  # noqa: F401 (a fixture)

from p2p8s.store import tablelock as tl

KEY = b"k" * 32
#: A process that takes the lock of :data:`KEY` at a table, says so, and holds it until
#: told (a line on stdin) to release it, or killed.
HOLDER = """
import sys
from pathlib import Path
from p2p8s.store.tablelock import TableLock, lock_table
lock = lock_table(b"k" * 32, sys.argv[2].encode(), directory=Path(sys.argv[1]))
assert isinstance(lock, TableLock)
print("held", flush=True)
sys.stdin.readline()
lock.release()
print("released", flush=True)
"""


def _holder(directory: Path, table: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(directory), table],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    return proc


def _locks(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.glob("*.lock"))


def test_a_released_lock_removes_its_file(tmp_path: Path) -> None:
    lock = tl.lock_table(KEY, b"table", directory=tmp_path)
    assert isinstance(lock, tl.TableLock) and lock.path.exists()
    lock.release()
    assert _locks(tmp_path) == []
    lock.release()  # idempotent
    again = tl.lock_table(KEY, b"table", directory=tmp_path)
    assert isinstance(again, tl.TableLock) and again.path.exists()
    again.release()


def test_a_lock_taken_on_a_file_removed_meanwhile_is_taken_again(tmp_path: Path) -> None:
    """Another process opened the file just before its holder released (removed) it: a
    lock on the removed file keeps nobody out, so it is not the lock — the file is opened
    again; there is still one holder."""
    first = tl.lock_table(KEY, b"table", directory=tmp_path)
    assert isinstance(first, tl.TableLock)
    opened = tl._open(first.path)  # the other process, between its open and its lock
    first.release()
    assert tl._take(first.path, opened) is None  # the file it opened is gone
    second = tl.lock_table(KEY, b"table", directory=tmp_path)
    assert isinstance(second, tl.TableLock)
    assert isinstance(tl.lock_table(KEY, b"table", directory=tmp_path), tl.HeldElsewhere)
    second.release()


@pytest.mark.wall_clock
def test_stale_locks_are_cleared_and_a_live_holders_never(tmp_path: Path) -> None:
    live = _holder(tmp_path, "in-play")
    dead = _holder(tmp_path, "ended")
    done = _holder(tmp_path, "left")
    try:
        assert len(_locks(tmp_path)) == 3
        dead.send_signal(signal.SIGKILL)  # dies holding it: the OS lets it go, the file stays
        dead.wait(10)
        assert done.stdin is not None and done.stdout is not None
        done.stdin.write("\n")
        done.stdin.flush()
        assert done.stdout.readline() == "released\n" and done.wait(10) == 0
        in_play = tl.lock_path(KEY, b"in-play", directory=tmp_path)
        assert _locks(tmp_path) == sorted(
            [in_play.name, tl.lock_path(KEY, b"ended", directory=tmp_path).name])
        assert tl.clear_stale(tmp_path) == 1  # the dead one's
        assert _locks(tmp_path) == [in_play.name]  # the live holder's stays, still held
        assert tl.lock_table(KEY, b"in-play", directory=tmp_path) == tl.HeldElsewhere(
            path=in_play, pid=live.pid)
        assert tl.clear_stale(tmp_path) == 0
    finally:
        for proc in (live, dead, done):
            proc.kill()
            proc.wait(10)
    assert tl.clear_stale(tmp_path) == 1 and _locks(tmp_path) == []


@pytest.mark.wall_clock
def test_join_clears_a_killed_one_s_lock_and_removes_its_own(
        tmp_path: Path, busy_table: int) -> None:  # noqa: F811
    """Real ``p2p8s join`` processes sharing one store: one killed leaves its file, the
    next one clears it, and leaves none when it ends (Ctrl-C)."""
    tables = tmp_path / "data" / "p2p8s" / "tables"
    invite = f"7KQ4MX@127.0.0.1:{busy_table}"  # a table that turns it away: it keeps trying
    first = Proc(["join", invite, "--name", "Bob", "-y"], home=tmp_path)
    second = None
    try:
        first.expect("trying again in", timeout_s=30)  # it holds the lock now
        assert len(_locks(tables)) == 1
        first.popen.kill()
        first.popen.wait(10)
        stale = tables / "0123456789abcdef.lock"  # another match's, of a process gone
        stale.write_text("4242\n")
        second = Proc(["join", invite, "--name", "Bob", "-y"], home=tmp_path)
        second.expect("trying again in", timeout_s=30)
        assert not stale.exists() and len(_locks(tables)) == 1  # its own, held
        second.signal(signal.SIGINT)
        assert second.wait(20) == 130
        assert _locks(tables) == []
    finally:
        for proc in (first, second):
            if proc is not None:
                proc.stop()


def _until(check: Callable[[], bool], timeout_s: float = 20.0) -> None:
    end = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < end, "it never happened"
        time.sleep(0.05)
