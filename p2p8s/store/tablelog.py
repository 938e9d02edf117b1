"""The table log on disk: every signed game frame a node sent or received, in order.

One file per node, table and match, under the user data directory
(``<data dir>/tables/<YYYY-MM-DD>-<table id hex>-seat<n>.p2p8slog``), append-only::

    file   = MAGIC ‖ record*
    record = u32 length (big-endian, 1 <= length <= MAX_RECORD) ‖ u8 kind ‖ data

``length`` counts the kind byte and the data. The first record is the header
(:data:`HEADER`, UTF-8 JSON: format version, table id, date, this node's seat, the
roster and the table configuration); every further record is one frame
(:data:`FRAME`): the exact signed frame body of a ``game`` message (protocol/wire.md,
"Frames", without the 4-byte length prefix), as it was sent or received. A
:data:`MARK` record (UTF-8 JSON) notes a round end for people reading the file.

The writer flushes every record to the operating system as it goes and fsyncs at each
round end and on close, so a crash loses at most the moves since the last round end
(a torn final record is detected and reported, not mistaken for data). A frame is
written once: the writer skips a frame it already holds (same bytes), and a node that
comes back to a table (a restart, a rebuild) continues its file
(:meth:`TableLogWriter.resume`, after cutting a torn tail) with a ``{"rejoined": true}``
mark, rather than starting another. A node whose table was void (its own moves the
others never got: it rebuilt from their log) continues it too: a ``{"rebuilt": true,
"void": [frame id, …]}`` mark (:meth:`TableLogWriter.void`) names the frames before it
that the table it goes on with does not hold (their SHA-256, hex); they stay in the file
for anyone to read (:attr:`TableLog.void`) but are not the table's frames
(:attr:`TableLog.frames`), so the audit does not count them. The frames it holds that
the table it goes on with took in another order are named in the mark's ``"moved"`` and
written again after it, so the file's frames are in the order that table took them in
(the audit replays them as the live node did). Older versions wrote a
``-2``, ``-3``… file instead; those still read.

Reading is strict by default (:class:`CorruptLog` for any damage); with ``salvage`` the
records before the first damage after the header are returned, with the damage.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "t.p2p8slog"
>>> with TableLogWriter.create(path, {"table": "00"}) as log:
...     log.append(b"frame-1")
>>> read_log(path).frames
(b'frame-1',)
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO

from p2p8s.errors import MalformedInput
from p2p8s.store.paths import StoreCode, _fsync_dir, data_dir, os_failure

#: The first bytes of every table log (format version 1).
MAGIC = b"p2p8s-table-log/1\n"
HEADER = 1
FRAME = 2
MARK = 3
#: Largest record in bytes (a wire frame is at most 64 KiB; headers are small).
MAX_RECORD = 1 << 20
#: File name suffix of table logs.
SUFFIX = ".p2p8slog"
#: File name suffix and length of per-table secrets (:func:`table_secret`).
SECRET_SUFFIX = ".key"
SECRET_BYTES = 32


class CorruptLog(MalformedInput):
    """The file is not a readable p2p8s table log."""


@dataclass(frozen=True, slots=True)
class TableLog:
    """A table log as read back: the ``header`` (JSON object), the signed ``frames`` in
    file order, the round-end ``marks``, and whether the last record was ``torn``
    (cut short by a crash; it is left out). ``offsets[i]`` is the byte offset of frame
    ``i``'s record; ``end`` the offset where reading stopped (the file's size unless a
    tail is torn or damaged); ``damage`` what stopped a salvaging read (None: nothing);
    ``void`` the frames a ``rebuilt`` mark declared void (a void table's, kept for the
    record; not in ``frames``)."""

    header: dict[str, Any]
    frames: tuple[bytes, ...]
    marks: tuple[dict[str, Any], ...] = ()
    torn: bool = False
    offsets: tuple[int, ...] = ()
    end: int = 0
    damage: CorruptLog | None = None
    void: tuple[bytes, ...] = ()


def tables_dir() -> Path:
    """Where table logs are kept (not created)."""
    return data_dir() / "tables"


def log_path(table: bytes, seat: int, *, when: float | None = None,
              directory: Path | None = None) -> Path:
    """The log file for ``table`` (id bytes) seen from ``seat``, dated ``when`` (UTC,
    default now); a ``-2``, ``-3``… suffix keeps an existing file untouched (a new
    match at the same table id)."""
    day = time.strftime("%Y-%m-%d", time.gmtime(when))
    base = (directory or tables_dir()) / f"{day}-{table.hex()}-seat{seat}"
    path = base.with_name(base.name + SUFFIX)
    n = 2
    while path.exists():
        path = base.with_name(f"{base.name}-{n}{SUFFIX}")
        n += 1
    return path


def find_logs(table: bytes, seat: int, *, directory: Path | None = None) -> list[Path]:
    """The existing log files of ``table`` (id bytes) seen from ``seat``, any date, oldest
    first (by modification time, then name); ``[]`` when there are none."""
    folder = directory or tables_dir()
    found = [p for p in folder.glob(f"*-{table.hex()}-seat{seat}*{SUFFIX}") if p.is_file()]

    def when(path: Path) -> tuple[float, str]:
        try:
            return path.stat().st_mtime, path.name
        except OSError:
            return 0.0, path.name

    return sorted(found, key=when)


class CorruptSecret(MalformedInput):
    """A table secret file that is not 32 bytes (cut short or overwritten)."""


def secret_path(table: bytes, seat: int, *, directory: Path | None = None) -> Path:
    """The file of the per-table secret of ``seat`` at ``table`` (id bytes), beside the
    table logs: ``<table id hex>-seat<n>.key`` (no date: a restart after midnight finds
    it)."""
    return (directory or tables_dir()) / f"{table.hex()}-seat{seat}{SECRET_SUFFIX}"


def table_secret(table: bytes, seat: int, directory: Path | None = None) -> bytes:
    """This node's per-table secret for ``seat`` at ``table`` (32 bytes): the round keys
    of the seats it runs derive from it, so a restarted node can send them back
    (protocol/table.md "Coming back"). Created on the first call (random, mode 0600,
    written to a temporary file, fsynced and renamed into place), returned as-is
    afterwards. Whoever reads the file can open this node's hands of that table.
    Raises CorruptSecret for a file that is not exactly 32 bytes, OSError if the disk
    refuses."""
    path = secret_path(table, seat, directory=directory)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        pass
    else:
        if len(data) != SECRET_BYTES:
            raise CorruptSecret(StoreCode.NOT_A_SECRET, path=path, size=len(data),
                                expected=SECRET_BYTES)
        return data
    secret = os.urandom(SECRET_BYTES)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(secret)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)  # never replaces a secret another process just wrote
        except FileExistsError:
            return table_secret(table, seat, directory)
        except OSError:  # no hard links here: rename (replaces)
            os.replace(tmp, path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)
    return secret


def forget_secret(table: bytes, seat: int, directory: Path | None = None) -> bool:
    """Delete the per-table secret of ``seat`` at ``table`` once its match is over, or
    once its player left (``quit``, Ctrl-C: the keys were given up with the ``leave``),
    so no secret outlives its use and a later match with the same code starts from a
    fresh one (issue #13; the round keys also depend on the round id,
    protocol/mental-poker.md §5.2). True if a file was deleted; OSError if the disk
    refuses."""
    try:
        secret_path(table, seat, directory=directory).unlink()
    except FileNotFoundError:
        return False
    return True


def _record(kind: int, data: bytes) -> bytes:
    if len(data) + 1 > MAX_RECORD:
        raise ValueError(f"a table log record is at most {MAX_RECORD} bytes")
    return (len(data) + 1).to_bytes(4, "big") + bytes([kind]) + data


def frame_id(frame: bytes) -> bytes:
    """A frame's identity in a log: the SHA-256 of its bytes (a signed frame is unique)."""
    return hashlib.sha256(frame).digest()


