"""The terminal edge: colour and glyph detection, pacing, and line input.

Line mode only (no cursor tricks), so it works in any terminal, over ssh, with a
screen reader and with piped input. Colour follows https://no-color.org: off when
``NO_COLOR`` is set (to anything non-empty), when stdout is not a terminal, or when
``TERM=dumb``. Suit glyphs (and dashes, arrows) are replaced by ASCII with ``--ascii`` or when
the output encoding cannot write them. Computer moves are paced (``P2P8S_PACE_S`` seconds, default
0.6) only when stdout is a terminal; ``P2P8S_PACE_S`` also forces pacing elsewhere.
``P2P8S_LINGER_S`` sets how long a finished table waits for a player owed the result,
``P2P8S_RETURN_S`` how long ``join`` keeps looking for a table this node sat at.

When stdout is a terminal, lines longer than its width are wrapped at word boundaries
(:func:`~p2p8s.cli.lines.wrap_line`); piped output is never wrapped, so transcripts do
not depend on a window's size.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable
from typing import TextIO

from p2p8s.cli.errors import CliCode
from p2p8s.cli.lines import stream_width, wrap_line
from p2p8s.cli.look import Look
from p2p8s.cli.moves import shorten
from p2p8s.errors import LocalError

DEFAULT_PACE_S = 0.6

#: Typed answers echoed back (piped input) are cut to this many characters.
ECHO_LIMIT = 40


#: Non-ASCII punctuation and its ASCII stand-in (used when the look is ASCII).
ASCII_PUNCTUATION = str.maketrans({"—": "-", "·": "|", "─": "-", "═": "=", "→": "->",
                                   "★": "*", "…": "...", "ß": "ss"})


class InputClosed(LocalError):
    """The input ended (end of file or a closed pipe)."""


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def detect_look(out: TextIO, *, ascii: bool = False) -> Look:
    """The :class:`Look` for ``out``: colour per NO_COLOR/tty/TERM, glyphs if encodable."""
    color = (_isatty(out) and not os.environ.get("NO_COLOR")
             and os.environ.get("TERM") != "dumb")
    if not ascii:
        try:
            "♣♦♥♠→─══★·—".encode(getattr(out, "encoding", None) or "ascii")
        except (UnicodeEncodeError, LookupError):
            ascii = True
    return Look(color=color, ascii=ascii)


def pace_for(out: TextIO) -> float:
    """Seconds to wait after each computer move (0 when ``out`` is not a terminal)."""
    env = _env_seconds("P2P8S_PACE_S")
    if env is not None:
        return env
    return DEFAULT_PACE_S if _isatty(out) else 0.0


def linger_for(default_s: float) -> float:
    """Seconds a finished table waits for a player still owed the result
    (``P2P8S_LINGER_S``, for tests and demos; else ``default_s``)."""
    env = _env_seconds("P2P8S_LINGER_S")
    return default_s if env is None else env


def return_patience(default_s: float) -> float:
    """Seconds ``join`` keeps looking for a table this node sat at that answers nowhere
    (``P2P8S_RETURN_S``, for tests and demos; else ``default_s``)."""
    env = _env_seconds("P2P8S_RETURN_S")
    return default_s if env is None else env


def _env_seconds(name: str) -> float | None:
    """A number of seconds (at least 0) from the environment variable ``name``; None
    when unset or not a number."""
    env = os.environ.get(name)
    if env:
        try:
            return max(0.0, float(env))
        except ValueError:
            pass
    return None


class Terminal:
    """Writes lines, reads answers, and paces computer moves.

    When the input is not a terminal, each answer is echoed after its prompt, so a
    transcript of piped play reads like a session.
    """

    def __init__(self, out: TextIO | None = None, inp: TextIO | None = None, *,
                 ascii: bool = False, pace_s: float | None = None,
                 width: int | None = None) -> None:
        self.out = out or sys.stdout
        self.inp = inp or sys.stdin
        self.look = detect_look(self.out, ascii=ascii)
        self.pace_s = pace_for(self.out) if pace_s is None else pace_s
        self.echo = not _isatty(self.inp)
        self.interactive = _isatty(self.inp) and _isatty(self.out)
        self._width = width

    @property
    def width(self) -> int | None:
        """Columns to wrap at: the given ``width``, else the terminal's when stdout is a
        terminal (asked each time, so a resized window is followed), else None."""
        if self._width is not None:
            return self._width
        return stream_width(self.out)

    def _wrap(self, text: str) -> list[str]:
        width = self.width
        return [text] if width is None else wrap_line(text, width)

    def say(self, *lines: str) -> None:
        """Print lines (wrapped to the terminal's width, see :func:`wrap_line`)."""
        for line in lines:
            for part in self._wrap(self._safe(line)):
                self.out.write(part + "\n")
        self.out.flush()

    def say_all(self, lines: Iterable[str]) -> None:
        """Print an iterable of lines."""
        self.say(*lines)

    def _safe(self, text: str) -> str:
        if self.look.ascii:
            text = text.translate(ASCII_PUNCTUATION)
        enc = getattr(self.out, "encoding", None) or "utf-8"
        return text.encode(enc, "replace").decode(enc)

    def prompt(self, text: str) -> None:
        """Show a prompt without waiting for the answer (the table client gets the answer
        later, as a typed line)."""
        parts = self._wrap(self._safe(text))
        if len(parts) > 1 and text.endswith(" "):
            parts[-1] += " "  # the answer goes after the prompt's space
        self.out.write("\n".join(parts))
        self.out.flush()

    def ask(self, prompt: str) -> str:
        """Show ``prompt`` and return the answer without its newline.

        Raises :class:`InputClosed` at end of input.
        """
        self.prompt(prompt)
        try:
            line = self.inp.readline()
        except (OSError, ValueError):
            line = ""
        if not line:
            self.out.write("\n")
            self.out.flush()
            raise InputClosed(CliCode.INPUT_ENDED)
        answer = line.rstrip("\r\n")
        if self.echo:
            self.out.write(self._safe(shorten(answer, ECHO_LIMIT)) + "\n")
            self.out.flush()
        return answer

    def pause(self) -> None:
        """Wait a moment so a person can follow a computer move."""
        if self.pace_s > 0:
            time.sleep(self.pace_s)
