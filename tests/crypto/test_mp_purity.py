"""The crypto core is pure: no I/O, clock or unseeded randomness imports (DESIGN.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import p2p8s.crypto

FORBIDDEN = {"asyncio", "socket", "time", "zeroconf", "random", "secrets", "os", "threading"}


def test_crypto_modules_import_no_io_clock_or_unseeded_rng() -> None:
    root = Path(p2p8s.crypto.__file__).parent
    files = sorted(root.glob("*.py"))
    assert len(files) >= 12
    for path in files:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in FORBIDDEN, f"{path.name} imports {name}"