class TableLogWriter:
    """Appends records to one table log; a context manager (closing fsyncs). ``frames``
    counts the frames it holds (those found by :meth:`resume` included)."""

    def __init__(self, path: Path, file: BinaryIO, held: set[bytes] | None = None) -> None:
        self.path = path
        self._file = file
        self._held = held if held is not None else set()
        self.frames = len(self._held)

    @classmethod
    def create(cls, path: Path, header: dict[str, Any]) -> TableLogWriter:
        """Create ``path`` (and its directory) with the magic and the ``header`` record.

        Raises OSError if the file cannot be created (an existing file is never reused).
        """
        path.parent.mkdir(parents=True, exist_ok=True)
        file = open(path, "xb")  # noqa: SIM115 - owned by the writer, closed in close()
        writer = cls(path, file)
        file.write(MAGIC + _record(HEADER, json.dumps(header, sort_keys=True).encode()))
        writer.sync()
        return writer

    @classmethod
    def resume(cls, path: Path, header: dict[str, Any]) -> TableLogWriter:
        """Continue the existing log ``path`` of the same table, seat and match: the
        header's ``table``, ``seed`` and ``me`` must equal ``header``'s. A torn last
        record (a crash mid-write) is cut off; the frames already there are remembered,
        so :meth:`append` skips them. Raises :class:`CorruptLog` for a file that is
        damaged or of another match (``StoreCode.LOG_OTHER_MATCH``), OSError if the disk
        refuses."""
        log = read_log(path)
        mine = {k: header.get(k) for k in ("table", "seed", "me")}
        if {k: log.header.get(k) for k in mine} != mine:
            raise CorruptLog(StoreCode.LOG_OTHER_MATCH, name=str(path))
        file = open(path, "r+b")  # noqa: SIM115 - owned by the writer, closed in close()
        try:
            file.truncate(log.end)
            file.seek(log.end)
        except OSError:
            file.close()
            raise
        return cls(path, file, {frame_id(f) for f in log.frames})

    def append(self, frame: bytes) -> bool:
        """Append one signed frame body (handed to the OS at once, fsynced by
        :meth:`sync`); False (nothing written) for a frame the log already holds."""
        ident = frame_id(frame)
        if ident in self._held:
            return False
        self._file.write(_record(FRAME, frame))
        self._file.flush()
        self._held.add(ident)
        self.frames += 1
        return True

    def mark(self, note: dict[str, Any]) -> None:
        """Append a note (e.g. a round end) and fsync."""
        self._file.write(_record(MARK, json.dumps(note, sort_keys=True).encode()))
        self.sync()

    def void(self, frames: Iterable[bytes], note: dict[str, Any], *,
             moved: Iterable[bytes] = ()) -> None:
        """Declare ``frames`` (held by this log) void from here on: a mark of ``note``
        with ``"rebuilt": true`` and ``"void"``, their ids (hex) — ``note`` alone when
        none is held. They stay in the file but no longer count as held (the same bytes
        may come again, after the mark). ``moved`` (held, not void) are the table's
        frames at a place of the log it goes on with that is not theirs here (it took
        them in another order): named in the mark's ``"moved"``, they no longer count
        at their place before it and are written again (:meth:`append`) at theirs."""
        ids = [frame_id(f) for f in frames if frame_id(f) in self._held]
        gone = set(ids)
        again = [i for i in dict.fromkeys(frame_id(f) for f in moved)
                 if i in self._held and i not in gone]
        mark = dict(note)
        if ids or again:
            mark.update({"rebuilt": True, "void": [i.hex() for i in ids]})
        if again:
            mark["moved"] = [i.hex() for i in again]
        self.mark(mark)
        self._held.difference_update(ids + again)
        self.frames -= len(ids) + len(again)

    def sync(self) -> None:
        """Flush and fsync the file (round end, close)."""
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        """fsync and close (idempotent)."""
        if not self._file.closed:
            self.sync()
            self._file.close()

    def __enter__(self) -> TableLogWriter:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def going_on(held: Sequence[bytes], frames: Sequence[bytes]
             ) -> tuple[list[bytes], list[bytes]]:
    """A log holding ``held`` (in file order) goes on with the table rebuilt from
    ``frames`` (in the order it took them in): the held frames that are void (not among
    ``frames``) and those to move (:meth:`TableLogWriter.void`) — every held frame from
    the first one out of ``frames``' order on, so that after the mark and appending
    ``frames`` the log's frames are exactly ``frames``, in order."""
    given = set(frames)
    kept = [f for f in held if f in given]
    same = next((i for i, (a, b) in enumerate(zip(kept, frames, strict=False)) if a != b),
                len(kept))
    return [f for f in held if f not in given], kept[same:]


