"""The saved solo match: one JSON file, rewritten atomically after every action.

The file holds a format tag, a version, the session record of
:meth:`p2p8s.solo.SoloSession.to_record` (settings, seed, names, every applied action,
the state digest) and a small ``ui`` object (e.g. what the coach has explained).
Loading replays the actions through the engine and checks the digest; a file that
cannot be used raises :class:`CorruptSave` and is never overwritten silently — the
caller moves it aside with :func:`set_aside`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from p2p8s.errors import Code, LocalError, MalformedInput
from p2p8s.solo import SoloSession
from p2p8s.store.paths import StoreCode, atomic_write, move_aside, os_failure, solo_save_path

FORMAT = "p2p8s-solo-save"
VERSION = 1


class CorruptSave(LocalError):
    """The saved match at ``path`` cannot be resumed (damaged, or from another version);
    ``code`` is a :class:`~p2p8s.store.paths.StoreCode` and ``path`` is in ``params``."""

    def __init__(self, code: Code, /, *, path: Path, **params: Any) -> None:
        super().__init__(code, path=path, **params)
        self.path = path


class SaveFailed(LocalError):
    """The match could not be saved (the disk refused)."""


@dataclass(slots=True)
class Loaded:
    """A resumed session and the ``ui`` data saved with it."""

    session: SoloSession
    ui: dict[str, Any] = field(default_factory=dict)


def save_match(session: SoloSession, ui: Mapping[str, Any] | None = None,
               path: Path | None = None) -> Path:
    """Write ``session`` atomically (default path: :func:`solo_save_path`); returns it.

    Raises :class:`SaveFailed` if the file cannot be written.
    """
    target = path or solo_save_path()
    doc = {"format": FORMAT, "version": VERSION, **session.to_record(), "ui": dict(ui or {})}
    try:
        atomic_write(target, json.dumps(doc, separators=(",", ":")) + "\n")
    except OSError as exc:
        raise SaveFailed(StoreCode.SAVE_FAILED, path=target, problem=os_failure(exc)) from None
    return target


def load_match(path: Path | None = None) -> Loaded | None:
    """Load and replay the saved match; ``None`` if there is none.

    Raises :class:`CorruptSave` for a damaged file, an unknown format or version, an
    illegal action or a digest mismatch.
    """
    source = path or solo_save_path()
    try:
        text = source.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise CorruptSave(StoreCode.SAVE_UNREADABLE, path=source,
                          problem=os_failure(exc)) from None
    except UnicodeDecodeError:
        raise CorruptSave(StoreCode.SAVE_NOT_JSON, path=source) from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        raise CorruptSave(StoreCode.SAVE_NOT_JSON, path=source) from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise CorruptSave(StoreCode.SAVE_NOT_OURS, path=source)
    version = doc.get("version")
    if version != VERSION:
        raise CorruptSave(StoreCode.SAVE_VERSION, path=source, version=version, ours=VERSION)
    try:
        session = SoloSession.from_record(doc)
    except MalformedInput as exc:
        raise CorruptSave(StoreCode.SAVE_DAMAGED, path=source, cause=exc) from None
    ui = doc.get("ui")
    return Loaded(session, dict(ui) if isinstance(ui, dict) else {})


def set_aside(path: Path) -> Path:
    """Move an unusable save out of the way (never deleted); returns its new path."""
    return move_aside(path, "unusable")


def delete_match(path: Path | None = None) -> None:
    """Remove the save of a finished match (no error if there is none)."""
    (path or solo_save_path()).unlink(missing_ok=True)
