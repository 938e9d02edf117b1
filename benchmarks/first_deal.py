"""How long the host of a table takes from ``deal`` to its first round (issue #11).

Two real ``p2p8s`` processes (host and one joiner, both ``--auto``) in network namespaces
with real mDNS (root only; ``tests/net/netns.py``), and the same with ``--no-mdns``;
prints the seconds from typing ``deal`` to "Round 1:" on the host, per run. The
host's re-advertisement as a node in play (a few seconds of mDNS) no longer comes
before the deal.

    sudo .venv/bin/python benchmarks/first_deal.py [runs]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from net.netns import Lan, unavailable
from net.procs import Proc


def _one(lan: Lan, home: Path, *, mdns: bool) -> float:
    extra = [] if mdns else ["--no-mdns"]
    host = Proc(["host", "--name", "Ann", "--seats", "2", "--auto", "karl", "--rounds", "1",
                 *extra], home=home / "ann", prefix=lan.prefix(0))
    try:
        code = host.expect(r"^Table code: (\w{6})$").group(1)
        port = host.expect(r"run: p2p8s join \w{6}@[\d.]+:(\d+)$").group(1)
        host.expect(r"Type deal")
        invite = code if mdns else f"{code}@{lan.addresses[0]}:{port}"
        bob = Proc(["join", invite, "--name", "Bob", "--yes", "--timeout", "10", "--auto",
                    "vera", "--rounds", "1"], home=home / "bob", prefix=lan.prefix(1))
        try:
            host.expect(r"sat down at seat 1$", timeout_s=15)
            start = time.monotonic()
            host.send("deal")
            host.expect(r"^Round 1: ", timeout_s=30)
            return time.monotonic() - start
        finally:
            bob.stop()
    finally:
        host.stop()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("runs", type=int, nargs="?", default=3,
                        help="deals timed per mode (default: 3)")
    runs = parser.parse_args(argv).runs
    why = unavailable()
    if why is not None:
        sys.exit(f"first_deal: {why}")
    with Lan(2) as lan, tempfile.TemporaryDirectory() as tmp:
        for mdns in (True, False):
            took = [_one(lan, Path(tmp) / f"{mdns}{i}", mdns=mdns) for i in range(runs)]
            label = "mDNS     " if mdns else "--no-mdns"
            print(f"{label}: deal → round 1 on the host: "
                  + ", ".join(f"{t:.2f} s" for t in took))


if __name__ == "__main__":
    main()
