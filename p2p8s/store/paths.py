"""Where p2p8s keeps its files, and how it writes them safely.

Settings live in the user config directory, saves in the user data directory
(platformdirs: ``$XDG_CONFIG_HOME/p2p8s`` and ``$XDG_DATA_HOME/p2p8s`` on Linux).
:func:`atomic_write` writes a temp file beside the target, fsyncs it and renames it
over the target, so a crash leaves either the old file or the new one, never half.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from pathlib import Path

import platformdirs

APP = "p2p8s"


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
