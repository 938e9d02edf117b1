"""The terminal edge: colour and glyph detection, pacing, and line input.

Line mode only (no cursor tricks), so it works in any terminal, over ssh, with a
screen reader and with piped input. Colour follows https://no-color.org: off when
``NO_COLOR`` is set (to anything non-empty), when stdout is not a terminal, or when
``TERM=dumb``. Suit glyphs (and dashes, arrows) are replaced by ASCII with ``--ascii`` or when
the output encoding cannot write them. Computer moves are paced (``P2P8S_PACE_S`` seconds, default
0.6) only when stdout is a terminal; ``P2P8S_PACE_S`` also forces pacing elsewhere.

When stdout is a terminal, lines longer than its width are wrapped at word boundaries
(:func:`wrap_line`); piped output is never wrapped, so transcripts do not depend on a
window's size.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import time
from collections.abc import Iterable
from typing import TextIO

from p2p8s.cli.errors import CliCode
from p2p8s.cli.look import Look
from p2p8s.cli.moves import shorten
from p2p8s.errors import LocalError

DEFAULT_PACE_S = 0.6

#: Typed answers echoed back (piped input) are cut to this many characters.
ECHO_LIMIT = 40

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_SPACES = re.compile(r"( +)")

#: Non-ASCII punctuation and its ASCII stand-in (used when the look is ASCII).
ASCII_PUNCTUATION = str.maketrans({"—": "-", "·": "|", "─": "-", "═": "=", "→": "->",
                                   "★": "*", "…": "...", "ß": "ss"})


def visible_len(text: str) -> int:
    """The width of ``text`` on screen (ANSI colour codes take no room)."""
    return len(_ANSI.sub("", text))


def wrap_line(line: str, width: int) -> list[str]:
    """``line`` wrapped at word boundaries to ``width`` columns (colour codes ignored).

    Words are never broken (a single word wider than ``width`` gets a line of its
    own). Continuation lines are indented like the first, plus two spaces. A table-like
    line (one with runs of two or more spaces after its indentation, like a hand or a
    score row) is only broken at those runs, so ``3 Q♠`` stays together, and its
    continuation lines align under its second column.

    >>> wrap_line("Coach: a queen skips the next player: they miss their turn.", 24)
    ['Coach: a queen skips the', '  next player: they miss', '  their turn.']
    >>> wrap_line("  clubs     1 7C*   2 9C    3 JC", 24)
    ['  clubs     1 7C*   2 9C', '            3 JC']
    >>> wrap_line("  d        draw a card from the stock", 24)
    ['  d        draw a card', '           from the', '           stock']
    >>> wrap_line("  d    draw a card     p   pass (keep a drawn card)", 30)
    ['  d    draw a card', '       p   pass (keep a drawn', '       card)']
    """
    if width < 10 or visible_len(line) <= width:
        return [line]
    body = line.lstrip(" ")
    indent = line[:len(line) - len(body)]
    tabular = "  " in body.rstrip(" ")
    parts = _SPACES.split(body)  # word, spaces, word, spaces, ...
    if tabular:  # only runs of 2+ spaces separate; single spaces join
        merged: list[str] = [parts[0]]
        for i in range(1, len(parts), 2):
            gap, word = parts[i], parts[i + 1]
            if len(gap) == 1:
                merged[-1] += gap + word
            else:
                merged += [gap, word]
        parts = merged
    words = parts[0::2]
    gaps = parts[1::2]
    if tabular and len(words) > 1:
        hang = " " * min(visible_len(indent + words[0] + gaps[0]), width // 2)
    else:
        hang = indent + "  "
    glue = [""] * len(words)  # what must follow a word on its line
    if tabular:
        # a one-word label before a description ("p   pass (keep a drawn card)") stays
        # with the description's first word
        for i in range(len(words) - 1):
            if " " not in words[i] and words[i + 1].count(" ") >= 2:
                glue[i] = gaps[i] + words[i + 1].split(" ")[0]
        # prose (three words or more) and a column too wide for a line of its own
        # are broken at single spaces
        room = width - len(hang)
        triples: list[tuple[str, str, str]] = []
        for gap, word, tie in zip(["", *gaps], words, glue, strict=True):
            if (visible_len(word) <= room and word.count(" ") < 2) or " " not in word:
                triples.append((gap, word, tie))
            else:
                first, *rest = word.split(" ")
                triples += [(gap, first, ""), *((" ", w, "") for w in rest)]
        gaps = [g for g, _, _ in triples[1:]]
        words = [w for _, w, _ in triples]
        glue = [t for _, _, t in triples]
    out: list[str] = []
    current = indent + words[0]
    for gap, word, tie in zip(gaps, words[1:], glue[1:], strict=True):
        if not word:
            continue
        if visible_len(current + gap + word + tie) <= width:
            current += gap + word
        else:
            out.append(current.rstrip(" "))
            current = hang + word
    out.append(current)
    return out


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
    env = os.environ.get("P2P8S_PACE_S")
    if env:
        try:
            return max(0.0, float(env))
        except ValueError:
            pass
    return DEFAULT_PACE_S if _isatty(out) else 0.0


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
        if not _isatty(self.out):
            return None
        return shutil.get_terminal_size().columns

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
