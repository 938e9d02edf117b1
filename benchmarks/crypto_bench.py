"""Compute cost of the mental-poker round (issue #4 §4).

Runs every seat's :class:`~p2p8s.crypto.session.Session` in one process over the
in-memory :class:`~p2p8s.crypto.harness.FakeNetwork` and reports two figures per phase:

* total CPU — the sum over all seats (what one machine simulating the table spends);
* critical path — the finishing time of the phase if every seat ran on its own machine
  with a zero-latency network (each seat's logical clock advances by its own handling
  time, and a message is available to its recipient when its sender finished).

Goals: shuffle + deal <= 100 ms (4 seats, 52 cards) and <= 300 ms (7 seats, 104 cards),
draw <= 5 ms. Run: ``python benchmarks/crypto_bench.py``.
"""

from __future__ import annotations

import time

from p2p8s.crypto import group
from p2p8s.crypto.harness import FakeNetwork, deal_hands, new_table
from p2p8s.crypto.rand import seeded


def _reset(net: FakeNetwork) -> None:
    n = len(net.sessions)
    net.cpu_s = [0.0] * n
    net.ready_s = [0.0] * n


def _phase(net: FakeNetwork) -> tuple[float, float]:
    """(total CPU, critical path) in ms since the last reset."""
    return sum(net.cpu_s) * 1e3, max(net.ready_s) * 1e3


def bench(players: int, deck: int, hand: int, goal_ms: float) -> None:
    net = new_table(players, deck_size=deck, clock=time.perf_counter,
                    seed=b"bench%d" % players)
    net.call_all(lambda s: s.start_round())
    net.roundtrip_until_done()
    setup_cpu, setup_crit = _phase(net)

    _reset(net)
    deal_hands(net, hand)
    top = players * hand
    net.call_all(lambda s: s.open([(0, top)]))
    net.roundtrip_until_done()
    deal_cpu, deal_crit = _phase(net)

    draws = 6
    _reset(net)
    for d in range(draws):
        net.call_all(lambda s, d=d: s.draw((0, top + 1 + d), d % players))
        net.roundtrip_until_done()
    draw_cpu, draw_crit = (x / draws for x in _phase(net))

    _reset(net)
    plays = 0
    for seat in range(players):
        pos = sorted(net.sessions[seat].hand())[0]
        net.call(seat, lambda s, pos=pos: s.play([pos]))
        net.roundtrip_until_done()
        plays += 1
    play_cpu, _ = (x / plays for x in _phase(net))
    play_crit = max(net.ready_s) * 1e3 / plays  # plays were sequential

    _reset(net)
    net.call_all(lambda s: s.end_round())
    net.roundtrip_until_done()
    t0 = time.perf_counter()
    for s in net.sessions:
        s.audit()
    audit_total = (time.perf_counter() - t0) * 1e3
    audit_one = audit_total / players

    sd_cpu, sd_crit = setup_cpu + deal_cpu, setup_crit + deal_crit
    print(f"\n{players} seats, {deck} cards, {hand} cards each + starter")
    print(f"  {'phase':<44}{'total CPU':>12}{'per seat (crit.)':>18}")
    print(f"  {'nonces + keys + escrow + shuffle':<44}{setup_cpu:>10.1f}ms{setup_crit:>16.1f}ms")
    print(f"  {'deal (batched, n-1 hops) + starter':<44}{deal_cpu:>10.1f}ms{deal_crit:>16.1f}ms")
    print(f"  {'shuffle + deal (incl. keys)':<44}{sd_cpu:>10.1f}ms{sd_crit:>16.1f}ms"
          f"   goal <= {goal_ms:.0f} ms: total {'MET' if sd_cpu <= goal_ms else 'missed'},"
          f" per seat {'MET' if sd_crit <= goal_ms else 'missed'}")
    print(f"  {'per draw':<44}{draw_cpu:>10.2f}ms{draw_crit:>16.2f}ms"
          f"   goal <= 5 ms: total {'MET' if draw_cpu <= 5 else 'missed'},"
          f" per seat {'MET' if draw_crit <= 5 else 'missed'}")
    print(f"  {'per played card (prove + n-1 verifies)':<44}{play_cpu:>10.2f}ms"
          f"{play_crit:>16.2f}ms")
    print(f"  {'audit (every seat audits on its own)':<44}{audit_total:>10.1f}ms"
          f"{audit_one:>16.1f}ms")


def mul_us() -> float:
    """Microseconds per variable-base scalar multiplication on this machine, now."""
    s = group.random_scalar(seeded(b"bench"))
    p = group.hash_to_point(b"bench", b"p")
    t0 = time.perf_counter()
    for _ in range(500):
        group.mul(s, p)
    return (time.perf_counter() - t0) / 500 * 1e6


def main() -> None:
    print("p2p8s mental-poker compute cost (PyNaCl/libsodium ed25519, one process)")
    print(f"calibration: {mul_us():.0f} µs per scalar multiplication right now "
          "(~78 µs on an idle core of the reference machine; figures scale with it)")
    bench(4, 52, 7, 100.0)
    bench(7, 104, 5, 300.0)


if __name__ == "__main__":
    main()
    print(f"\ncalibration after the run: {mul_us():.0f} µs per scalar multiplication")
