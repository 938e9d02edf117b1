"""Lines fitted to a terminal: wrapping at word boundaries, and the network commands'
one-line sayings.

When the stream is a terminal, lines longer than its width are wrapped
(:func:`wrap_line`); piped output is never wrapped, so transcripts do not depend on a
window's size. :class:`~p2p8s.cli.terminal.Terminal` wraps the game's lines with it;
:func:`say` prints the lines of ``host``, ``join``, ``tables`` and ``audit``;
:class:`Retries` says a run of identical retries once, then now and then.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import sys
from dataclasses import dataclass
from enum import Enum
from typing import Any, TextIO

import click

from p2p8s.cli.words import PLAIN
from p2p8s.cli.words.net import Line
from p2p8s.errors import Note

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_SPACES = re.compile(r"( +)")


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


def stream_width(stream: TextIO) -> int | None:
    """The terminal's width in columns when ``stream`` is a terminal (asked each time,
    so a resized window is followed), else None (piped output is not wrapped)."""
    with contextlib.suppress(AttributeError, ValueError):
        if stream.isatty():
            return shutil.get_terminal_size().columns
    return None


def fit(text: str, width: int | None) -> str:
    """``text`` with each of its lines wrapped to ``width`` columns at word boundaries
    (:func:`wrap_line`, as the game's lines are); None: as it is."""
    if width is None:
        return text
    return "\n".join(part for line in text.split("\n") for part in wrap_line(line, width))


def echo(text: str, /, *, err: bool = False) -> None:
    """Print ``text`` (its lines wrapped to the terminal's width) on stdout, or stderr."""
    click.echo(fit(text, stream_width(sys.stderr if err else sys.stdout)), err=err)


def say(code: Enum, /, *, err: bool = False, nl: bool = True, **params: Any) -> None:
    """Print the words of ``code`` with ``params`` (:data:`~p2p8s.cli.words.PLAIN`),
    wrapped to the terminal's width — but for a prompt (``nl=False``): as it is."""
    text = PLAIN.say(code, **params)
    if nl:
        echo(text, err=err)
    else:
        click.echo(text, err=err, nl=False)


def notice(note: Note) -> None:
    """Say a node's notice (wrong codes from an address: slowed down) on stderr."""
    echo(PLAIN.note(note), err=True)


#: Seconds between two "still trying" lines of a run of retries.
STILL_TRYING_EVERY_S = 10.0


@dataclass(slots=True)
class Retries:
    """What to say of a run of retries (a table that keeps turning attempts away): the
    first attempt's own line, then nothing but a ``still trying (N attempts in M s)``
    line at most every ``every_s`` seconds. ``now`` is any monotonic clock, in
    seconds."""

    every_s: float = STILL_TRYING_EVERY_S
    attempts: int = 0
    started: float = 0.0
    said: float = 0.0

    def words(self, now: float, code: Enum, /, **params: Any) -> str | None:
        """The line for one more attempt at ``now``: the words of ``code`` with
        ``params`` for the first, :attr:`Line.STILL_TRYING` once ``every_s`` passed
        since the last line said, else None (say nothing)."""
        self.attempts += 1
        if self.attempts == 1:
            self.started = self.said = now
            return PLAIN.say(code, **params)
        if now - self.said < self.every_s:
            return None
        self.said = now
        return PLAIN.say(Line.STILL_TRYING, attempts=self.attempts,
                         seconds=now - self.started)

    def say(self, now: float, code: Enum, /, **params: Any) -> None:
        """Print :meth:`words` (wrapped to the terminal), if any."""
        text = self.words(now, code, **params)
        if text is not None:
            echo(text)
