"""The pure core imports no asyncio, sockets, zeroconf, clock or files (DESIGN.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "p2p8s"
FORBIDDEN = {"asyncio", "socket", "zeroconf", "time", "selectors", "threading", "os",
             "pathlib", "shutil", "tempfile", "platformdirs", "click", "sys", "secrets"}
PURE = [p for p in PKG.rglob("*.py")
        if p.relative_to(PKG).parts[0] not in ("net", "store", "cli")]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("path", PURE, ids=lambda p: str(p.relative_to(PKG)))
def test_pure_core_has_no_io_imports(path: Path) -> None:
    bad = _imports(path) & FORBIDDEN
    assert not bad, f"{path.relative_to(PKG)} imports {sorted(bad)}"


def test_the_check_sees_the_core() -> None:
    names = {str(p.relative_to(PKG)) for p in PURE}
    assert {"engine.py", "cards.py", "rules.py", "match.py"} <= names
