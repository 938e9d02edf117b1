"""A node that lost its table catches up from its peers' logs; this node's table log file.

A restarted node (``Mesh.rejoined``), or one whose table is void
(:class:`~p2p8s.table.linkout.Rebuild`), asks every connected peer for its log (a
``sync`` with ``restarted``) and rebuilds its table with :meth:`Table.restore` — off the
event loop — from the first complete answer that checks out (protocol/table.md, "The
runner's part" → "Restart"). Every node appends the signed game frames to a table log
(:mod:`p2p8s.store.tablelog`), one file per table, seat and match: a rebuilt or
restarted node continues its file with the frames it was rebuilt from that the file does
not hold yet, after a mark that names the frames of a void table the log it was rebuilt
from lacks (a new file only when there is none or it is damaged).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from p2p8s.errors import MalformedInput, Note, RemoteError
from p2p8s.net.lobby import Mesh
from p2p8s.net.node import Connected, Connection, Incoming, Lost, NetEvent
from p2p8s.net.redial import Redial
from p2p8s.store.tablelog import (
    CorruptLog,
    TableLogWriter,
    find_logs,
    forget_secret,
    going_on,
    log_path,
    read_log,
    table_secret,
)
from p2p8s.table import Table, TableConfig
from p2p8s.table.actions import CRYPTO
from p2p8s.table.linkout import (
    LinkCode,
    LogFailure,
    PeerLost,
    RoundLogged,
    TableFailed,
    note,
)
from p2p8s.table.logverify import records_from_frames
from p2p8s.table.sync import LOG_PART, LogAnswer, Sync
from p2p8s.wire import Game, Role


@dataclass(slots=True)
class Restored:
    """A table rebuilt from a peer's log: the ``frames`` it was rebuilt from, the other
    peers' ``answers`` still owed (partial or not begun; their further parts come to its
    link), what to tell."""

    table: Table
    frames: list[bytes]
    answers: dict[int, LogAnswer]
    notes: list[Note]


async def restore(mesh: Mesh, config: TableConfig, notes: Sequence[Note], *,
                  timeout_s: float, key_secret: bytes | None = None,
                  own: Sequence[bytes] | None = None, redial: Redial | None = None,
                  tell: Callable[[Note], None] | None = None) -> Restored:
    """Ask every connected peer of ``mesh`` for its log, rebuild the table from the first
    complete answer that checks out (``notes`` and the answer's are told with its first
    events), and put every other event back for the runner (in order). ``own``: the
    signed frames of this node's own log of the match (:func:`own_frames`; None: none
    that reads): with ``key_secret`` the table takes its seats back from them if they
    were not taken over (:meth:`Table.restore`), and the frames it is rebuilt from are
    the answer's, then its own the answer lacks.

    A node of the table that connects meanwhile is asked too. ``redial`` (closed on
    return) dials every other seat not reached — at the start, and again whenever the
    connection of one asked ends before its answer — by mDNS and the last addresses
    (:mod:`p2p8s.net.redial`), with no deadline while no node is reached: a person
    whose Wi-Fi is down for a while is not thrown out; ``tell`` says so
    (:attr:`LinkCode.NOBODY_REACHABLE` with ``restoring``: only Ctrl-C leaves now; once
    each time every node asked is lost). ``timeout_s`` counts only while a node is
    reached (from the last ask): raises :class:`PeerLost` (``no-log``) when the nodes
    reached do not answer within it, :class:`TableFailed` when no answer checks out."""
    mine: list[tuple[int, bytes]] | None = None
    if own is not None:
        try:  # its own log: every signature checked too (off the loop)
            mine = await asyncio.to_thread(records_from_frames, config, own, me=mesh.seat)
        except RemoteError as exc:  # a damaged own log: the restart hands its keys over
            notes = [*notes, note(LinkCode.OWN_LOG_UNREAD, error=exc)]
            own = None
    for peer, conn in mesh.peers.items():
        _ask(mesh, peer, conn)
    loop = asyncio.get_running_loop()
    held: list[NetEvent] = []
    answers: dict[int, LogAnswer] = {}
    failures: list[LogFailure] = []
    waiting = set(mesh.peers)
    asked = set(waiting)
    #: when the nodes reached must have answered (None: none reached, none failed; a
    #: node asked that answers has it set)
    deadline: float | None = loop.time() + timeout_s if waiting else None
    alone = False
    if redial is not None:  # a restarted node dials everyone ("Who dials")
        for entry in mesh.roster.seats:
            if entry.seat != mesh.seat and entry.seat not in waiting:
                redial.start(entry.seat)
    try:
        while deadline is None or loop.time() < deadline:
            if not waiting and not failures and not alone and tell is not None:
                alone = True  # said once, until a node is reached again
                tell(note(LinkCode.NOBODY_REACHABLE, restoring=True))
            # every peer asked may be lost (they closed the connections of a node that
            # did not run, or its own link is down): it waits for the next one to
            # connect, not the first to fail
            try:
                event = await mesh.next_event(
                    None if deadline is None else max(0.0, deadline - loop.time()))
            except TimeoutError:
                break
            if (isinstance(event, Lost) and event.peer.seat is not None
                    and mesh.peers.get(event.peer.seat) is event.peer):
                waiting.discard(event.peer.seat)
                answers.pop(event.peer.seat, None)
                if not waiting and not failures:
                    deadline = None  # nobody reached: no deadline while it tries
                if redial is not None and event.peer.seat not in {f.seat for f in failures}:
                    redial.start(event.peer.seat)
            if isinstance(event, Connected) and (seat := _asked_anew(
                    mesh, event.peer, {f.seat for f in failures})) is not None:
                waiting.add(seat)
                asked.add(seat)
                answers.pop(seat, None)
                deadline, alone = loop.time() + timeout_s, False
                if redial is not None:
                    redial.stop(seat)
                    redial.note(seat, event.peer)
            body = event.received.message.body if isinstance(event, Incoming) else None
            seat = event.received.message.seat if isinstance(event, Incoming) else None
            if (not isinstance(body, Game) or body.payload[:1] != bytes([LOG_PART])
                    or seat is None or seat not in waiting
                    or mesh.peers.get(seat) is not event.peer):
                held.append(event)
                continue
            try:
                frames = answers.setdefault(seat, LogAnswer()).add(body.payload[1:])
                if frames is None:
                    continue
                waiting.discard(seat)
                records = await asyncio.to_thread(records_from_frames, config, frames,
                                                  me=mesh.seat)
                table = await asyncio.to_thread(
                    Table.restore, config, me=mesh.seat, records=records, rand=os.urandom,
                    seed=mesh.digest, now=loop.time(), sign=mesh.node.identity.sign,
                    key_secret=key_secret, own=mine)
            except (MalformedInput, RemoteError) as exc:
                failures.append(LogFailure(seat=seat, name=config.names[seat], error=exc))
                continue
            if table.failed is not None:
                failures.append(LogFailure(seat=seat, name=config.names[seat],
                                           fault=table.failed))
                continue
            mesh.early[:0] = held
            # the answers still owed (partial or not begun): a peer whose connection
            # ends before its answer is complete is asked again on the next (the link)
            bad = {f.seat for f in failures}
            answers = {s: answers.get(s, LogAnswer()) for s in asked
                       if s != seat and s not in bad}
            got = note(LinkCode.GOT_LOG, seat=seat, frames=len(frames))
            if table.resumed and own is not None:  # its own frames the answer lacked
                frames = [*frames, *_lacked(config, mesh.seat, frames, own)]
            return Restored(table=table, frames=frames, answers=answers,
                            notes=[*notes, got])
    finally:
        if redial is not None:
            redial.close()
    mesh.early[:0] = held
    if failures:
        raise TableFailed(LinkCode.REBUILD_FAILED, failures=failures)
    raise PeerLost(LinkCode.NO_LOG, seat=mesh.seat)


def _ask(mesh: Mesh, seat: int, conn: Connection) -> None:
    """Ask ``seat``'s node on ``conn`` for its log (a ``sync`` with ``restarted``)."""
    mesh.node.send(conn, Game(to=seat, payload=Sync(received=0, posted=0,
                                                    restarted=True).payload()))


