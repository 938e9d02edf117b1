"""Start-up benchmark (issue #10, item 8): how long a command takes before it does anything.

Runs each command line ``--runs`` times as a fresh process (stdout thrown away) and
prints the median and the best wall time side by side with a bare interpreter
(``python -c pass``) and the ratio to it. The aim for ``p2p8s --help`` is at most three
times the bare interpreter: the command group imports a subcommand's module only when
that subcommand runs (:data:`p2p8s.cli.main.LAZY`).

The commands run through this interpreter (``python -c "from p2p8s.cli.main import
main; main()" ...``), like the ``p2p8s`` console script, which does the same import.

Run: ``python benchmarks/startup_bench.py [--runs 15]``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

P2P8S = [sys.executable, "-c", "from p2p8s.cli.main import main; main()"]

CASES: list[tuple[str, list[str]]] = [
    ("python -c pass", [sys.executable, "-c", "pass"]),
    ("python -c 'import click'", [sys.executable, "-c", "import click"]),
    ("p2p8s --help", [*P2P8S, "--help"]),
    ("p2p8s --version", [*P2P8S, "--version"]),
    ("p2p8s rules", [*P2P8S, "rules"]),
    ("p2p8s play --help", [*P2P8S, "play", "--help"]),
    ("p2p8s simulate --help", [*P2P8S, "simulate", "--help"]),
    ("p2p8s host --help", [*P2P8S, "host", "--help"]),
]


def timed(argv: list[str], runs: int) -> list[float]:
    """Wall times in seconds of ``runs`` fresh processes running ``argv``."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="processes per command")
    args = parser.parse_args()
    rows = [(label, timed(argv, args.runs)) for label, argv in CASES]
    bare = statistics.median(rows[0][1])
    width = max(len(label) for label, _ in rows)
    print(f"{'command':<{width}}  {'median':>9}  {'best':>9}  {'x bare':>6}")
    for label, times in rows:
        median = statistics.median(times)
        print(f"{label:<{width}}  {median * 1000:7.1f} ms  {min(times) * 1000:7.1f} ms  "
              f"{median / bare:6.2f}")


if __name__ == "__main__":
    main()
