"""A copy of a seated player's identity (the same identity.pem in another HOME) is
told it is already at the table and exits 2, as a second terminal of the same HOME
does, at once (the host pings the seated connection and refuses the copy when it
answers) — real ``p2p8s host`` / ``p2p8s join`` processes on 127.0.0.1."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from .procs import Proc
from .test_cli import _host


def test_a_copied_identity_exits_2(procs: list[Proc], tmp_path: Path) -> None:
    host, code, port = _host(procs, tmp_path, "--seats", "3")
    invite = f"{code}@127.0.0.1:{port}"
    bob = Proc(["join", invite, "--name", "Bob", "-y"], home=tmp_path / "bob")
    procs.append(bob)
    host.expect(r"^Bob \[key .*\] sat down at seat 1$", timeout_s=15)
    pem = next((tmp_path / "bob").rglob("identity.pem"))
    copy_home = tmp_path / "copy"
    target = copy_home / pem.relative_to(tmp_path / "bob")
    target.parent.mkdir(parents=True)
    shutil.copy2(pem, target)
    start = time.monotonic()
    copy = Proc(["join", invite, "--name", "Bob", "-y"], home=copy_home)
    procs.append(copy)
    assert copy.wait(30) == 2, copy.output
    said = copy.output
    assert "you are already at this table from another terminal (your key " in said, said
    assert "Traceback" not in said
    # the host asked the seated connection, which answered: final, no retries first
    assert "trying again" not in said, said
    print(f"\ncopied identity stopped in {time.monotonic() - start:.1f} s")
    assert bob.popen.poll() is None  # the seated Bob is not disturbed
