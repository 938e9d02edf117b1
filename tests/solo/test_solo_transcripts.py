"""Golden transcripts: the screen of ``p2p8s play`` for fixed seeds, kept under
``cli/transcripts/``.

Regenerate after an intended change of the screen (or of the bots) with::

    P2P8S_REGEN=1 pytest tests/solo/test_solo_transcripts.py

and review the diff (``git diff cli/transcripts``) before committing it.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest

from p2p8s.rules import Ruleset
from p2p8s.solo import SoloSession, SoloSettings

from .conftest import ROOT, Home, hint_script

DIR = ROOT / "cli" / "transcripts"


def _first_round() -> tuple[list[str], str]:
    settings = SoloSettings(opponents=2, rules=Ruleset())
    seen = {"done": False}

    def extras(s: SoloSession) -> list[str]:
        if seen["done"]:
            return []
        seen["done"] = True  # some commands and mistakes before the first move
        return ["zz", "help", "hint", "rules", "score", "99", "2"]

    script, _ = hint_script(settings, 11, max_rounds=1, extra=extras)
    return ["--seed", "11", "--opponents", "2"], script


def _auto_match() -> tuple[list[str], str]:
    return ["--seed", "7", "--opponents", "2", "--target", "40", "--auto", "--ascii"], ""


def _preset_match(preset: str) -> Callable[[], tuple[list[str], str]]:
    def case() -> tuple[list[str], str]:
        return ["--seed", "7", "--opponents", "2", "--rules", preset, "--target", "60",
                "--auto", "--ascii"], ""
    return case


CASES: dict[str, Callable[[], tuple[list[str], str]]] = {
    # a first-ever round with the coach, commands, mistakes and hint-chosen moves,
    # ending when the input ends at the "next round" prompt
    "solo-first-round": _first_round,
    # a whole short match played by the computer for you, ASCII suits
    "solo-auto-match": _auto_match,
    # whole matches of the §11 presets: their cards' effects as the narration says them
    "solo-wildcards-match": _preset_match("wildcards"),
    "solo-zimbabwe-match": _preset_match("zimbabwe"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_transcript(home: Home, name: str) -> None:
    args, script = CASES[name]()
    proc = home.run(*args, stdin=script)
    assert proc.returncode == 0, proc.stderr
    text = f"$ p2p8s play {' '.join(args)}\n{proc.stdout}"
    path = DIR / f"{name}.txt"
    if os.environ.get("P2P8S_REGEN"):
        DIR.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if script:
            (DIR / f"{name}.in").write_text(script, encoding="utf-8")
    assert path.exists(), f"missing {path}; run P2P8S_REGEN=1 pytest {__file__}"
    assert text == path.read_text(encoding="utf-8"), (
        f"the screen changed; if intended, regenerate with P2P8S_REGEN=1 pytest {__file__}")
