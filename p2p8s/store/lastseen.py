"""Where the other nodes of a table listened the last time this node played at it.

A node in play remembers, per table, each seat's addresses as it learnt them (the
roster's, then each connection's address and ``hello`` port, then those its peers
reported in a runner ``where``), so that ``p2p8s join
CODE`` run again without mDNS (multicast blocked) can still find the table: it tries
these before giving up (protocol/table.md, "Coming back"). One small JSON file per
table beside the table logs: ``<table id hex>.where.json``, ``{"seats": {"<seat>":
[[host, port], …]}}``, newest address first; written atomically. Once this node saw
the match end, ``"ended": {"log": "<its log path>"}`` says so: a ``join`` of that table
again has nobody to look for (:func:`ended_at`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from p2p8s.store.paths import atomic_write
from p2p8s.store.tablelog import tables_dir

#: The suffix of a table's last-addresses file.
WHERE_SUFFIX = ".where.json"

Address = tuple[str, int]


def where_path(table: bytes, *, directory: Path | None = None) -> Path:
    """The last-addresses file of ``table`` (id bytes)."""
    return (directory or tables_dir()) / f"{table.hex()}{WHERE_SUFFIX}"


def save_where(table: bytes, where: Mapping[int, Sequence[Address]], *,
               directory: Path | None = None) -> None:
    """Keep ``where`` (seat → addresses, newest first) for ``table``. Raises OSError if
    the disk refuses."""
    _write(table, where, {}, directory=directory)


def _write(table: bytes, where: Mapping[int, Sequence[Address]], extra: Mapping[str, Any],
           *, directory: Path | None) -> None:
    seats = {str(seat): [[host, port] for host, port in addrs]
             for seat, addrs in sorted(where.items()) if addrs}
    atomic_write(where_path(table, directory=directory),
                 json.dumps({"seats": seats, **extra}, sort_keys=True))


def mark_ended(table: bytes, log: Path | None, *, directory: Path | None = None) -> None:
    """Note that the match of ``table`` ended here (``log``: this node's log of it), the
    addresses kept as they are. Raises OSError if the disk refuses."""
    _write(table, load_where(table, directory=directory),
           {"ended": {"log": str(log) if log is not None else None}}, directory=directory)


def ended_at(table: bytes, *, directory: Path | None = None) -> Path | bool:
    """Whether this node saw the match of ``table`` end (:func:`mark_ended`): the path of
    its log of it, True when none was written, False when it did not (or the file is
    unreadable or damaged: it is only a hint).

    >>> ended_at(bytes(16), directory=Path("/nonexistent"))
    False
    """
    try:
        ended = json.loads(where_path(table, directory=directory).read_text("utf-8"))["ended"]
        log = ended["log"]
        return Path(log) if isinstance(log, str) else True
    except (OSError, ValueError, TypeError, KeyError):
        return False


def load_where(table: bytes, *, directory: Path | None = None) -> dict[int, list[Address]]:
    """The addresses kept for ``table`` (seat → addresses, newest first); empty when
    there are none, or the file is unreadable or damaged (it is only a hint).

    >>> load_where(bytes(16), directory=Path("/nonexistent"))
    {}
    """
    try:
        data = json.loads(where_path(table, directory=directory).read_text("utf-8"))
        seats = data["seats"]
        return {int(seat): [(str(host), int(port)) for host, port in addrs]
                for seat, addrs in seats.items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}


def last_addresses(table: bytes, *, directory: Path | None = None) -> list[Address]:
    """Every address kept for ``table``, the host's (seat 0) first, without repeats."""
    out: list[Address] = []
    for _, addrs in sorted(load_where(table, directory=directory).items()):
        out.extend(a for a in addrs if a not in out)
    return out
