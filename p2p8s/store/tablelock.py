"""One process per identity and table on this machine: an exclusive lock on a file
beside the table logs (``<data dir>/tables/<H(identity key ‖ table)[:8] hex>.lock``).

``p2p8s join`` and ``host`` take it before they touch a table log or dial anyone, and
hold it until the process ends; a second terminal of the same player (same store,
same identity) at the same table finds it held and stops at once, touching nothing —
two processes of one seat would replace each other's connection and write the same
log (issue #14). The lock is the OS's (``fcntl.flock`` on POSIX, ``msvcrt.locking`` on
Windows): a process that dies, however it dies, releases it. The file holds only the
holder's process id, to name it.

A released lock's file is removed, and so are the files no live process holds (of a
process that died, of ended matches: :func:`clear_stale`), the way ``flock`` files are
safely removed: only by a process that holds the lock, and a lock taken counts only if
the file it was taken on is still the one at the path (another process may have removed
it between the open and the lock: then it is opened again). So a file is never removed
while a live process holds it, and two processes never both hold one lock. On Windows
an open file cannot be removed: a released one is removed after it is closed, if no
other process has opened it meanwhile.

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

__all__ = ["HeldElsewhere", "TableLock", "clear_stale", "lock_path", "lock_table"]

#: How the lock files end (the tables directory also holds logs and secrets).
SUFFIX = ".lock"
#: Times a lock is taken again when its file was removed under it (by a process that
#: released it or cleared it as stale) before giving up.
ATTEMPTS = 16

if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    #: Windows removes no open file: a file is removed once closed (if nobody opened it).
    UNLINK_HELD = False

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
else:
    import fcntl

    UNLINK_HELD = True

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True


def _still_there(path: Path, fd: int) -> bool:
    """Whether the file open as ``fd`` is still the one at ``path`` (not removed, nor
    replaced by a new one, since it was opened)."""
    try:
        here, held = os.stat(path), os.fstat(fd)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (held.st_dev, held.st_ino)


def _remove(path: Path, fd: int) -> None:
    """Remove the lock file at ``path`` whose lock this process holds on ``fd``, and
    close ``fd`` (the lock goes with it)."""
    if UNLINK_HELD:
        with contextlib.suppress(OSError):  # (removed already: nothing to do)
            path.unlink()
        os.close(fd)
    else:  # pragma: no cover - Windows: fails while another process has it open
        os.close(fd)
        with contextlib.suppress(OSError):
            path.unlink()


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
        """Let the lock go and remove its file (still holding it: nobody else does);
        idempotent."""
        if self._fd is not None:
            _remove(self.path, self._fd)
            self._fd = None


def lock_path(identity_key: bytes, table: bytes, *, directory: Path | None = None) -> Path:
    """The lock file of identity ``identity_key`` (32 bytes) at ``table`` (any bytes
    naming the table: its id, or the hash of its code a joiner has before the
    handshake): ``H("p2p8s/v3/lock" ‖ key ‖ table)[:8]`` in hex, ``.lock``."""
    name = hashlib.sha256(b"p2p8s/v3/lock" + identity_key + table).hexdigest()[:16]
    return (directory or tables_dir()) / f"{name}{SUFFIX}"


def lock_table(identity_key: bytes, table: bytes, *, directory: Path | None = None
               ) -> TableLock | HeldElsewhere:
    """Take the lock of ``identity_key`` at ``table`` without waiting: the
    :class:`TableLock` (keep it for the life of the process), or who holds it
    (:class:`HeldElsewhere`). Raises :class:`~p2p8s.errors.LocalError`
    (``lock-unwritable``: ``path``, ``problem``) when the file cannot be opened,
    (``lock-vanishes``: ``path``) when it was removed under this process at each of
    :data:`ATTEMPTS` attempts."""
    path = lock_path(identity_key, table, directory=directory)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LocalError(StoreCode.LOCK_UNWRITABLE, path=str(path),
                         problem=os_failure(exc)) from None
    for _ in range(ATTEMPTS):
        held = _take(path, _open(path))
        if held is not None:
            return held
    raise LocalError(StoreCode.LOCK_VANISHES, path=str(path))


def _open(path: Path) -> int:
    """Open (or make) the lock file at ``path``; raises ``lock-unwritable``."""
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise LocalError(StoreCode.LOCK_UNWRITABLE, path=str(path),
                         problem=os_failure(exc)) from None


def _take(path: Path, fd: int) -> TableLock | HeldElsewhere | None:
    """Lock ``fd`` (the file at ``path``, opened before): the lock, who holds it, or
    None when the file was removed or replaced meanwhile (open it again). ``fd`` is
    closed unless it is the lock's."""
    if not _try_lock(fd):
        text = ""
        with contextlib.suppress(OSError):  # the holder's id names it, if it can be read
            text = os.read(fd, 32).decode("ascii", "replace").strip()
        os.close(fd)
        return HeldElsewhere(path=path, pid=int(text) if text.isdigit() else None)
    if UNLINK_HELD and not _still_there(path, fd):
        os.close(fd)  # a lock on a removed file keeps nobody out
        return None
    with contextlib.suppress(OSError):  # only to name the holder
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, f"{os.getpid()}\n".encode())
    return TableLock(path, fd)


def clear_stale(directory: Path | None = None) -> int:
    """Remove the lock files in ``directory`` (default: the tables directory) that no
    live process holds — of processes that ended, so of matches they ended or left —
    each only once its lock is taken here (so never one another process holds). Returns
    how many were removed; a file that cannot be opened or removed is left."""
    removed = 0
    with contextlib.suppress(OSError):
        for path in (directory or tables_dir()).glob("*" + SUFFIX):
            try:
                fd = os.open(path, os.O_RDWR)
            except OSError:
                continue
            taken = _take(path, fd)
            if isinstance(taken, TableLock):
                taken.release()
                removed += 1
    return removed
