"""Drive real ``p2p8s`` processes: stdin in, stdout lines out, wait for patterns."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

P2P8S = [sys.executable, "-c", "from p2p8s.cli.main import main; main()"]


class Proc:
    """A running command whose merged stdout/stderr is collected line by line."""

    def __init__(self, args: Sequence[str], *, home: Path, prefix: Sequence[str] = ()) -> None:
        env = {**os.environ, "XDG_DATA_HOME": str(home / "data"),
               "XDG_CONFIG_HOME": str(home / "config"), "PYTHONUNBUFFERED": "1"}
        self.args = [*prefix, *P2P8S, *args]
        self.popen = subprocess.Popen(self.args, stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      env=env, text=True, bufsize=1)
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.popen.stdout is not None
        for line in self.popen.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    @property
    def output(self) -> str:
        """Everything read so far."""
        self._drain(0)
        return "\n".join(self.lines)

    def _drain(self, timeout_s: float) -> bool:
        """Move available lines into :attr:`lines`; False at end of output."""
        try:
            line = self._queue.get(timeout=timeout_s) if timeout_s else self._queue.get_nowait()
        except queue.Empty:
            return True
        if line is None:
            self._queue.put(None)
            return False
        self.lines.append(line)
        return True

    def expect(self, pattern: str, timeout_s: float = 10.0) -> re.Match[str]:
        """Wait for a line matching ``pattern``; AssertionError with the output if not."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout_s
        checked = 0
        while True:
            for line in self.lines[checked:]:
                if m := regex.search(line):
                    return m
            checked = len(self.lines)
            left = deadline - time.monotonic()
            if left <= 0 or (not self._drain(min(left, 0.2)) and checked == len(self.lines)):
                raise AssertionError(f"{pattern!r} not seen from {self.args}:\n{self.output}")

    def send(self, line: str) -> None:
        """Type a line on stdin."""
        assert self.popen.stdin is not None
        self.popen.stdin.write(line + "\n")
        self.popen.stdin.flush()

    def wait(self, timeout_s: float = 10.0) -> int:
        """Wait for exit and return the exit status."""
        rc = self.popen.wait(timeout_s)
        while self._drain(0.5):
            pass
        return rc

    def signal(self, sig: int) -> None:
        self.popen.send_signal(sig)

    def stop(self) -> None:
        """Kill it if it still runs (cleanup)."""
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGCONT)
            self.popen.kill()
            self.popen.wait(5)
        if self.popen.stdin:
            self.popen.stdin.close()
