"""The settings and profile file: the last ``p2p8s play`` options and what the player
has already seen (the coach runs in a player's first round ever).

The file is JSON ``{"version": 1, "play": {...}, "profile": {...}}``; keys this module
does not know are kept when it is rewritten. A damaged file (not JSON) is moved aside and
the defaults are used. A file that cannot be read at all (permissions, a file where the
directory should be…) is left alone: the defaults are used and nothing is written over
it (:attr:`SettingsFile.read_only`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from p2p8s.errors import LocalError
from p2p8s.store.paths import StoreCode, atomic_write, move_aside, os_failure, settings_path

VERSION = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class PlaySettings:
    """The remembered ``p2p8s play`` options (the seed is not remembered)."""

    opponents: int = 3
    classic: bool = False
    multi: bool = True
    draw_limit: int = 3
    countdown: bool = False
    target: int | None = None
    ascii: bool = False

    def merged(self, **changes: Any) -> PlaySettings:
        """A copy with the options that are not ``None`` in ``changes``."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    @classmethod
    def from_dict(cls, data: Any) -> PlaySettings:
        """Read what is valid in ``data``; anything else keeps its default."""
        if not isinstance(data, dict):
            return cls()
        kept: dict[str, Any] = {}
        for f in fields(cls):
            value = data.get(f.name)
            default = getattr(cls(), f.name)
            if f.name == "target":
                if value is None or (type(value) is int and value > 0):
                    kept[f.name] = value
            elif type(value) is type(default):
                kept[f.name] = value
        if not 1 <= kept.get("opponents", 3) <= 6:
            kept.pop("opponents")
        if kept.get("draw_limit", 0) < 0:
            kept.pop("draw_limit")
        return cls(**kept)


@dataclass(slots=True)
class SettingsFile:
    """The loaded file: ``play`` options, the ``coached`` flag, and any other keys."""

    play: PlaySettings
    coached: bool = False
    other: dict[str, Any] | None = None
    #: set when the file could not be used as it was: what went wrong, as data (a
    #: :class:`~p2p8s.store.paths.StoreCode` ``settings-…``; the CLI says it)
    notice: LocalError | None = None
    read_only: bool = False  #: the file could not be read: never write over it

    def save(self, path: Path | None = None) -> None:
        """Write the file atomically (default: :func:`settings_path`); does nothing when
        the file could not be read (:attr:`read_only`), so it is never lost."""
        if self.read_only:
            return
        doc = dict(self.other or {})
        profile = dict(doc.get("profile") or {}) if isinstance(doc.get("profile"), dict) else {}
        profile["coached"] = self.coached
        doc.update({"version": VERSION, "play": asdict(self.play), "profile": profile})
        atomic_write(path or settings_path(), json.dumps(doc, indent=2, sort_keys=True) + "\n")


def load_settings(path: Path | None = None) -> SettingsFile:
    """Read the settings file; defaults if it is missing. A damaged one is moved aside
    (``notice`` says where); one that cannot be read is left alone and not written over
    (``notice`` says why, :attr:`SettingsFile.read_only`)."""
    source = path or settings_path()
    try:
        data = source.read_bytes()
    except FileNotFoundError:
        return SettingsFile(PlaySettings())
    except OSError as exc:
        return SettingsFile(PlaySettings(), read_only=True, notice=LocalError(
            StoreCode.SETTINGS_UNREADABLE, path=source, problem=os_failure(exc)))
    detail: dict[str, Any] = {}  # where the file stops being a JSON object
    try:
        doc = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        doc, detail = None, {"text": False}
    except json.JSONDecodeError as exc:
        doc, detail = None, {"line": exc.lineno, "column": exc.colno}
    if not isinstance(doc, dict):
        try:
            moved = move_aside(source, "damaged")
        except OSError as err:
            return SettingsFile(PlaySettings(), read_only=True, notice=LocalError(
                StoreCode.SETTINGS_STUCK, path=source, problem=os_failure(err), **detail))
        return SettingsFile(PlaySettings(), notice=LocalError(
            StoreCode.SETTINGS_DAMAGED, path=source, moved=moved, **detail))
    profile = doc.get("profile")
    coached = bool(profile.get("coached")) if isinstance(profile, dict) else False
    return SettingsFile(PlaySettings.from_dict(doc.get("play")), coached=coached, other=doc)

