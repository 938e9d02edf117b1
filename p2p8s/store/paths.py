"""Where p2p8s keeps its files, and how it writes them safely.

Settings live in the user config directory, saves in the user data directory
(platformdirs: ``$XDG_CONFIG_HOME/p2p8s`` and ``$XDG_DATA_HOME/p2p8s`` on Linux).
:func:`atomic_write` writes a temp file beside the target, fsyncs it and renames it
over the target, so a crash leaves either the old file or the new one, never half.

The errors of this package carry a :class:`StoreCode` and data (paths, the OS's own
words); the CLI says them (``p2p8s.cli.words.store``).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from pathlib import Path

import platformdirs

from p2p8s.errors import Code, LocalError

APP = "p2p8s"


class StoreCode(Code):
    """What went wrong with a file of p2p8s (params follow the name; ``path`` is the
    file, ``problem`` an :class:`OsFailure`, ``cause`` the error that made a file
    unusable)."""

    # an OS error, as data (OsFailure)
    OS = "os"  # text (the OS's words, no errno)
    FILE_IN_THE_WAY = "file-in-the-way"  # blocker (a file where a directory should be)
    # the solo save
    SAVE_UNREADABLE = "save-unreadable"  # path, problem
    SAVE_NOT_JSON = "save-not-json"  # path
    SAVE_NOT_OURS = "save-not-ours"  # path
    SAVE_VERSION = "save-version"  # path, version (as found), ours
    SAVE_DAMAGED = "save-damaged"  # path, cause
    SAVE_FAILED = "save-failed"  # path, problem
    # the settings file
    SETTINGS_UNREADABLE = "settings-unreadable"  # path, problem
    #: path, moved; where it stops being JSON: line and column, or text=False (not
    #: UTF-8); neither: valid JSON but not an object
    SETTINGS_DAMAGED = "settings-damaged"
    SETTINGS_STUCK = "settings-stuck"  # path, problem (moving it aside failed); as above
    # the identity key
    IDENTITY_UNWRITABLE = "identity-unwritable"  # path, problem
    IDENTITY_UNREADABLE = "identity-unreadable"  # path, problem
    NOT_AN_IDENTITY = "not-an-identity"  # path
    # table logs and table secrets
    LOG_UNREADABLE = "log-unreadable"  # name, problem
    NOT_A_LOG = "not-a-log"  # name, magic
    LOG_LENGTH = "log-length"  # name, at (byte offset), length
    LOG_RECORD = "log-record"  # name, kind, at
    NO_HEADER = "no-header"  # name
    RECORD_NOT_JSON = "record-not-json"  # name, what (header or note), at
    RECORD_NOT_OBJECT = "record-not-object"  # name, what, at
    LOG_OTHER_MATCH = "log-other-match"  # name (a log of another table, seat or match)
    NOT_A_SECRET = "not-a-secret"  # path, size, expected
    # the lock of one identity at one table (p2p8s.store.tablelock)
    LOCK_UNWRITABLE = "lock-unwritable"  # path, problem
    LOCK_VANISHES = "lock-vanishes"  # path (removed under this process at each attempt)


class OsFailure(LocalError):
    """An :class:`OSError` as data, to be said inside another message (not raised):
    the OS's own words (:attr:`StoreCode.OS`, without the errno), or the file that
    stands where a directory should be (:attr:`StoreCode.FILE_IN_THE_WAY`)."""


def os_failure(exc: OSError) -> OsFailure:
    """What went wrong in ``exc``, without the errno: which part of the path is a file
    where a directory should be, or the OS's words.

    >>> os_failure(PermissionError(13, "Permission denied")).params
    {'text': 'Permission denied'}
    """
    if isinstance(exc, NotADirectoryError) and exc.filename:
        for parent in Path(exc.filename).parents:
            if parent.is_file():
                return OsFailure(StoreCode.FILE_IN_THE_WAY, blocker=parent)
    return OsFailure(StoreCode.OS, text=exc.strerror or str(exc))


def config_dir() -> Path:
    """The user config directory of p2p8s (not created)."""
    return Path(platformdirs.user_config_dir(APP, appauthor=False))


def data_dir() -> Path:
    """The user data directory of p2p8s (not created)."""
    return Path(platformdirs.user_data_dir(APP, appauthor=False))


def settings_path() -> Path:
    """The settings and profile file."""
    return config_dir() / "settings.json"


def solo_save_path() -> Path:
    """The saved solo match."""
    return data_dir() / "solo" / "match.json"


def atomic_write(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8) atomically: temp file, fsync, rename.

    Creates the parent directory. Raises OSError if the disk refuses.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. Windows cannot open directories
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def move_aside(path: Path, reason: str) -> Path:
    """Rename ``path`` to ``<name>.<reason>-<UTC time>[-n]<suffix>`` beside it and return
    the new path; never overwrites an existing file."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    for n in range(1000):
        extra = f"-{n}" if n else ""
        target = path.with_name(f"{path.stem}.{reason}-{stamp}{extra}{path.suffix}")
        if not target.exists():
            os.replace(path, target)
            return target
    raise OSError(f"cannot find a free name to move {path} aside")  # pragma: no cover
