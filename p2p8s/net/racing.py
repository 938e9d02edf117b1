"""Dialling the adverts of a table code at once: the first node that proves the code
wins (protocol/wire.md, "Finding a table").

Any node on the network can advertise a table id it heard, so a joiner cannot tell the
real table's advert from a copy until a node proves the code. Tried one after another,
copies that accept and never answer would each hold the join for a whole handshake
timeout; :func:`connect_first` dials up to :data:`AT_ONCE` adverts together (each
advert's own addresses in turn), keeps the first connection that proves the code and
cancels the others. A cancelled handshake is no failed guess on a real table: the
dialler's ``auth`` is the guess, and a dialler that knows the code passes it
(:mod:`p2p8s.net.connecting`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from p2p8s.net.connecting import HANDSHAKE_TIMEOUT_S
from p2p8s.net.errors import NetCode, Unreachable
from p2p8s.net.node import Connection, Node
from p2p8s.wire import Role

__all__ = ["AT_ONCE", "SLOW_S", "connect_first"]

#: Adverts dialled at the same time (the others wait for one of them to fail).
AT_ONCE = 8
#: Seconds without a winner after which ``slow`` is told (the CLI says it is trying).
SLOW_S = 2.0

Address = tuple[str, int]


async def connect_first(node: Node, groups: Sequence[Sequence[Address]], *, role: Role,
                        timeout_s: float = HANDSHAKE_TIMEOUT_S, at_once: int = AT_ONCE,
                        slow: Callable[[int], None] | None = None) -> Connection:
    """Dial every group of addresses (one advert's, tried in turn,
    :meth:`Node.connect_any`) at once, at most ``at_once`` groups at a time, each
    address within ``timeout_s``; return the first connection that completes the
    handshake and cancel the rest (a connection that completes meanwhile is dropped).
    ``slow(n)`` is called once if no group has won after :data:`SLOW_S` seconds (``n``
    the number of groups).

    Raises :class:`~p2p8s.net.errors.JoinRefused` as soon as a node that proved the
    code refuses (first come, as in turn), a :class:`~p2p8s.errors.RemoteError` of a
    node that proved the code and broke the rules, or :class:`Unreachable`
    (``none-reached``, every failure in the order of ``groups``) if none completes.
    """
    gate = asyncio.Semaphore(max(1, at_once))

    async def one(group: Sequence[Address]) -> Connection:
        async with gate:
            return await node.connect_any(group, role=role, timeout_s=timeout_s)

    tasks = [asyncio.ensure_future(one(g)) for g in groups]
    told = asyncio.get_running_loop().call_later(
        SLOW_S, lambda: slow(len(groups)) if slow is not None else None)
    winner: Connection | None = None
    try:
        pending = set(tasks)
        while pending:
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            finished = [t for t in tasks if t in done]  # in the order of groups
            won = [t for t in finished if t.exception() is None]
            if won:  # before any refusal of the same moment: it may be this very win's
                winner = won[0].result()  # (a second connection to the same node)
                return winner
            for task in finished:
                error = task.exception()
                if not isinstance(error, Unreachable):
                    assert error is not None
                    raise error
        failures: list[Unreachable] = []
        for task in tasks:
            error = task.exception()
            assert isinstance(error, Unreachable)
            failures.extend(error.params.get("failures", (error,)))
        raise Unreachable(NetCode.NONE_REACHED, failures=tuple(failures))
    finally:
        told.cancel()
        for task in tasks:
            task.cancel()
        # let every cancelled dial close its socket; one that won meanwhile is dropped
        for late in await asyncio.gather(*tasks, return_exceptions=True):
            if isinstance(late, Connection) and late is not winner:
                node.discard(late)
