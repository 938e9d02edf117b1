"""Start-up (issue #10): ``p2p8s --help`` and ``p2p8s rules`` import no subcommand's
heavy modules — the network, the crypto, the runner — and the command list they show is
the commands' own. (The times are measured by ``benchmarks/startup_bench.py``.)"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import click
import pytest

from p2p8s.cli.main import LAZY, all_commands

#: Run ``p2p8s ARGS`` in a fresh interpreter, then print the imported modules' names.
PROBE = """
import json, sys
from p2p8s.cli.main import main
sys.argv = ["p2p8s", *json.loads(sys.argv[1])]
try:
    main()
except SystemExit:
    pass
print("\\nMODULES " + json.dumps(sorted(sys.modules)))
"""

HEAVY = ("asyncio", "zeroconf", "nacl", "cryptography", "concurrent", "p2p8s.net",
         "p2p8s.crypto", "p2p8s.table", "p2p8s.engine", "p2p8s.bots")


def _imported(*args: str) -> tuple[str, set[str]]:
    proc = subprocess.run([sys.executable, "-c", PROBE, json.dumps(args)], capture_output=True,
                          text=True, check=True, env={"COLUMNS": "80", "PATH": ""})
    out, _, modules = proc.stdout.rpartition("\nMODULES ")
    return out, set(json.loads(modules))


@pytest.mark.parametrize("args", [("--help",), ("rules",), ("--version",)])
def test_help_and_rules_import_nothing_heavy(args: tuple[str, ...]) -> None:
    out, modules = _imported(*args)
    heavy = sorted(m for m in modules if m.split(".")[0] in HEAVY or m.startswith(HEAVY))
    assert heavy == [], f"p2p8s {' '.join(args)} imported {heavy}"
    if args == ("--help",):
        for name in LAZY:
            assert f"\n  {name} " in out


def test_a_command_imports_its_own_module() -> None:
    _, modules = _imported("play", "--help")
    assert "p2p8s.cli.play_cmd" in modules and "p2p8s.cli.net_cmd" not in modules


def test_the_command_list_is_the_commands_own() -> None:
    """LAZY names every command of its modules, and its summaries are their help."""
    commands = all_commands()
    assert set(commands) == set(LAZY)
    for module in {lazy.module for lazy in LAZY.values()}:
        defined = importlib.import_module(f"p2p8s.cli.{module}").COMMANDS
        assert {c.name for c in defined} == {n for n, x in LAZY.items() if x.module == module}
    for name, lazy in LAZY.items():
        stand_in = click.Command(name, help=lazy.summary)
        for limit in (30, 45, 60, 72, 200):
            assert stand_in.get_short_help_str(limit) == \
                commands[name].get_short_help_str(limit), name
