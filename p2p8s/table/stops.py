"""Stopping on a fault, and a peer's stop (sans-IO).

The first fault a node finds stops its table (:meth:`Stops.stop`): the client is told
(a :class:`~p2p8s.table.events.Fault`) and so are the other nodes — a ``stop`` payload
with the accused seat, the fault's code and data (its developer form: no sentence goes
on the wire) and this node's view of every seat's message chain. A node that hears a
peer's stop (:meth:`Stops.on_stop`) first compares that echo with its own chains — a
seat that sent different messages to different peers is named with its own evidence —
and otherwise stops too, naming the accused (a claim of the sender; the signed logs
decide, ``p2p8s audit``) — except for a bad escrow share, which only its recipient can
see: that claim names nobody, the recipient's signed accusation does
(:func:`~p2p8s.crypto.escrow.settle`; it travels before the stop, so a node that took
it in has stopped on its own verdict already).
"""

from __future__ import annotations

from p2p8s.crypto.errors import Cheat
from p2p8s.table import events as tev
from p2p8s.table.actions import STOP, StopNotice
from p2p8s.table.context import Ctx
from p2p8s.table.decoding import BadPayload
from p2p8s.table.errors import TableCode, TableError
from p2p8s.table.sessions import LocalSessions

#: the codes of a fault only the recipient of an escrow share can see
_UNSEEN = frozenset({Cheat.SHARE_UNDECRYPTABLE.value, Cheat.SHARE_FELDMAN.value})


class Stops:
    """This node's stop, and its peers' (see the module docstring). No timer."""

    def __init__(self, ctx: Ctx, sessions: LocalSessions) -> None:
        self._ctx = ctx
        self._sessions = sessions

    def get_timer(self) -> float | None:
        """A stop is final: no timer."""
        return None

    def stop(self, fault: tev.Fault) -> None:
        """Stop the table on ``fault`` (the first one counts) and tell the others why."""
        ctx = self._ctx
        if ctx.failed is not None:
            return
        ctx.failed = fault
        ctx.tell(fault)
        self._sessions.clear_queue()
        if not ctx.observing and ctx.number:
            heads = self._sessions.primary.chain_heads()
            notice = StopNotice(round_no=ctx.number, seat=fault.seat, message=fault.message,
                                echo=heads)
            ctx.send(STOP, notice.encode())

    def on_stop(self, sender: int, body: bytes) -> None:
        """A peer stopped: raises the crypto layer's error for an equivocation its echo
        shows, else TableError (``STOPPED``) naming the seat it accused."""
        ctx = self._ctx
        try:
            notice = StopNotice.decode(body)
        except BadPayload as e:
            raise TableError(TableCode.MALFORMED, seat=sender, peer=sender, cause=e) from None
        if ctx.number and notice.round_no == ctx.number and notice.echo:
            self._sessions.primary.check_echo(sender, notice.echo)
        accused = notice.seat if notice.seat is not None and 0 <= notice.seat < len(
            ctx.names) and notice.message.split(" ", 1)[0] not in _UNSEEN else None
        raise TableError(TableCode.STOPPED, seat=accused, peer=sender, reason=notice.message)
