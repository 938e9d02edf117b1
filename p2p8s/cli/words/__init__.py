"""Every word p2p8s says: codes, errors and events in, sentences out.

The core raises errors and emits events that carry a :class:`~p2p8s.errors.Code` and
data (cards, suits, seats, numbers); this package is the one place that turns them into
sentences, and the place where a translation hooks in (each template passes through
:func:`translate`). Each submodule of ``p2p8s.cli.words`` holds the templates of one
layer in a ``TEMPLATES`` mapping; they are loaded on first use, so importing this package
costs nothing at start-up.

A template is a :meth:`str.format` string or a function ``(speaker, params) -> str``.
Format specs on parameters:

- a :class:`~p2p8s.cards.Card`, a sequence of cards, or a :class:`~p2p8s.cards.Suit`
  is drawn by the speaker's :class:`~p2p8s.cli.look.Look` (``{card}`` → ``Q♠``);
- ``{seat:who}`` names a seat mid-sentence ("you" for the local seat), ``{seat:Who}`` at
  the start of a sentence ("You"), ``{seat:name}`` always by name;
- ``{n:s}`` is ``"s"`` unless ``n == 1`` (``{n} card{n:s}``);
- an :class:`~p2p8s.errors.Error` (the cause inside another error) is said as its
  sentence.

>>> from p2p8s.errors import Code, LocalError
>>> class Demo(Code):
...     FAR = "demo-far"
>>> register({Demo.FAR: "{seat:Who} may draw {n} card{n:s}"})
>>> Speaker(names=("Ann", "Bea"), me=0).say(Demo.FAR, seat=1, n=2)
'Bea may draw 2 cards'
>>> Speaker(names=("Ann", "Bea"), me=0).error(LocalError(Demo.FAR, seat=0, n=1))
'You may draw 1 card'
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from p2p8s.cards import Card, Suit
from p2p8s.errors import Error, Note, RemoteError

Template = str | Callable[["Speaker", Mapping[str, Any]], str]

#: Keyed by ``(enum class, value)``: members of two enums with the same value (a
#: StrEnum member equals its value, so ``A.X == B.X``) keep their own templates.
_CATALOGUE: dict[tuple[type[Enum], Any], Template] = {}
_loaded = False


def _key(code: Enum) -> tuple[type[Enum], Any]:
    return type(code), code.value


def register(templates: Mapping[Enum, Template]) -> None:
    """Add templates to the catalogue (a later registration of a code replaces it)."""
    _CATALOGUE.update((_key(code), t) for code, t in templates.items())


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        register(getattr(module, "TEMPLATES", {}))


def template(code: Enum) -> Template | None:
    """The template of ``code``, or None if the catalogue has none."""
    _load()
    return _CATALOGUE.get(_key(code))


def missing(codes: type[Enum]) -> list[Enum]:
    """The members of ``codes`` that have no template (a test keeps this empty)."""
    _load()
    return [c for c in codes if _key(c) not in _CATALOGUE]


def translate(text: str) -> str:
    """The hook for a translation catalogue (identity until one is installed)."""
    return text


def _look() -> Any:
    from p2p8s.cli.look import Look

    return Look()


@dataclass(frozen=True, slots=True)
class Speaker:
    """Who is spoken to: seat ``names``, the local seat ``me`` (None: an onlooker, no
    "you"), and the ``look`` that draws cards (default: plain text with suit glyphs)."""

    names: Sequence[str] = ()
    me: int | None = None
    look: Any = field(default_factory=_look)

    def name(self, seat: int | None) -> str:
        """The seat's name (``seat 3`` when it has none; ``nobody`` for no seat: a
        parameter that names no seat never breaks a sentence)."""
        if not isinstance(seat, int):
            return "nobody" if seat is None else str(seat)
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"

    def who(self, seat: int | None, *, start: bool = False) -> str:
        """``you``/``You`` for the local seat, else the seat's name (``Nobody`` at the
        start of a sentence for no seat)."""
        if seat is None:
            return "Nobody" if start else "nobody"
        if seat == self.me:
            return "You" if start else "you"
        return self.name(seat)

    def say(self, code: Enum, /, **params: Any) -> str:
        """The sentence for ``code`` with ``params``; an unknown code is said as its name
        and its parameters, so nothing is ever lost (a test keeps that from happening)."""
        t = template(code)
        if t is None:
            details = " ".join(f"{k}={v}" for k, v in params.items())
            return f"{getattr(code, 'value', code)} {details}".rstrip()
        if callable(t):
            return t(self, params)
        return self.format(t, **params)

    def format(self, text: str, /, **params: Any) -> str:
        """``text`` (a :meth:`str.format` template) filled with ``params`` as :meth:`say`
        fills a template, through :func:`translate`; for function templates that pick
        or derive their text first."""
        return translate(text).format(**{k: _Arg(v, self) for k, v in params.items()})

    def note(self, note: Note) -> str:
        """The sentence for a :class:`~p2p8s.errors.Note` (a code and its params)."""
        return self.say(note.code, **note.params)

    def error(self, exc: Error) -> str:
        """The sentence for an error raised anywhere in p2p8s (a
        :class:`~p2p8s.errors.RemoteError`'s ``seat`` is a param too)."""
        if isinstance(exc, RemoteError):
            return self.say(exc.code, **{"seat": exc.seat, **exc.params})
        return self.say(exc.code, **exc.params)


class _Arg:
    """A parameter as a template formats it (see the module docstring)."""

    __slots__ = ("speaker", "value")

    def __init__(self, value: Any, speaker: Speaker) -> None:
        self.value, self.speaker = value, speaker

    def __format__(self, spec: str) -> str:
        v, sp = self.value, self.speaker
        if spec == "who":
            return sp.who(v)
        if spec == "Who":
            return sp.who(v, start=True)
        if spec == "name":
            return sp.name(v)
        if spec == "s":
            return "" if v == 1 else "s"
        if isinstance(v, Error):
            return sp.error(v)
        if isinstance(v, Card):
            return str(sp.look.card(v))
        if isinstance(v, Suit):
            return str(sp.look.suit(v))
        if isinstance(v, Error):  # the error behind another one, in its own words
            return sp.error(v)
        if isinstance(v, (list, tuple)) and v and all(isinstance(c, Card) for c in v):
            return str(sp.look.cards(v))
        if isinstance(v, Enum) and not spec:
            t = template(v)
            return sp.say(v) if t is not None else str(v.value)
        return format(v, spec)

    def __str__(self) -> str:
        return format(self, "")


#: The words for somebody who is not at a table (errors of commands, files, the CLI).
PLAIN = Speaker()
