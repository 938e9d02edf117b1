"""Driving a session (:class:`Driver`): taking a received message in (its header and
chain checked, then queued), and running every step possible now — each queued message
its kind's handler accepts, then this seat's own steps and its partial strips — until
nothing changes. After a :class:`~p2p8s.crypto.errors.CheatDetected` (or a settled
accusation) the session is failed.
"""

from __future__ import annotations

from p2p8s.crypto.errors import Cheat, CheatDetected, Fault
from p2p8s.crypto.escrow_steps import EscrowSteps
from p2p8s.crypto.events import Output
from p2p8s.crypto.intake import Intake
from p2p8s.crypto.messages import (
    Accuse,
    Act,
    Commit,
    Dispute,
    KeyAnnounce,
    KeyReveal,
    Message,
    PartialStrip,
    PlayCards,
    Reveal,
    ShareReveal,
    Shuffle,
    Strip,
)
from p2p8s.crypto.resume import Resuming
from p2p8s.crypto.serving import Serving


class Driver(Intake, EscrowSteps, Serving, Resuming):
    """The receiving and running of a session (see the module docstring)."""

    # ------------------------------------------------------------------ receiving

    def receive(self, msg: Message) -> Output:
        """Process one message from a peer (already decoded by :func:`messages.decode`).

        Raises :class:`CheatDetected` naming the seat at fault.
        """
        self._guard()
        try:
            self._accept(msg)
        except CheatDetected as e:
            self._failed = e
            raise
        self._inbox.append(msg)
        return self._run()

    def _handle(self, msg: Message) -> bool:
        """Apply one message; False means "not yet" (it stays in the inbox)."""
        if isinstance(msg, Commit):
            return self._on_commit(msg)
        if isinstance(msg, Reveal):
            return self._on_reveal(msg)
        if isinstance(msg, KeyAnnounce):
            return self._on_key(msg)
        if isinstance(msg, Shuffle):
            return self._on_shuffle(msg)
        if isinstance(msg, Strip):
            return self._on_strip(msg)
        if isinstance(msg, PlayCards):
            return self._on_play(msg)
        if isinstance(msg, Dispute):
            return self._on_dispute(msg)
        if isinstance(msg, KeyReveal):
            return self._on_key_reveal(msg)
        if isinstance(msg, ShareReveal):
            return self._on_share_reveal(msg)
        if isinstance(msg, Act):
            return self._on_act(msg)
        if isinstance(msg, Accuse):
            return self._on_accuse(msg)
        if isinstance(msg, PartialStrip):
            return self._on_partial(msg)
        raise CheatDetected(Cheat.UNKNOWN_MESSAGE, seat=msg.seat, fault=Fault.MALFORMED)

    # ------------------------------------------------------------------ driving

    def _run(self) -> Output:
        try:
            progress = True
            while progress and self._verdict is None:
                progress = False
                for msg in list(self._inbox):
                    if self._handle(msg):
                        self._inbox.remove(msg)
                        progress = True
                        if self._verdict is not None:
                            break
                else:
                    progress |= self._pump()
                    progress |= self._serve_ready()
        except CheatDetected as e:
            self._failed = e
            self._out.clear()
            self._events.clear()
            raise
        out = Output(tuple(self._out), tuple(self._events))
        self._out.clear()
        self._events.clear()
        if self._verdict is not None:  # the accusation went out: nothing more from here
            self._failed = self._verdict
        return out