def parse_log(data: bytes, *, name: str | None = None, salvage: bool = False) -> TableLog:
    """Parse the bytes of a table log. Raises :class:`CorruptLog` naming ``name`` (the
    file's name; None: the words say "the file"); with ``salvage``, damage after the
    header record is returned as :attr:`TableLog.damage` with the records before it
    (a file without its magic or header still raises)."""
    if not data.startswith(MAGIC):
        raise CorruptLog(StoreCode.NOT_A_LOG, name=name, magic=MAGIC.strip().decode())
    at = len(MAGIC)
    header: dict[str, Any] | None = None
    frames: list[bytes] = []
    offsets: list[int] = []
    marks: list[dict[str, Any]] = []
    void: list[bytes] = []
    torn = False
    damage: CorruptLog | None = None
    while at < len(data):
        try:
            if at + 4 > len(data):
                torn = True
                break
            length = int.from_bytes(data[at:at + 4], "big")
            if not 1 <= length <= MAX_RECORD:
                raise CorruptLog(StoreCode.LOG_LENGTH, name=name, at=at, length=length)
            if at + 4 + length > len(data):
                torn = True
                break
            kind, body = data[at + 4], data[at + 5:at + 4 + length]
            if kind == HEADER and header is None and not frames:
                header = _json(body, name, "header", at)
            elif kind == FRAME and header is not None:
                frames.append(body)
                offsets.append(at)
            elif kind == MARK and header is not None:
                marks.append(_json(body, name, "note", at))
                _void(marks[-1], frames, offsets, void)
            else:
                raise CorruptLog(StoreCode.LOG_RECORD, name=name, kind=kind, at=at)
        except CorruptLog as exc:
            if not salvage or header is None:
                raise
            damage = exc
            break
        at += 4 + length
    if header is None:
        raise CorruptLog(StoreCode.NO_HEADER, name=name)
    return TableLog(header=header, frames=tuple(frames), marks=tuple(marks), torn=torn,
                    offsets=tuple(offsets), end=at, damage=damage, void=tuple(void))


