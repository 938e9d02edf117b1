"""The words of a solo match (:class:`~p2p8s.solo.SoloCode`): its settings, its saved
record, requests at the wrong time."""

from __future__ import annotations

from enum import Enum

from p2p8s.cli.words import Template
from p2p8s.solo import SoloCode

TEMPLATES: dict[Enum, Template] = {
    SoloCode.OPPONENTS: "a solo match has 1 to 6 opponents, not {value}",
    SoloCode.BAD_SETTINGS: "bad solo settings: {detail}",
    SoloCode.SEATS: "one name and one personality per seat are needed",
    SoloCode.ROUND_OVER: "the round is over",
    SoloCode.ROUND_NOT_OVER: "the round is not over",
    SoloCode.INCOMPLETE: "the save is incomplete ({detail})",
    SoloCode.WRONG_TYPES: "the save has fields of the wrong type",
    SoloCode.ILLEGAL_MOVE: "the save holds an illegal move ({cause})",
    SoloCode.DIGEST: "the replayed match does not match the save's digest",
}
