"""Lines fitted to a terminal (p2p8s.cli.lines): the wrapping examples, and piped output
left as it is."""

from __future__ import annotations

import contextlib
import doctest
import io
import sys

import pytest

from p2p8s.cli import lines


def test_doctests() -> None:
    result = doctest.testmod(lines)
    assert result.failed == 0 and result.attempted > 0


def test_a_pipe_has_no_width() -> None:
    assert lines.stream_width(io.StringIO()) is None
    assert lines.fit("a b c " * 30, lines.stream_width(io.StringIO())) == "a b c " * 30


@pytest.mark.wall_clock
def test_a_top_level_error_is_wrapped_at_word_boundaries_on_a_terminal() -> None:
    """Issue 14: ``p2p8s: …`` lines on a 60-column terminal broke mid-word."""
    import os
    import pty
    import subprocess

    master, slave = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-c", "from p2p8s.cli.main import main; main()", "join",
             "192.168.1.20:4242"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave,
            env={**os.environ, "COLUMNS": "60", "LINES": "24"}, timeout=30, check=False)
        os.close(slave)
        slave = -1
        out = b""
        with contextlib.suppress(OSError):
            while chunk := os.read(master, 4096):
                out += chunk
    finally:
        os.close(master)
        if slave != -1:
            os.close(slave)
    assert done.returncode == 2
    lines = out.decode().replace("\r\n", "\n").rstrip("\n").split("\n")
    assert lines[0].startswith("p2p8s: the table code is missing in"), lines
    assert len(lines) > 1 and all(len(line) <= 60 for line in lines), lines
    assert " ".join(s.strip() for s in lines) == (
        "p2p8s: the table code is missing in '192.168.1.20:4242': type the whole line on "
        "the host's screen, CODE@HOST:PORT (like 7KQ4MX@192.168.1.20:4242)")


def test_a_run_of_retries_is_said_once_then_now_and_then() -> None:
    """Issue 14: a table that turned every attempt away printed one identical line a
    second (45 in 46 s)."""
    from p2p8s.cli.words.net import Line

    retries = lines.Retries()
    said = [(t, text) for t in range(46)
            if (text := retries.words(float(t), Line.BUSY_RETRY, wait_s=1)) is not None]
    assert said == [
        (0, "The table is busy or slowing down new attempts from this address; trying "
            "again in 1 s."),
        (10, "Still trying (11 attempts in 10 s)."),
        (20, "Still trying (21 attempts in 20 s)."),
        (30, "Still trying (31 attempts in 30 s)."),
        (40, "Still trying (41 attempts in 40 s)."),
    ]
