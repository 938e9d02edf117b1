"""Compute cost of the mental-poker round (issue #4 §4).

Runs every seat's :class:`~p2p8s.crypto.session.Session` in one process over the
in-memory :class:`~p2p8s.crypto.harness.FakeNetwork` and reports two figures per phase:

* total CPU — the sum over all seats (what one machine simulating the table spends);
* critical path — the finishing time of the phase if every seat ran on its own machine
  with a zero-latency network (each seat's logical clock advances by its own handling
  time, and a message is available to its recipient when its sender finished).

Goals: shuffle + deal <= 100 ms (4 seats, 52 cards) and <= 300 ms (7 seats, 104 cards),
draw <= 5 ms. Run: ``python benchmarks/crypto_bench.py``.

Machine speed: the cost is almost all scalar multiplications, so the benchmark measures
µs per scalar multiplication (the *calibration*) just before and just after each table
size and prints every figure twice — **raw**, as measured on this machine now, and
**scaled to the reference machine** (raw × :data:`REFERENCE_MUL_US` / calibration, the
mean of the two calibrations). Goals are judged on both, each labelled; a goal met only
when scaled says this machine is slower (or busier) than the reference, not that the
code is fast enough here.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

from p2p8s.crypto import group
from p2p8s.crypto.harness import FakeNetwork, deal_hands, new_table
from p2p8s.crypto.rand import seeded

#: µs per variable-base scalar multiplication on an idle core of the reference machine,
#: the machine the goals were set on.
REFERENCE_MUL_US = 78.0


@dataclass(frozen=True, slots=True)
class Figures:
    """Raw measurements of one table size, in ms (per draw / per play: per operation)."""

    setup_cpu: float
    setup_crit: float
    deal_cpu: float
    deal_crit: float
    draw_cpu: float
    draw_crit: float
    play_cpu: float
    play_crit: float
    audit_total: float
    audit_one: float


def _reset(net: FakeNetwork) -> None:
    n = len(net.sessions)
    net.cpu_s = [0.0] * n
    net.ready_s = [0.0] * n


def _phase(net: FakeNetwork) -> tuple[float, float]:
    """(total CPU, critical path) in ms since the last reset."""
    return sum(net.cpu_s) * 1e3, max(net.ready_s) * 1e3


def measure(players: int, deck: int, hand: int) -> Figures:
    """Run one table size and return its raw figures (ms)."""
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

    return Figures(setup_cpu, setup_crit, deal_cpu, deal_crit, draw_cpu, draw_crit,
                   play_cpu, play_crit, audit_total, audit_one)


def _verdict(value: float, goal: float) -> str:
    return "MET" if value <= goal else "missed"


def report(players: int, deck: int, hand: int, goal_ms: float, raw: Figures,
           cal_before: float, cal_after: float) -> None:
    """Print ``raw`` and the same figures scaled to the reference machine's speed, using
    the mean of the calibrations taken just before and just after the measurement."""
    cal_us = (cal_before + cal_after) / 2
    k = REFERENCE_MUL_US / cal_us
    rows = [
        ("nonces + keys + escrow + shuffle", raw.setup_cpu, raw.setup_crit, ".1f"),
        ("deal (batched, n-1 hops) + starter", raw.deal_cpu, raw.deal_crit, ".1f"),
        ("shuffle + deal (incl. keys)", raw.setup_cpu + raw.deal_cpu,
         raw.setup_crit + raw.deal_crit, ".1f"),
        ("per draw", raw.draw_cpu, raw.draw_crit, ".2f"),
        ("per played card (prove + n-1 verifies)", raw.play_cpu, raw.play_crit, ".2f"),
        ("audit (every seat audits on its own)", raw.audit_total, raw.audit_one, ".1f"),
    ]
    print(f"\n{players} seats, {deck} cards, {hand} cards each + starter   "
          f"(calibration {cal_us:.0f} µs/mul; scale factor {REFERENCE_MUL_US:.0f}/{cal_us:.0f}"
          f" = {k:.2f})")
    if max(cal_before, cal_after) > 1.25 * min(cal_before, cal_after):
        print(f"  note: the machine's speed changed during the run (calibration "
              f"{cal_before:.0f} -> {cal_after:.0f} µs/mul): the scaled figures are rough")
    print(f"  {'':<40}{'--- raw (this machine, now) ---':>34}"
          f"{'--- scaled to reference ---':>34}")
    print(f"  {'phase':<40}{'total CPU':>16}{'per seat (crit.)':>18}"
          f"{'total CPU':>16}{'per seat (crit.)':>18}")
    for name, cpu, crit, fmt in rows:
        print(f"  {name:<40}{cpu:>14{fmt}}ms{crit:>16{fmt}}ms"
              f"{cpu * k:>14{fmt}}ms{crit * k:>16{fmt}}ms")
    for what, cpu, crit, goal in (
        ("shuffle + deal", raw.setup_cpu + raw.deal_cpu, raw.setup_crit + raw.deal_crit,
         goal_ms),
        ("per draw", raw.draw_cpu, raw.draw_crit, 5.0),
    ):
        print(f"  goal {what} <= {goal:.0f} ms:"
              f"  raw: total {_verdict(cpu, goal)}, per seat {_verdict(crit, goal)};"
              f"  scaled to reference: total {_verdict(cpu * k, goal)},"
              f" per seat {_verdict(crit * k, goal)}")


def mul_us() -> float:
    """Microseconds per variable-base scalar multiplication on this machine, now
    (the median of five runs of 100, so one hiccup does not skew it)."""
    s = group.random_scalar(seeded(b"bench"))
    p = group.hash_to_point(b"bench", b"p")
    runs = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(100):
            group.mul(s, p)
        runs.append((time.perf_counter() - t0) / 100 * 1e6)
    return statistics.median(runs)


def bench(players: int, deck: int, hand: int, goal_ms: float) -> None:
    """Calibrate, measure, calibrate again; report raw and scaled figures."""
    before = mul_us()
    raw = measure(players, deck, hand)
    after = mul_us()
    report(players, deck, hand, goal_ms, raw, before, after)


def main() -> None:
    print("p2p8s mental-poker compute cost (PyNaCl/libsodium ed25519, one process)")
    print(f"calibration: {mul_us():.0f} µs per scalar multiplication right now; the "
          f"reference machine: {REFERENCE_MUL_US:.0f} µs on an idle core.")
    print("Every figure is given raw (as measured here) and scaled to the reference "
          "machine\n(raw x reference/calibration); goals are judged on both.")
    bench(4, 52, 7, 100.0)
    bench(7, 104, 5, 300.0)


if __name__ == "__main__":
    main()
