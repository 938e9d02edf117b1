"""The one exception root of p2p8s and its families.

Two directions, as in h11: :class:`LocalError` is a misuse by this program or its user
(an illegal move typed at the prompt, a malformed scenario file); :class:`RemoteError`
is bad data from a peer and always names the offending seat.

Errors carry data, not sentences: a ``code`` (a member of a :class:`Code` enum of the
layer that raises it; its value is a stable kebab-case name) and keyword ``params``
(cards, suits, seats, numbers, short texts). The CLI turns them into words through one
catalogue (``p2p8s.cli.words``) — the place a translation hooks in — and prints them
through one dispatcher. ``str(error)`` is a developer form (``code k=v …``), never shown
to a player.

>>> class Demo(Code):
...     TOO_FAR = "too-far"
>>> str(LocalError(Demo.TOO_FAR, limit=3))
'too-far limit=3'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Code(StrEnum):
    """Base of every layer's enum of error and event codes (values are stable names)."""


@dataclass(frozen=True, slots=True)
class Note:
    """Something to tell a person, as data: a ``code`` and its ``params`` (cards, suits,
    seats, numbers) — a coach's remark, a hint's reason, why a connection ended, a
    runner's notice. The CLI says it (``p2p8s.cli.words``)."""

    code: Code
    params: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, code: Code, /, **params: Any) -> Note:
        """``Note(code, params)``."""
        return cls(code, params)


class Error(Exception):
    """Something p2p8s refuses to do; ``code`` says what, ``params`` the details."""

    code: Code
    params: dict[str, Any]

    def __init__(self, code: Code, /, **params: Any) -> None:
        self.code, self.params = code, params
        super().__init__(code.value)

    def __str__(self) -> str:
        details = " ".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.code.value} {details}".rstrip()

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled with its attributes (code, params, a subclass's own: seat, rule, …), not
        # rebuilt from ``args``: an error crosses process pools (``p2p8s simulate``).
        return _restore, (type(self), self.args, self.__dict__)


def _restore(cls: type[Error], args: tuple[Any, ...], state: dict[str, Any]) -> Error:
    err = cls.__new__(cls)
    err.args = args
    err.__dict__.update(state)
    return err


class LocalError(Error):
    """A request made on this machine cannot be carried out."""


class IllegalAction(LocalError):
    """The action breaks a rule of the game; the state is unchanged.

    ``rule`` is the RULES.md id the action breaks (``R-COUNTER``), when there is one.
    """

    def __init__(self, code: Code, /, *, rule: str | None = None, **params: Any) -> None:
        super().__init__(code, **params)
        self.rule = rule


class MalformedInput(LocalError):
    """Input text or a file is not in the expected format."""


class RemoteError(Error):
    """A peer sent something invalid; ``seat`` names the offender (None if unknown)."""

    def __init__(self, code: Code, /, *, seat: int | None = None, **params: Any) -> None:
        super().__init__(code, **params)
        self.seat = seat
