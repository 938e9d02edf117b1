"""The table every node derives from the final roster alike: seats, computer regulars, target.

The host's lobby ends with a final :class:`~p2p8s.wire.Roster` that every node echoed
(its digest is the seed); :func:`table_config` turns it into the
:class:`~p2p8s.table.TableConfig` the replicated table plays under. Pure: the same
roster and seed give the same config on every node.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from p2p8s.errors import Code, LocalError
from p2p8s.rules import default_target
from p2p8s.solo import pick_opponents
from p2p8s.table.config import HOST_SEAT, SeatInfo, TableConfig
from p2p8s.wire import MAX_NAME, Roster

#: Seconds a person has for a turn (R-TIMER).
TURN_TIMEOUT_S = 30.0


class RosterCode(Code):
    """Why a roster cannot make a table."""

    NO_HOST = "roster-no-host"  #: no entry at seat 0


@dataclass(frozen=True, slots=True, kw_only=True)
class Regular:
    """A computer player for an empty seat: its ``name`` and the ``personality`` it plays
    like (a bot of :mod:`p2p8s.bots.registry`)."""

    name: str
    personality: str


def computer_seats(seed: bytes, count: int, taken: Sequence[str]) -> list[Regular]:
    """``count`` computer players for the empty seats, chosen by ``seed`` (so every node
    picks the same), with names unlike the people's ``taken`` (case-insensitive; a
    clash gets ``" 2"``, ``" 3"``… within :data:`~p2p8s.wire.MAX_NAME`).

    >>> computer_seats(bytes(32), 2, ["Karl"])[0].personality in ("Hanna", "Karl", "Vera", "Max")
    True
    """
    names, styles = pick_opponents(int.from_bytes(seed[:8], "big"), count)
    used = {n.lower() for n in taken}
    out = []
    for name, style in zip(names, styles, strict=True):
        unique, n = name, 2
        while unique.lower() in used:
            unique = f"{name} {n}"[:MAX_NAME]
            n += 1
        used.add(unique.lower())
        out.append(Regular(name=unique, personality=style))
    return out


def table_config(roster: Roster, *, table: bytes, seed: bytes,
                 turn_timeout_s: float = TURN_TIMEOUT_S) -> TableConfig:
    """The table configuration of the final ``roster`` of table ``table`` (8-byte id),
    ``seed`` = the roster digest every node echoed.

    Seat ``s`` is the person seated there, or a computer regular (its key is the host's:
    the host's node runs it, :data:`~p2p8s.table.HOST_SEAT`). Target: the roster's
    rules, else the friends' default (R-TARGET-TABLE). ``turn_timeout_s`` must be the
    same on every node (tests shorten it). Raises LocalError for a roster without a host.
    """
    host = roster.entry(HOST_SEAT)
    if host is None:
        raise LocalError(RosterCode.NO_HOST, seat=HOST_SEAT)
    empty = [s for s in range(roster.size) if roster.entry(s) is None]
    computers = iter(computer_seats(seed, len(empty), [e.name for e in roster.seats]))
    seats = []
    for s in range(roster.size):
        entry = roster.entry(s)
        if entry is not None:
            seats.append(SeatInfo(seat=s, name=entry.name, key=entry.key, computer=None))
        else:
            regular = next(computers)
            seats.append(SeatInfo(seat=s, name=regular.name, key=host.key,
                                  computer=regular.personality))
    target = default_target(roster.rules, roster.size, solo=False)
    return TableConfig(table=table, rules=roster.rules, target=target, seats=tuple(seats),
                       turn_timeout_s=turn_timeout_s, escrow=roster.escrow)
