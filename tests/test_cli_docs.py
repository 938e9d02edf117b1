"""cli/ holds the shell completions and the man page; they must follow the commands."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from p2p8s.cli.main import all_commands

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = Path(sys.executable).with_name("p2p8s")


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts_are_what_click_generates(shell: str) -> None:
    env = {**os.environ, "_P2P8S_COMPLETE": f"{shell}_source"}
    generated = subprocess.run([str(SCRIPT)], env=env, capture_output=True, text=True,
                               check=True).stdout
    stored = (ROOT / "cli" / "completions" / f"p2p8s.{shell}").read_text()
    assert stored == generated, (
        f"cli/completions/p2p8s.{shell} is stale; regenerate it with "
        f"_P2P8S_COMPLETE={shell}_source p2p8s > cli/completions/p2p8s.{shell}")


def test_bash_completion_offers_every_command() -> None:
    env = {**os.environ, "_P2P8S_COMPLETE": "bash_complete", "COMP_WORDS": "p2p8s ",
           "COMP_CWORD": "1"}
    out = subprocess.run([str(SCRIPT)], env=env, capture_output=True, text=True,
                         check=True).stdout
    offered = {line.split(",", 1)[1] for line in out.splitlines() if "," in line}
    assert set(all_commands()) <= offered


def test_man_page_documents_every_command_and_option() -> None:
    page = (ROOT / "cli" / "p2p8s.1").read_text()
    for name, command in all_commands().items():
        assert f".B {name}" in page, f"the man page lacks the {name} command"
        for param in command.params:
            for opt in getattr(param, "opts", []):
                if opt.startswith("--") and opt != "--help":
                    roff = opt.replace("-", "\\-")
                    if name in ("play", "host", "join"):
                        assert roff in page, f"the man page lacks {name} {opt}"
