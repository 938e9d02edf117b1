"""Every benchmark answers ``--help`` with its usage and runs nothing (argparse)."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

BENCHMARKS = sorted((Path(__file__).parent.parent / "benchmarks").glob("*.py"))


def test_every_benchmark_is_listed() -> None:
    assert {"crypto_bench.py", "first_deal.py", "handshake_bench.py"} <= {
        p.name for p in BENCHMARKS}


@pytest.mark.parametrize("path", BENCHMARKS, ids=lambda p: p.stem)
def test_help_prints_the_usage_and_runs_nothing(
        path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", [str(path), "--help"])
    monkeypatch.syspath_prepend(str(path.parent))  # as run: its folder is on the path
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(path), run_name="__main__")
    out = capsys.readouterr().out
    assert done.value.code == 0 and out.startswith(f"usage: {path.name}"), out[:300]