def _void(mark: dict[str, Any], frames: list[bytes], offsets: list[int],
          void: list[bytes]) -> None:
    """A ``rebuilt`` mark: move the frames it names (by id) in ``"void"`` from ``frames``
    (and their ``offsets``) to ``void``, and drop those it names in ``"moved"`` (written
    again after it, at their place in the table it goes on with). Ids that are not hex,
    or name no frame before it, are skipped (the mark is a note; the frames are what is
    signed)."""
    if mark.get("rebuilt") is not True:
        return
    ids, moved = _ids(mark.get("void")), _ids(mark.get("moved"))
    keep = [k for k, f in enumerate(frames) if frame_id(f) not in ids | moved]
    void.extend(f for f in frames if frame_id(f) in ids)
    frames[:] = [frames[k] for k in keep]
    offsets[:] = [offsets[k] for k in keep]


def _ids(named: object) -> set[bytes]:
    """The frame ids a mark names (a list of hex strings; anything else is skipped)."""
    if not isinstance(named, list):
        return set()
    return {bytes.fromhex(i) for i in named if isinstance(i, str) and _is_hex(i)}


def _is_hex(text: str) -> bool:
    try:
        bytes.fromhex(text)
    except ValueError:
        return False
    return True


def _json(body: bytes, name: str | None, what: str, at: int) -> dict[str, Any]:
    try:
        value = json.loads(body.decode())
    except (UnicodeDecodeError, ValueError):
        raise CorruptLog(StoreCode.RECORD_NOT_JSON, name=name, what=what, at=at) from None
    if not isinstance(value, dict):
        raise CorruptLog(StoreCode.RECORD_NOT_OBJECT, name=name, what=what, at=at)
    return value


def read_log(path: Path, *, salvage: bool = False) -> TableLog:
    """Read a table log file (``salvage``: see :func:`parse_log`). Raises
    :class:`CorruptLog` if it is unreadable."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CorruptLog(StoreCode.LOG_UNREADABLE, name=str(path),
                         problem=os_failure(exc)) from None
    return parse_log(data, name=str(path), salvage=salvage)