def _asked_anew(mesh: Mesh, conn: Connection, failed: set[int]) -> int | None:
    """A node connected while this one waits for a log: a seated player's (not one
    joining again with ``p2p8s join``, which needs the roster first: the runner sends
    it) becomes its connection in use, and is asked for its log; its seat, or None."""
    seat = mesh.roster.seat_of(conn.key)
    if (seat is None or seat == mesh.seat or seat in failed or conn.closed
            or conn.hello.role is Role.JOIN):
        return None
    conn.set_seat(seat)
    mesh.peers[seat] = conn  # the runner finds it in use (its ``connected`` is held)
    _ask(mesh, seat, conn)
    return seat


def own_frames(mesh: Mesh, log_dir: Path | None) -> tuple[list[bytes] | None, Note | None]:
    """The signed frames of this node's own log of the match (the newest file of this
    table and seat whose header names this match's roster digest; a torn last record —
    a crash mid-write, so never sent — is left out), or None and a note saying why
    (no such file, or it does not read: the restart then hands the keys over)."""
    error: Exception | None = None
    for path in reversed(find_logs(mesh.node.table, mesh.seat, directory=log_dir)):
        try:
            log = read_log(path)
        except CorruptLog as exc:
            error = exc
            continue
        if log.header.get("seed") == mesh.digest.hex() and log.header.get("me") == mesh.seat:
            return list(log.frames), None
    return None, note(LinkCode.OWN_LOG_UNREAD, error=error)


