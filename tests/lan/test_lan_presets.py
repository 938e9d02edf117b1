"""A LAN match of every preset between real ``p2p8s`` processes on 127.0.0.1 (cut after
one round, two for countdown, whose rounds differ):
the host's ``--rules`` (with a house rule on top) is shown to the joiner before sitting
down, every node plays it and audits it, and ``p2p8s audit`` reads it from the signed
log."""

from __future__ import annotations

from pathlib import Path

import pytest
from net.procs import Proc

from p2p8s.cli.words.rules import describe_rules
from p2p8s.rules import Ruleset, default_target
from p2p8s.store.tablelog import read_log
from p2p8s.table.logverify import verify

from .lan import finish, log_file, match_tables, open_table

PRESETS = {"table": {}, "classic": {"multi_play": False}, "countdown": {},
           "wildcards": {"draw_limit": 4}, "zimbabwe": {"hand_size": 6}}
FLAGS = {"multi_play": "--no-multi", "draw_limit": "--draw-limit", "hand_size": "--hand-size"}


@pytest.mark.wall_clock
@pytest.mark.parametrize("preset", list(PRESETS))
def test_a_lan_table_plays_every_preset(preset: str, procs: list[Proc],
                                        tmp_path: Path) -> None:
    singles = PRESETS[preset]
    extra = ["--no-mdns", "--rules", preset]
    for key, value in singles.items():
        extra += [FLAGS[key]] if isinstance(value, bool) else [FLAGS[key], str(value)]
    # two rounds where the second differs (countdown deals one card fewer, R-COUNTDOWN)
    rounds = 2 if preset == "countdown" else 1
    table = open_table(procs, tmp_path, people=2, seats=3, rounds=rounds, host_extra=extra)
    finish(table, timeout_s=120)
    rules = Ruleset.for_preset(preset, **singles)
    if not rules.countdown:
        rules = rules.with_changes(target=default_target(rules, 3, solo=False))
    joiner = table.procs[1].output
    assert f"Ann's table: {describe_rules(rules)}" in joiner, joiner
    if singles:  # the change from the preset is named before the question
        assert f"House rules changed from {preset}: " in joiner, joiner
        assert joiner.index("House rules changed") < joiner.index("(you) sat down")
    outputs = [p.output for p in table.procs]
    played = outputs[0].count("audit: every card checked ✓")
    assert played >= 1 and all(o.count("audit: every card checked ✓") == played
                               for o in outputs)
    assert match_tables(outputs[0]) == match_tables(outputs[1])
    for home in table.homes:
        log = verify(read_log(log_file(home)).frames)
        assert log.ok and log.config is not None and log.config.rules == rules
        audit = Proc(["audit", str(log_file(home))], home=tmp_path / "auditor")
        procs.append(audit)
        assert audit.wait(60) == 0, audit.output
        assert describe_rules(rules) in audit.output and "verdict: ok" in audit.output
