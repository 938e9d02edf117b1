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
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from p2p8s.errors import LocalError
from p2p8s.store.paths import StoreCode, atomic_write, move_aside, os_failure, settings_path

VERSION = 1


#: The presets a remembered ``preset`` may name (RULES.md §11).
PRESETS = ("table", "classic", "countdown", "wildcards", "zimbabwe")
#: The single house rules on top of the preset, with their types (None: the preset's).
SINGLES: dict[str, type] = {"multi": bool, "draw_limit": int, "draw_when_playable": bool,
                            "reshuffle": bool, "hand_size": int, "target": int}


@dataclass(frozen=True, slots=True, kw_only=True)
class PlaySettings:
    """The remembered ``p2p8s play`` options (the seed is not remembered): the
    ``preset`` (RULES.md §11) and the single house rules on top of it (``None``: the
    preset's own value). The file also says ``classic`` and ``countdown`` (the older
    form of the preset, still read from files without ``preset``)."""

    opponents: int = 3
    preset: str = "table"
    multi: bool | None = None
    draw_limit: int | None = None
    draw_when_playable: bool | None = None
    reshuffle: bool | None = None
    hand_size: int | None = None
    target: int | None = None
    ascii: bool = False

    @property
    def classic(self) -> bool:
        """True for the classic preset."""
        return self.preset == "classic"

    @property
    def countdown(self) -> bool:
        """True for the countdown variant."""
        return self.preset == "countdown"

    def merged(self, **changes: Any) -> PlaySettings:
        """A copy with the options that are not ``None`` in ``changes``; a new
        ``preset`` starts from its own single rules (those not in ``changes`` are
        forgotten)."""
        given = {k: v for k, v in changes.items() if v is not None}
        base = self
        if given.get("preset", self.preset) != self.preset:
            none: dict[str, Any] = dict.fromkeys(SINGLES)
            base = replace(self, **none)
        return replace(base, **given)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (with ``classic`` and ``countdown`` for older readers)."""
        return {**asdict(self), "classic": self.classic, "countdown": self.countdown}

    @classmethod
    def from_dict(cls, data: Any) -> PlaySettings:
        """Read what is valid in ``data``; anything else keeps its default."""
        if not isinstance(data, dict):
            return cls()
        kept: dict[str, Any] = {}
        preset = data.get("preset")
        if preset in PRESETS:
            kept["preset"] = preset
        elif data.get("countdown") is True:
            kept["preset"] = "countdown"
        elif data.get("classic") is True:
            kept["preset"] = "classic"
        for name, kind in SINGLES.items():
            single: Any = data.get(name)
            low = 1 if name in ("target", "hand_size") else 0
            if (kind is bool and type(single) is bool) or (
                    kind is int and type(single) is int and single >= low):
                kept[name] = single
        for name in ("opponents", "ascii"):
            value = data.get(name)
            if type(value) is type(getattr(cls(), name)):
                kept[name] = value
        opponents: int = kept.get("opponents", 3)
        if not 1 <= opponents <= 6:
            kept.pop("opponents")
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
        doc.update({"version": VERSION, "play": self.play.to_dict(), "profile": profile})
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

