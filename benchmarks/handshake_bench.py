"""What the version-3 handshake (SPAKE2 on the code, sealed records) costs, next to the
version-2 one (an HMAC code proof under scrypt(code)) in the same run (issue #14).

Each version runs in its own Python process: version 2 from ``git archive`` of commit
``6b98d0d`` (the last one that had it) into a temporary directory, version 3 from this
checkout. Per version it prints, over ``runs`` fresh node pairs on 127.0.0.1 (both ends
in one process, so CPU is both sides' work):

* **join** — wall-clock ms from dialling to a handshaken connection (``Node.connect``);
* **cpu** — process CPU ms per handshake, both ends together;
* **setup** — ms a node spends once on the code before its first handshake (version 2:
  ``code_key`` = scrypt; version 3: nothing);
* **sealed** — version 3 only: µs to seal and open one 200-byte frame.

Wall and CPU differ when the machine is busy (other processes take the cores).

    .venv/bin/python benchmarks/handshake_bench.py [runs]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import inspect
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Sequence
from io import BytesIO
from pathlib import Path
from typing import Any

#: The last commit with the version-2 handshake.
OLD = "6b98d0d"
CODE = "7KQ4MX"
ROOT = Path(__file__).resolve().parents[1]


async def _pairs(runs: int) -> dict[str, Any]:
    """Time ``runs`` connects between fresh node pairs with whichever p2p8s is imported."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from p2p8s.net.node import Node
    from p2p8s.wire import Role

    v3 = "code" in inspect.signature(Node).parameters
    start = time.perf_counter()
    if v3:
        kwargs: dict[str, Any] = {"code": CODE}
        table: bytes | None = os.urandom(8)
    else:
        old = importlib.import_module("p2p8s.codes")  # version 2's, untyped here
        key = old.code_key(CODE)
        kwargs = {"code_key": key}
        table = old.table_id(key)
    setup = time.perf_counter() - start
    joins: list[float] = []
    cpus: list[float] = []
    for _ in range(runs):
        host = Node(identity=Ed25519PrivateKey.generate(), name="Ann", table=table,
                    host="127.0.0.1", **kwargs)
        joiner = Node(identity=Ed25519PrivateKey.generate(), name="Bob",
                      table=None if v3 else table, host="127.0.0.1", **kwargs)
        async with host, joiner:
            host.seat = 0
            cpu, wall = time.process_time(), time.perf_counter()
            await joiner.connect("127.0.0.1", host.port, role=Role.JOIN)
            while not host.peers:  # the acceptor's end is done too
                await asyncio.sleep(0)
            joins.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
    out: dict[str, Any] = {"version": 3 if v3 else 2, "setup_ms": setup * 1000,
                           "join_ms": [j * 1000 for j in joins],
                           "cpu_ms": [c * 1000 for c in cpus]}
    if v3:
        out["seal_open_us"] = _sealed()
    return out


def _sealed(count: int = 2000) -> float:
    from p2p8s.net.channel import Opener, Sealer

    sealer, opener = Sealer(bytes(32)), Opener(bytes(32), peer="bench")
    frame = os.urandom(200)
    start = time.perf_counter()
    for _ in range(count):
        opener.receive_data(sealer.seal(frame))
    return (time.perf_counter() - start) / count * 1e6


def _old_tree(into: Path) -> None:
    """Unpack commit :data:`OLD`'s ``p2p8s`` package into ``into``."""
    data = subprocess.run(["git", "-C", str(ROOT), "archive", OLD, "p2p8s"],
                          check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(into, filter="data")


def _run(pythonpath: Path, runs: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    done = subprocess.run([sys.executable, __file__, "--inner", str(runs)], env=env,
                          check=True, capture_output=True, text=True, cwd=pythonpath)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _line(result: dict[str, Any]) -> str:
    joins, cpus = result["join_ms"], result["cpu_ms"]
    text = (f"version {result['version']}: join {statistics.median(joins):6.1f} ms median "
            f"(min {min(joins):.1f}, max {max(joins):.1f}); cpu "
            f"{statistics.median(cpus):6.1f} ms a handshake (both ends); setup "
            f"{result['setup_ms']:.1f} ms once")
    if "seal_open_us" in result:
        text += f"; seal + open a 200-byte frame {result['seal_open_us']:.1f} µs"
    return text


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("runs", type=int, nargs="?", default=20,
                        help="fresh node pairs per version (default: 20)")
    parser.add_argument("--inner", type=int, metavar="RUNS", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.inner is not None:  # one version's pairs, in its own process (see _run)
        print(json.dumps(asyncio.run(_pairs(args.inner))))
        return
    runs = args.runs
    with tempfile.TemporaryDirectory() as tmp:
        _old_tree(Path(tmp))
        old = _run(Path(tmp), runs)
    new = _run(ROOT, runs)
    print(f"handshake over 127.0.0.1, {runs} fresh node pairs each:")
    print(_line(old))
    print(_line(new))
    first = [r["setup_ms"] + statistics.median(r["join_ms"]) for r in (old, new)]
    print(f"a person's first join (setup + handshake): version 2 {first[0]:.0f} ms, "
          f"version 3 {first[1]:.0f} ms; each later connection "
          f"{statistics.median(new['join_ms']) - statistics.median(old['join_ms']):+.0f} ms")


if __name__ == "__main__":
    main()
