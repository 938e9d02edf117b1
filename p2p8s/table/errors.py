"""Errors of the replicated table: a peer broke a rule of the table or of the game.

Everything a peer sends is checked; what is wrong is a :class:`TableError` (a
:class:`~p2p8s.errors.RemoteError`) whose ``seat`` names the node (or seat) to blame.
Bad bytes, a message signed for another seat, an action out of turn or an illegal card
are table errors; what the mental-poker layer finds (a bad proof, a replayed message) is
its :class:`~p2p8s.crypto.errors.CheatDetected`. Either stops the table with a
:class:`~p2p8s.table.events.Fault`.
"""

from __future__ import annotations

from p2p8s.errors import RemoteError


class TableError(RemoteError):
    """A peer broke a rule of the table protocol or of the game; ``seat`` names it."""
