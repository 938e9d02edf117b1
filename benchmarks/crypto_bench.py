"""Compute cost of the mental-poker round (issue #4 §4).

Runs every seat's :class:`~p2p8s.crypto.session.Session` in one process over the
in-memory :class:`~p2p8s.crypto.harness.FakeNetwork` and reports two figures per phase:

* total CPU — the sum over all seats (what one machine simulating the table spends);
* critical path — the finishing time of the phase if every seat ran on its own machine
  with a zero-latency network (each seat's logical clock advances by its own handling
  time, and a message is available to its recipient when its sender finished).

Goals (issue #13, with a proof for every shuffle step): one step's proof, 52 cards,
prove <= 80 ms and verify <= 80 ms; shuffle + deal <= 250 ms (4 seats, 52 cards) and
<= 900 ms (7 seats, 104 cards); draw <= 5 ms. Beside each time the count of scalar
multiplications (variable-base + fixed-base) is printed. The first table compares the
two groups the code has used, ed25519 (PyNaCl) and ristretto255 (rbcl), side by side.
Run: ``python benchmarks/crypto_bench.py``.

Machine speed: the cost is almost all scalar multiplications, so the benchmark measures
µs per ed25519 scalar multiplication (the *calibration*; the same operation whatever
group the code uses, so the reference figure keeps its meaning) just before and just
after each table
size and prints every figure twice — **raw**, as measured on this machine now, and
**scaled to the reference machine** (raw × :data:`REFERENCE_MUL_US` / calibration, the
mean of the two calibrations). Goals are judged on both, each labelled; a goal met only
when scaled says this machine is slower (or busier) than the reference, not that the
code is fast enough here.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import rbcl
from nacl import bindings as nacl

from p2p8s.crypto import escrow, group, proofs, shuffle_proof, threshold
from p2p8s.crypto.audit import audit_round
from p2p8s.crypto.deck import card_points, shuffle_step
from p2p8s.crypto.harness import FakeNetwork, deal_hands, new_table
from p2p8s.crypto.rand import seeded
from p2p8s.crypto.transcript import Context, Transcript

#: µs per variable-base ed25519 scalar multiplication on an idle core of the reference
#: machine, the machine the goals were set on.
REFERENCE_MUL_US = 78.0


@dataclass(slots=True)
class Counts:
    """Group operations counted while :func:`counting` is on: scalar multiplications
    (variable base, fixed base) and point additions/subtractions (each decodes two
    points and encodes one: about a quarter of a multiplication with ristretto255)."""

    var: int = 0
    fixed: int = 0
    adds: int = 0

    def __str__(self) -> str:
        return f"{self.var} var + {self.fixed} fixed mul, {self.adds} add"

    def per(self, k: int) -> Counts:
        """The counts divided by ``k`` (per seat, per operation)."""
        return Counts(self.var // k, self.fixed // k, self.adds // k)


@contextmanager
def counting() -> Iterator[Counts]:
    """Count :func:`group.mul` (variable base), :func:`group.base_mul` and
    :func:`group.add` / :func:`group.sub` calls (the group module's own functions,
    wrapped while on; nothing is counted, and nothing costs, when off)."""
    counts = Counts()
    mul, base_mul, add, sub = group.mul, group.base_mul, group.add, group.sub

    def counted_mul(s: Any, p: Any) -> Any:
        counts.var += 1
        return mul(s, p)

    def counted_base(s: Any) -> Any:
        counts.fixed += 1
        return base_mul(s)

    def counted_add(p: Any, q: Any) -> Any:
        counts.adds += 1
        return add(p, q)

    def counted_sub(p: Any, q: Any) -> Any:
        counts.adds += 1
        return sub(p, q)
    group.mul, group.base_mul = counted_mul, counted_base  # type: ignore[assignment]
    group.add, group.sub = counted_add, counted_sub  # type: ignore[assignment]
    try:
        yield counts
    finally:
        group.mul, group.base_mul, group.add, group.sub = (  # type: ignore[assignment]
            mul, base_mul, add, sub)


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
    setup_muls: Counts
    deal_muls: Counts
    draw_muls: Counts  #: per draw, all seats
    play_muls: Counts  #: per played card, all seats
    audit_muls: Counts  #: all seats
    proven_total: float  #: the audit with ``strips_proven`` (the strips not re-multiplied)
    proven_one: float
    proven_muls: Counts


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
    with counting() as setup_muls:
        net.call_all(lambda s: s.start_round())
        net.roundtrip_until_done()
    setup_cpu, setup_crit = _phase(net)

    _reset(net)
    with counting() as deal_muls:
        deal_hands(net, hand)
        top = players * hand
        net.call_all(lambda s: s.open([(0, top)]))
        net.roundtrip_until_done()
    deal_cpu, deal_crit = _phase(net)

    draws = 6
    _reset(net)
    with counting() as draw_muls:
        for d in range(draws):
            net.call_all(lambda s, d=d: s.draw((0, top + 1 + d), d % players))
            net.roundtrip_until_done()
    draw_cpu, draw_crit = (x / draws for x in _phase(net))

    _reset(net)
    plays = 0
    with counting() as play_muls:
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
    with counting() as audit_muls:
        for s in net.sessions:
            s.audit()
    # the same records, the strips proven on receipt not multiplied again
    jobs = [(s.record(), [k for k in s._secrets if k is not None]) for s in net.sessions]
    t0 = time.perf_counter()
    for record, keys in jobs:
        audit_round(record, keys, strips_proven=True)
    proven_total = (time.perf_counter() - t0) * 1e3
    with counting() as proven_muls:
        for record, keys in jobs:
            audit_round(record, keys, strips_proven=True)

    return Figures(setup_cpu, setup_crit, deal_cpu, deal_crit, draw_cpu, draw_crit,
                   play_cpu, play_crit, audit_total, audit_one, setup_muls, deal_muls,
                   draw_muls.per(draws), play_muls.per(plays), audit_muls,
                   proven_total, proven_total / players, proven_muls)


def _verdict(value: float, goal: float) -> str:
    return "MET" if value <= goal else "missed"


def report(players: int, deck: int, hand: int, goal_ms: float, raw: Figures,
           cal_before: float, cal_after: float) -> None:
    """Print ``raw`` and the same figures scaled to the reference machine's speed, using
    the mean of the calibrations taken just before and just after the measurement."""
    cal_us = (cal_before + cal_after) / 2
    k = REFERENCE_MUL_US / cal_us
    n = players
    both = Counts(raw.setup_muls.var + raw.deal_muls.var,
                  raw.setup_muls.fixed + raw.deal_muls.fixed,
                  raw.setup_muls.adds + raw.deal_muls.adds)
    rows = [
        ("nonces + keys + escrow + shuffle", raw.setup_cpu, raw.setup_crit, ".1f",
         raw.setup_muls.per(n)),
        ("deal (batched, n-1 hops) + starter", raw.deal_cpu, raw.deal_crit, ".1f",
         raw.deal_muls.per(n)),
        ("shuffle + deal (incl. keys)", raw.setup_cpu + raw.deal_cpu,
         raw.setup_crit + raw.deal_crit, ".1f", both.per(n)),
        ("per draw", raw.draw_cpu, raw.draw_crit, ".2f", raw.draw_muls.per(n)),
        ("per played card (prove + n-1 verifies)", raw.play_cpu, raw.play_crit, ".2f",
         raw.play_muls.per(n)),
        ("audit (every seat audits on its own)", raw.audit_total, raw.audit_one, ".1f",
         raw.audit_muls.per(n)),
        ("audit, strips_proven (proven on receipt)", raw.proven_total, raw.proven_one,
         ".1f", raw.proven_muls.per(n)),
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
          f"{'total CPU':>16}{'per seat (crit.)':>18}   group operations per seat")
    for name, cpu, crit, fmt, ops in rows:
        print(f"  {name:<40}{cpu:>14{fmt}}ms{crit:>16{fmt}}ms"
              f"{cpu * k:>14{fmt}}ms{crit * k:>16{fmt}}ms   [{ops}]")
    for what, cpu, crit, goal in (
        ("shuffle + deal", raw.setup_cpu + raw.deal_cpu, raw.setup_crit + raw.deal_crit,
         goal_ms),
        ("per draw", raw.draw_cpu, raw.draw_crit, 5.0),
    ):
        print(f"  goal {what} <= {goal:.0f} ms:"
              f"  raw: total {_verdict(cpu, goal)}, per seat {_verdict(crit, goal)};"
              f"  scaled to reference: total {_verdict(cpu * k, goal)},"
              f" per seat {_verdict(crit * k, goal)}")


def _us(fn: Callable[[], object], count: int = 100) -> float:
    """µs per call of ``fn``: the median of five runs of ``count``."""
    runs = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(count):
            fn()
        runs.append((time.perf_counter() - t0) / count * 1e6)
    return statistics.median(runs)


def mul_us() -> float:
    """Microseconds per variable-base ed25519 scalar multiplication on this machine, now
    (the median of five runs of 100, so one hiccup does not skew it)."""
    s = nacl.crypto_core_ed25519_scalar_reduce(hashlib.sha512(b"bench").digest())
    p = nacl.crypto_scalarmult_ed25519_base_noclamp(s)
    return _us(lambda: nacl.crypto_scalarmult_ed25519_noclamp(s, p))


def compare_groups() -> None:
    """ed25519 (PyNaCl, protocol version 1) and ristretto255 (rbcl, version 2) side by
    side, µs per operation, measured alternately in this one run."""
    s = nacl.crypto_core_ed25519_scalar_reduce(hashlib.sha512(b"bench").digest())
    ep = nacl.crypto_scalarmult_ed25519_base_noclamp(s)
    rp = rbcl.crypto_scalarmult_ristretto255_base(s)
    h = os.urandom(64)
    rows = [
        ("variable-base multiplication",
         lambda: nacl.crypto_scalarmult_ed25519_noclamp(s, ep),
         lambda: rbcl.crypto_scalarmult_ristretto255(s, rp)),
        ("fixed-base multiplication",
         lambda: nacl.crypto_scalarmult_ed25519_base_noclamp(s),
         lambda: rbcl.crypto_scalarmult_ristretto255_base(s)),
        ("point check", lambda: nacl.crypto_core_ed25519_is_valid_point(ep),
         lambda: rbcl.crypto_core_ristretto255_is_valid_point(rp)),
        ("point addition", lambda: nacl.crypto_core_ed25519_add(ep, ep),
         lambda: rbcl.crypto_core_ristretto255_add(rp, rp)),
        ("hash to the group (64 bytes)",
         lambda: nacl.crypto_core_ed25519_add(nacl.crypto_core_ed25519_from_uniform(h[:32]),
                                              nacl.crypto_core_ed25519_from_uniform(h[32:])),
         lambda: rbcl.crypto_core_ristretto255_from_hash(h)),
    ]
    print(f"\n  {'group operation':<32}{'ed25519 µs':>12}{'ristretto255 µs':>17}{'ratio':>8}")
    for name, ed, ri in rows:
        a, b = _us(ed), _us(ri)
        print(f"  {name:<32}{a:>12.1f}{b:>17.1f}{b / a:>8.2f}")
    print(f"  in use: {group.__doc__.splitlines()[0] if group.__doc__ else '?'}")


def bench_proof(cards: int) -> None:
    """One shuffle step's proof of ``cards`` points: prove and verify (median of 5), with
    their scalar multiplications, raw and scaled; goals 80 ms each (52 cards)."""
    rand = seeded(b"bench/proof")
    inputs = card_points(b"T", 1, bytes(32), 0, range(cards))
    key = group.random_scalar(rand)
    perm, outputs = shuffle_step(key, inputs, rand)
    Y = group.base_mul(key)
    ctx = Context(table=b"T", round_no=1, round_id=bytes(32))

    def t() -> Transcript:
        return Transcript(ctx, kind=shuffle_proof.KIND, seat=0)
    shuffle_proof.generators(cards)  # hashed once per deck size, then cached
    cal_before = mul_us()
    with counting() as pc:
        proof = shuffle_proof.prove(t(), key, perm, inputs, outputs, rand)
    assert shuffle_proof.verify(t(), Y, inputs, outputs, proof)  # Σ H_j, once per size
    with counting() as vc:
        assert shuffle_proof.verify(t(), Y, inputs, outputs, proof)
    prove_ms = _us(lambda: shuffle_proof.prove(t(), key, perm, inputs, outputs, rand), 5) / 1e3
    verify_ms = _us(lambda: shuffle_proof.verify(t(), Y, inputs, outputs, proof), 5) / 1e3

    def uncached() -> bool:  # before: Σ H_j added up again at every verification
        shuffle_proof._generator_sum.cache_clear()
        return shuffle_proof.verify(t(), Y, inputs, outputs, proof)
    with counting() as vc_before:
        assert uncached()
    before_ms = _us(uncached, 5) / 1e3
    k = REFERENCE_MUL_US / ((cal_before + mul_us()) / 2)
    goal = 80.0
    print(f"\nshuffle proof, one step of {cards} cards (scale factor {k:.2f})")
    for name, ms, counts in (("prove", prove_ms, pc), ("verify", verify_ms, vc),
                             ("(before)", before_ms, vc_before)):
        print(f"  {name:<8}{ms:>8.1f} ms raw{ms * k:>8.1f} ms scaled   [{counts}]"
              f"   goal <= {goal:.0f} ms: raw {_verdict(ms, goal)}, "
              f"scaled {_verdict(ms * k, goal)}")


def bench_served_strip(players: int) -> None:
    """One position's strip of one layer: made by the key holder (DLEQ proof + one
    receiver's check) beside served by its ``players - 1`` escrow holders (§8.1: every
    partial proven, one receiver's check of all of them, the combine), raw and scaled."""
    rand = seeded(b"bench/served")
    ctx = Context(table=b"T", round_no=1, round_id=bytes(32))
    boxes = [escrow.box_keypair(rand) for _ in range(players)]
    key = group.random_scalar(rand)
    inverse = group.scalar_inv(key)
    Y = group.base_mul(key)
    deal = escrow.deal(inverse, dealer=0, players=players, box_secret=boxes[0][0],
                       box_keys={s: boxes[s][1] for s in range(1, players)}, ctx=ctx,
                       rand=rand)
    shares = {r: escrow.open_share(c, dealer=0, recipient=r, box_secret=boxes[r][0],
                                   dealer_box_key=boxes[0][1], commitments=deal.commitments,
                                   ctx=ctx) for r, c in deal.shares}
    images = {r: escrow.share_point(escrow.share_x(r), deal.commitments) for r in shares}
    value = card_points(b"T", 1, bytes(32), 0, range(1))[0]
    t_count = len(deal.commitments)

    def strip_t() -> Transcript:
        return Transcript(ctx, kind=b"strip", seat=0)

    def normal() -> None:
        new = group.mul(inverse, value)
        proof = proofs.prove_dleq_batch(strip_t(), key, Y, [(new, value)], rand)
        assert proofs.verify_dleq_batch(strip_t(), Y, [(new, value)], proof)

    def part_t(h: int) -> Transcript:
        return threshold.partial_transcript(ctx, holder=h, dealer=0, op=0, positions=[(0, 0)])

    def served() -> None:
        made = {h: threshold.prove_partials(part_t(h), shares[h], images[h], [value], rand)
                for h in shares}
        for h, ((p,), proof) in made.items():
            assert threshold.verify_partials(part_t(h), images[h], [value], [p], proof)
        assert threshold.combine({h: m[0][0] for h, m in made.items()}, t_count) == \
            group.mul(inverse, value)
    cal_before = mul_us()
    with counting() as nc:
        normal()
    with counting() as sc:
        served()
    normal_ms = _us(normal, 20) / 1e3
    served_ms = _us(served, 5) / 1e3
    k = REFERENCE_MUL_US / ((cal_before + mul_us()) / 2)
    print(f"\none strip, {players} seats (t = {t_count} holders), scale factor {k:.2f}")
    for name, ms, counts in (("by the key holder", normal_ms, nc),
                             ("served (t partials + proofs + combine)", served_ms, sc)):
        print(f"  {name:<40}{ms:>8.2f} ms raw{ms * k:>8.2f} ms scaled   [{counts}]")


def bench(players: int, deck: int, hand: int, goal_ms: float) -> None:
    """Calibrate, measure, calibrate again; report raw and scaled figures."""
    before = mul_us()
    raw = measure(players, deck, hand)
    after = mul_us()
    report(players, deck, hand, goal_ms, raw, before, after)


def main(argv: Sequence[str] | None = None) -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None,
                            epilog="Takes no options: runs every table above.").parse_args(argv)
    print("p2p8s mental-poker compute cost (libsodium, one process)")
    compare_groups()
    print(f"\ncalibration: {mul_us():.0f} µs per ed25519 multiplication right now; the "
          f"reference machine: {REFERENCE_MUL_US:.0f} µs on an idle core.")
    print("Every figure is given raw (as measured here) and scaled to the reference "
          "machine\n(raw x reference/calibration); goals are judged on both.")
    bench_proof(52)
    bench_proof(104)
    bench_served_strip(4)
    bench_served_strip(7)
    bench(4, 52, 7, 250.0)
    bench(7, 104, 5, 900.0)


if __name__ == "__main__":
    main()
