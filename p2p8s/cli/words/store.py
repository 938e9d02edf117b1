"""The words of the file layer (:mod:`p2p8s.store`): saves, settings, identity keys,
table logs and secrets, and OS errors said without their errno."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from p2p8s.cli.words import PLAIN, Speaker, Template
from p2p8s.store.paths import StoreCode, os_failure


def describe_os_error(exc: OSError, speaker: Speaker = PLAIN) -> str:
    """An OS error in words, without the errno: the OS's own words (``Not a
    directory``), or which part of the path is a file where a directory should be.

    >>> describe_os_error(PermissionError(13, "Permission denied"))
    'Permission denied'
    """
    return speaker.error(os_failure(exc))


def _file(params: Mapping[str, Any]) -> Any:
    return params["name"] if params.get("name") is not None else "the file"


def _log(text: str) -> Template:
    """``text`` about a table log whose ``name`` may be unknown (then: "the file")."""

    def say(speaker: Speaker, params: Mapping[str, Any]) -> str:
        return speaker.format(text, **{**params, "name": _file(params)})

    return say


def _save_version(speaker: Speaker, params: Mapping[str, Any]) -> str:
    return speaker.format("the saved match has format version {version}; this p2p8s reads "
                          "version {ours}", ours=params["ours"],
                          version=repr(params["version"]))


def _damaged(speaker: Speaker, params: Mapping[str, Any], *, end: str) -> str:
    if "line" in params:
        why = "it stops being valid JSON at line {line}, column {column}"
    elif params.get("text") is False:
        why = "it is not UTF-8 text"
    else:
        why = "it is not a JSON object"
    text = "the settings file {path} is damaged (" + why + "); using the defaults"
    return speaker.format(text + end, **params)


TEMPLATES: dict[StoreCode, Template] = {
    StoreCode.OS: "{text}",
    StoreCode.FILE_IN_THE_WAY: "{blocker} is a file, not a directory",
    StoreCode.SAVE_UNREADABLE: "the saved match cannot be read ({problem})",
    StoreCode.SAVE_NOT_JSON: "the saved match is damaged (not valid JSON)",
    StoreCode.SAVE_NOT_OURS: "the saved match is not a p2p8s solo save",
    StoreCode.SAVE_VERSION: _save_version,
    StoreCode.SAVE_DAMAGED: "the saved match is damaged: {cause}",
    StoreCode.SAVE_FAILED: "cannot save the match to {path}: {problem}",
    StoreCode.SETTINGS_UNREADABLE: "cannot read the settings file {path} ({problem}); using "
                                   "the defaults, and your options will not be remembered "
                                   "this time",
    StoreCode.SETTINGS_DAMAGED: lambda sp, p: _damaged(
        sp, p, end=" (the old file is now {moved})"),
    StoreCode.SETTINGS_STUCK: lambda sp, p: _damaged(
        sp, p, end="; it could not be moved aside ({problem}), so it is left as it is and "
                   "not written over"),
    StoreCode.IDENTITY_UNWRITABLE: "cannot save the identity key to {path}: {problem}",
    StoreCode.IDENTITY_UNREADABLE: "cannot read the identity key {path}: {problem}",
    StoreCode.NOT_AN_IDENTITY: "{path} does not hold an Ed25519 identity key; move it away "
                               "to get a new identity",
    StoreCode.LOG_UNREADABLE: "cannot read {name}: {problem}",
    StoreCode.NOT_A_LOG: _log("{name} is not a p2p8s table log (it does not start with "
                              "'{magic}')"),
    StoreCode.LOG_LENGTH: _log("{name}: record at byte {at} has an impossible length "
                               "{length}"),
    StoreCode.LOG_RECORD: _log("{name}: unexpected record of kind {kind} at byte {at}"),
    StoreCode.NO_HEADER: _log("{name} has no header record"),
    StoreCode.RECORD_NOT_JSON: _log("{name}: the {what} record is not valid JSON (at byte "
                                    "{at})"),
    StoreCode.RECORD_NOT_OBJECT: _log("{name}: the {what} record is not a JSON object (at "
                                      "byte {at})"),
    StoreCode.LOG_OTHER_MATCH: _log("{name} is the log of another table, seat or match"),
    StoreCode.NOT_A_SECRET: "{path} is not a table secret ({size} bytes, not {expected}): "
                            "move it aside to play this table on (a restart then cannot "
                            "recover its round keys)",
    StoreCode.LOCK_UNWRITABLE: "cannot open {path}, the lock that keeps one terminal per "
                               "table ({problem})",
    StoreCode.LOCK_VANISHES: "cannot hold {path}, the lock that keeps one terminal per "
                             "table: another process removes it each time",
}