def _lacked(config: TableConfig, me: int, frames: Sequence[bytes],
            own: Sequence[bytes]) -> list[bytes]:
    """This node's own crypto frames among ``own`` that ``frames`` lack, in order."""
    held = set(frames)
    return [f for f in own if f not in held
            and [(s, p[:1]) for s, p in records_from_frames(config, [f], me=me)]
            == [(me, bytes([CRYPTO]))]]


def key_secret(mesh: Mesh, *, write_log: bool, log_dir: Path | None,
               fresh: bool = False) -> bytes | None:
    """The per-match secret this node's round secrets derive from (keys, nonces, box
    secrets: a restarted node recomputes them, protocol/table.md "Coming back"), kept
    beside the table log; None when no log is written. ``fresh``: a new match (not a
    restart or rebuild) — a secret left over from an earlier match at the same code is
    replaced first, so no two matches share one (issue #13): the derived nonces, and so
    the round ids and keys, are then new even if the others replay every byte; None if
    the old one cannot be removed. Raises CorruptSecret (MalformedInput) for a damaged
    file."""
    if not write_log:
        return None
    if fresh:
        try:
            forget_secret(mesh.node.table, mesh.seat, log_dir)
        except OSError:
            return None  # no derived secrets: the round secrets are drawn as without a log
    return table_secret(mesh.node.table, mesh.seat, log_dir)


def log_header(config: TableConfig, mesh: Mesh) -> dict[str, Any]:
    """The header record of this node's table log (JSON): table, seats, rules, target."""
    return {
        "format": 1,
        "table": config.table.hex(),
        "seed": mesh.digest.hex(),
        "me": mesh.seat,
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "rules": mesh.roster.rules.to_dict(),
        "target": config.target,
        "turn_timeout_s": config.turn_timeout_s,
        "seats": [{"seat": s.seat, "name": s.name, "key": s.key.hex(),
                   "computer": s.computer} for s in config.seats],
    }


def new_log(mesh: Mesh, config: TableConfig, log_dir: Path | None, frames: Sequence[bytes],
            *, rejoined: bool) -> TableLogWriter:
    """This node's table log in ``log_dir`` (None: the user data directory), with
    ``frames`` in it. ``rejoined`` (a restarted or rebuilt node): the newest readable
    file of this table, seat and match is continued — a ``{"rejoined": true}`` mark, then
    the frames it lacks, so that the file's frames are ``frames`` in their order (those it
    holds out of that order are named ``"moved"`` and written again). Frames it holds that
    are not among ``frames`` (the log the
    table is rebuilt from: this node's moves of a void table, and what only it got) are
    named in that mark (``"rebuilt": true, "void": [id, …]``,
    :meth:`~p2p8s.store.tablelog.TableLogWriter.void`): kept for the record, not the
    table's. Without such a file a new one is made, its header saying ``rejoined``.
    Raises OSError if no file can be written."""
    header = log_header(config, mesh)
    if rejoined:
        for path in reversed(find_logs(mesh.node.table, mesh.seat, directory=log_dir)):
            try:
                held = read_log(path).frames
                log = TableLogWriter.resume(path, header)
            except (CorruptLog, OSError):
                continue
            void, moved = going_on(held, frames)
            log.void(void, {"rejoined": True, "at": header["started"]}, moved=moved)
            for frame in frames:
                log.append(frame)
            return log
        header["rejoined"] = True
    log = TableLogWriter.create(log_path(mesh.node.table, mesh.seat, directory=log_dir),
                                header)
    for frame in frames:
        log.append(frame)
    return log


def mark_round(log: TableLogWriter, out: RoundLogged) -> None:
    """Mark the end of a round in ``log`` (fsynced): its number, the audit verdict, the
    transcript hash (or ``replayed``: a round taken from a peer's log) and the totals."""
    mark: dict[str, Any] = {"round_over": out.number, "audit_ok": out.audit_ok}
    if out.transcript is None:
        mark["replayed"] = True
    else:
        mark["transcript"] = out.transcript.hex()
    log.mark({**mark, "totals": list(out.totals)})
