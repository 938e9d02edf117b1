"""kill -9 in the middle of a match, then ``p2p8s play`` resumes the identical state."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

from p2p8s.rules import Ruleset
from p2p8s.solo import SoloSettings
from p2p8s.store.saves import load_match

from .conftest import Home, hint_script, make_home


class _Reader:
    """Collects a process's stdout in a thread, so the test can wait for a prompt."""

    def __init__(self, fd: int) -> None:
        self.chunks: list[bytes] = []
        self.fd = fd
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while True:
            try:
                data = os.read(self.fd, 65536)
            except OSError:
                return
            if not data:
                return
            self.chunks.append(data)

    @property
    def text(self) -> str:
        return b"".join(self.chunks).decode("utf-8", "replace")

    def wait_for(self, needle: str, count: int, timeout: float = 60) -> None:
        end = time.monotonic() + timeout
        while self.text.count(needle) < count:
            assert time.monotonic() < end, f"never saw {needle!r} {count} times:\n{self.text}"
            time.sleep(0.02)


def _last_hand(text: str) -> str:
    """The last rendered hand, or the last round-end hands when the match was between
    rounds (up to the coach, the prompt or the match table)."""
    start = max(text.rfind("Your hand ("), text.rfind("Hands, face up:"))
    block = text[start:].split("\n")
    end = next(i for i, line in enumerate(block)
               if line.startswith(("Your move (", "Coach:", "Match table")))
    return "\n".join(block[:end])


def test_kill_at_the_prompt_and_resume_the_identical_state(home: Home) -> None:
    settings = SoloSettings(opponents=3, rules=Ruleset())
    script, _ = hint_script(settings, seed=33, max_moves=5)
    moves = script.splitlines()[:5]
    proc = home.popen("--seed", "33")
    assert proc.stdin is not None and proc.stdout is not None
    reader = _Reader(proc.stdout.fileno())
    proc.stdin.write("\n".join(moves) + "\n")
    proc.stdin.flush()
    reader.wait_for("): ", len(moves) + 1)  # every prompt ends so; the last one waits
    time.sleep(0.1)
    before = json.loads(home.save.read_text())
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    reader.thread.join(timeout=5)
    hand = _last_hand(reader.text)

    loaded = load_match(home.save)  # replays every action and checks the digest
    assert loaded is not None
    assert loaded.session.digest() == before["digest"]
    assert sum(len(r) for r in before["rounds"]) > len(moves)

    resumed = home.run(stdin="")
    assert "Welcome back to p2p8s!" in resumed.stdout
    assert _last_hand(resumed.stdout) == hand
    assert json.loads(home.save.read_text())["digest"] == before["digest"]


def test_kill_during_autoplay_then_finish_like_an_uninterrupted_match(
        home: Home, tmp_path: Path) -> None:
    args = ("--seed", "44", "--opponents", "2", "--target", "80", "--auto", "hanna")
    proc = home.popen(*args, extra_env={"P2P8S_PACE_S": "0.01"})
    assert proc.stdout is not None
    reader = _Reader(proc.stdout.fileno())
    reader.wait_for("is over:", 1)  # somewhere in round 2
    time.sleep(0.15)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    reader.thread.join(timeout=5)
    assert "wins the match" not in reader.text and "You win" not in reader.text
    assert home.save.exists()

    resumed = home.run("--auto", "hanna", stdin=None)
    assert resumed.returncode == 0, resumed.stderr
    assert "Welcome back to p2p8s!" in resumed.stdout

    other = make_home(tmp_path / "other")
    straight = other.run(*args, stdin=None)
    assert straight.returncode == 0
    tail = straight.stdout[straight.stdout.rindex("Match table"):]
    assert resumed.stdout.endswith(tail)
