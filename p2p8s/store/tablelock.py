"""One process per identity and table on this machine: an exclusive lock on a file
beside the table logs (``<data dir>/tables/<H(identity key ‖ table)[:8] hex>.lock``).

``p2p8s join`` and ``host`` take it before they touch a table log or dial anyone, and
hold it until the process ends; a second terminal of the same player (same store,
same identity) at the same table finds it held and stops at once, touching nothing —
two processes of one seat would replace each other's connection and write the same
log (issue #14). The lock is the OS's (``fcntl.flock`` on POSIX, ``msvcrt.locking`` on
Windows): a process that dies, however it dies, releases it; the file itself stays
(it is empty but for the holder's process id, to name it).

>>> import tempfile
>>> from pathlib import Path
>>> d = Path(tempfile.mkdtemp())
>>> first = lock_table(b"k" * 32, b"table-1", directory=d)
>>> isinstance(first, TableLock)
True
>>> first.release()
>>> isinstance(lock_table(b"k" * 32, b"table-1", directory=d), TableLock)
True
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from p2p8s.errors import LocalError
from p2p8s.store.paths import StoreCode, os_failure
from p2p8s.store.tablelog import tables_dir

__all__ = ["HeldElsewhere", "TableLock", "lock_path", "lock_table"]

if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True


@dataclass(frozen=True, slots=True)
class HeldElsewhere:
    """Another process holds the lock at ``path``: its process id ``pid`` (None when it
    has not written it yet)."""

    path: Path
    pid: int | None


class TableLock:
    """The lock this process holds (an open descriptor); :meth:`release` (or the
    process's end) lets it go."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    def release(self) -> None:
        """Let the lock go (closing the descriptor); idempotent."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def lock_path(identity_key: bytes, table: bytes, *, directory: Path | None = None) -> Path:
    """The lock file of identity ``identity_key`` (32 bytes) at ``table`` (any bytes
    naming the table: its id, or the hash of its code a joiner has before the
    handshake): ``H("p2p8s/v3/lock" ‖ key ‖ table)[:8]`` in hex, ``.lock``."""
    name = hashlib.sha256(b"p2p8s/v3/lock" + identity_key + table).hexdigest()[:16]
    return (directory or tables_dir()) / f"{name}.lock"


def lock_table(identity_key: bytes, table: bytes, *, directory: Path | None = None
               ) -> TableLock | HeldElsewhere:
    """Take the lock of ``identity_key`` at ``table`` without waiting: the
    :class:`TableLock` (keep it for the life of the process), or who holds it
    (:class:`HeldElsewhere`). Raises :class:`~p2p8s.errors.LocalError`
    (``lock-unwritable``: ``path``, ``problem``) when the file cannot be opened."""
    path = lock_path(identity_key, table, directory=directory)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise LocalError(StoreCode.LOCK_UNWRITABLE, path=str(path),
                         problem=os_failure(exc)) from None
    if not _try_lock(fd):
        text = ""
        with contextlib.suppress(OSError):  # the holder's id names it, if it can be read
            text = os.read(fd, 32).decode("ascii", "replace").strip()
        os.close(fd)
        return HeldElsewhere(path=path, pid=int(text) if text.isdigit() else None)
    with contextlib.suppress(OSError):  # only to name the holder
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, f"{os.getpid()}\n".encode())
    return TableLock(path, fd)
