"""One process per identity and table (issue #14, bug 1a): a second terminal of the same
player at the same table stops at once, in words, exit status 2 — with two real
``p2p8s join`` processes sharing one store."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from p2p8s.net.handshake import busy_record
from p2p8s.store.tablelock import HeldElsewhere, TableLock, lock_path, lock_table

from .procs import Proc

CODE = "7KQ4MX"


def test_the_lock_is_held_once_and_names_its_holder(tmp_path: Path) -> None:
    key, other = b"k" * 32, b"o" * 32
    first = lock_table(key, b"table", directory=tmp_path)
    assert isinstance(first, TableLock)
    again = lock_table(key, b"table", directory=tmp_path)  # another open file: refused
    assert again == HeldElsewhere(path=lock_path(key, b"table", directory=tmp_path),
                                  pid=os.getpid())
    # another identity, or another table, has its own lock
    assert isinstance(lock_table(other, b"table", directory=tmp_path), TableLock)
    assert isinstance(lock_table(key, b"table-2", directory=tmp_path), TableLock)
    first.release()
    first.release()  # idempotent
    assert isinstance(lock_table(key, b"table", directory=tmp_path), TableLock)


@pytest.fixture
def busy_table() -> Iterator[int]:
    """A listener that turns every connection away with a ``busy`` record (1 s): a
    joiner keeps trying, holding its lock."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            with conn:
                conn.sendall(busy_record(1))
                conn.settimeout(0.5)
                try:
                    while conn.recv(4096):
                        pass
                except OSError:
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        thread.join(2)
        server.close()


@pytest.mark.wall_clock
def test_a_second_terminal_of_the_same_player_stops_at_once(tmp_path: Path,
                                                            busy_table: int) -> None:
    invite = f"{CODE}@127.0.0.1:{busy_table}"
    first = Proc(["join", invite, "--name", "Bob", "-y"], home=tmp_path)
    second = third = None
    try:
        first.expect("trying again in", timeout_s=30)  # it holds the lock now
        start = time.monotonic()
        second = Proc(["join", invite, "--name", "Bob", "-y"], home=tmp_path)
        assert second.wait(20) == 2
        took = time.monotonic() - start
        said = second.output
        assert "you are already at this table from another terminal (p2p8s process " \
               f"{first.popen.pid} on this machine holds " in said, said
        assert said.rstrip().endswith("play there, or leave it first"), said
        assert "trying again" not in said and "Your key" not in said, said  # no dial
        logs = list((tmp_path / "data" / "p2p8s" / "tables").glob("*.p2p8slog"))
        assert logs == []
        print(f"\nsecond terminal stopped in {took:.2f} s (process start included)")
        first.stop()  # killed: the OS lets its lock go
        third = Proc(["join", invite, "--name", "Bob", "-y"], home=tmp_path)
        third.expect("trying again in", timeout_s=30)
    finally:
        for proc in (first, second, third):
            if proc is not None:
                proc.stop()
