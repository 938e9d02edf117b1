"""The host's computer seats are audited at round end (issue #13): every node replays
each computer seat's bot on the opened hands (its view, the engine's legal actions, the
RNG seeded from the public action chain) and names the host if a move differs — live,
and in the offline audit (``p2p8s audit``) alike."""

from __future__ import annotations

import pytest
from table_helpers import said, until

from p2p8s.engine import Action
from p2p8s.rules import PRESET_NAMES, Ruleset
from p2p8s.table import Table
from p2p8s.table import events as tev
from p2p8s.table.botaudit import BotAuditCode
from p2p8s.table.harness import TableNet, make_config, make_keys
from p2p8s.table.logverify import verify


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_an_honest_host_passes_the_computer_seat_audit(preset: str) -> None:
    for n, seed in enumerate((b"a", b"b", b"c", b"d")):
        players = 3 + n % 3
        net = TableNet(make_config(players, rules=Ruleset.for_preset(preset), target=1,
                                   computers=tuple(range(1, players - 1))),
                       seed=b"honest-bots/" + preset.encode() + seed)
        net.start()
        until(net, lambda net=net: net.faults() != {} or all(
            net.of(s, tev.RoundOver) for s in net.humans))
        assert net.faults() == {}, (preset, seed, net.faults())
        for s in net.humans:
            overs = net.of(s, tev.RoundOver)
            assert overs and all(o.audit_ok for o in overs), (preset, seed)


def _steer(node: Table, seat: int) -> None:
    """Patch the host: the first time computer ``seat`` has a choice, it sends another
    legal move than its bot's."""
    honest = node._log.author
    done = []

    def author(s: int, action: Action, positions: tuple[tuple[int, int], ...],
               by: int | None = None, choice: object = None) -> None:
        rnd = node._log.round
        assert rnd is not None
        others = [a for a in rnd.legal_actions() if a != action]
        if s == seat and not done and others:
            done.append(others[0])
            action = others[0]
            positions = node._log.positions_for(s, action, by)
        honest(s, action, positions, by, choice)  # type: ignore[arg-type]
    node._log.author = author  # type: ignore[method-assign]


def test_a_host_steering_a_computer_seat_is_named_at_round_end_and_in_the_audit() -> None:
    keys = make_keys(4)
    net = TableNet(make_config(4, computers=(2,), keys=keys, target=1), seed=b"steer",
                   keys=keys)
    _steer(net.nodes[0], 2)
    net.start()
    net.run()
    for s in (1, 3):
        overs = net.of(s, tev.RoundOver)
        assert overs and not overs[0].audit_ok
        fault = overs[0].fault
        assert fault is not None and (fault.seat, fault.code) == (0, BotAuditCode.STEERED)
        assert "Ann's computer seat Vera did not play as its bot would" in said(fault, net, s)
        assert net.nodes[s].failed is not None and net.nodes[s].failed.seat == 0
        report = verify(net.frames[s])
        assert report.fault is not None
        assert (report.fault.seat, report.fault.code) == (0, BotAuditCode.STEERED)
