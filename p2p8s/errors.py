"""The one exception root of p2p8s and its families.

Two directions, as in h11: :class:`LocalError` is a misuse by this program or its user
(an illegal move typed at the prompt, a malformed scenario file); :class:`RemoteError`
is bad data from a peer and always names the offending seat. The CLI prints
``str(error)`` through one dispatcher and exits non-zero; the messages are written for
people.
"""

from __future__ import annotations


class Error(Exception):
    """Something p2p8s refuses to do; the message says what and why."""


class LocalError(Error):
    """A request made on this machine cannot be carried out."""


class IllegalAction(LocalError):
    """The action breaks a rule of the game; the state is unchanged."""

    def __init__(self, message: str, *, rule: str | None = None) -> None:
        super().__init__(message)
        self.rule = rule


class MalformedInput(LocalError):
    """Input text or a file is not in the expected format."""


class RemoteError(Error):
    """A peer sent something invalid; ``seat`` names the offender (None if unknown)."""

    def __init__(self, message: str, *, seat: int | None = None) -> None:
        super().__init__(message)
        self.seat = seat
