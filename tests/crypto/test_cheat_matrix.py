"""The cheat matrix (protocol/mental-poker.md, "The cheat matrix"; issue #13 §6).

One test per row: a patched seat (a Session subclass that lies in its own messages; a
wire hook for the replay and the equivocation) cheats over the real sessions, the round
runs phase by phase (:class:`Phase`), and the test asserts the phase in which the cheat
was caught — the moment — and the seat every honest session named. Rows the matrix marks
"never" test what is true instead (nobody is named, and what the cheaters do get). The
steering host, and the accusation on every node, are backed by the table tests the doc
names.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

import pytest
from test_mp_claims import play_round  # beside this file

from p2p8s.actions import EngineCode
from p2p8s.crypto import escrow, group, shuffle_proof
from p2p8s.crypto import events as ev
from p2p8s.crypto.audit import audit_round, check_claims
from p2p8s.crypto.deck import permutation
from p2p8s.crypto.errors import Cheat, CheatDetected, Fault
from p2p8s.crypto.group import Point, Scalar
from p2p8s.crypto.harness import FakeNetwork, Tamper, deal_hands, new_table
from p2p8s.crypto.messages import (
    Accuse,
    Commit,
    KeyAnnounce,
    KeyReveal,
    Message,
    PlayCards,
    ShareReveal,
    Shuffle,
    Strip,
)
from p2p8s.crypto.rand import seeded
from p2p8s.crypto.session import Session
from p2p8s.engine import Draw
from p2p8s.rules import Ruleset

HAND = 3


class Phase(Enum):
    """The moments of a round, in order."""

    SETUP = "setup"  # round id, keys and escrow, the shuffle (start_round)
    DEAL = "deal"  # the batched deal and the face-up starter
    PLAY = "play"  # every seat shows one card it holds
    REVEAL = "reveal"  # every seat reveals its key
    AUDIT = "audit"  # every seat audits the round


@dataclass(frozen=True, slots=True)
class Caught:
    """The first phase in which some session raised, and what each one raised."""

    phase: Phase
    named: dict[int, CheatDetected]


def _call(net: FakeNetwork, fn: Callable[[Session], object]) -> None:
    """``fn`` on every seat that has not failed (a failure is recorded, not raised)."""
    for seat in range(len(net.sessions)):
        if seat in net.failures:
            continue
        try:
            net.call(seat, fn)  # type: ignore[arg-type]
        except CheatDetected as e:
            net.failures[seat] = e
    _deliver(net)


def _deliver(net: FakeNetwork) -> None:
    while True:
        try:
            if not net.step():
                return
        except CheatDetected as e:  # a settled accusation raised while posting
            culprit = next(s for s in range(len(net.sessions))
                           if s not in net.failures and net.sessions[s]._failed is e)
            net.failures[culprit] = e


def _play_one(net: FakeNetwork) -> None:
    for seat, session in enumerate(net.sessions):
        if net.failures:
            return
        pos = sorted(session.hand())[0]
        try:
            net.call(seat, lambda s, pos=pos: s.play([pos]))
        except CheatDetected as e:
            net.failures[seat] = e
        _deliver(net)


def _audit(net: FakeNetwork) -> None:
    for seat, session in enumerate(net.sessions):
        try:
            session.audit()
        except CheatDetected as e:
            net.failures[seat] = e


def _phases(net: FakeNetwork) -> list[tuple[Phase, Callable[[FakeNetwork], None]]]:
    top = HAND * len(net.sessions)
    deal = [((0, i), (1 + i) % len(net.sessions)) for i in range(top)]
    return [
        (Phase.SETUP, lambda net: _call(net, lambda s: s.start_round())),
        (Phase.DEAL, lambda net: (_call(net, lambda s: s.deal(deal)),
                                  _call(net, lambda s: s.open([(0, top)])))),
        (Phase.PLAY, _play_one),
        (Phase.REVEAL, lambda net: _call(net, lambda s: s.end_round())),
        (Phase.AUDIT, _audit),
    ]


def run(net: FakeNetwork) -> Caught | None:
    """Run a round phase by phase; the first phase in which a session failed."""
    for phase, step in _phases(net):
        step(net)
        if net.failures:
            return Caught(phase, dict(net.failures))
    return None


def table(n: int, tamper: Tamper | None = None, *,
          cheater: tuple[int, type[Session]] | None = None) -> FakeNetwork:
    net = new_table(n, tamper=tamper, keep_going=True)
    if cheater is not None:
        seat, cls = cheater
        net.sessions[seat] = cls(net.sessions[seat].config, seeded(b"cheater"))
    return net


def assert_caught(caught: Caught | None, phase: Phase, culprit: int, fault: Fault, *,
                  by: range | tuple[int, ...], code: Cheat | None = None) -> None:
    """Caught in ``phase``, every seat of ``by`` naming ``culprit`` for ``fault``."""
    assert caught is not None, "nobody caught it"
    assert caught.phase is phase, (caught.phase, caught.named)
    for seat in by:
        if seat == culprit:
            continue
        err = caught.named.get(seat)
        assert err is not None, (seat, caught.named)
        assert (err.seat, err.fault) == (culprit, fault), (seat, err)
        assert code is None or err.code is code, (seat, err)


def equivocate(kind: type[Message], seat: int, change: Callable[[Any], Message], *,
               only_to: int) -> Tamper:
    """A wire hook: ``seat``'s first message of ``kind`` altered on its way to ``only_to``
    alone (the others get the bytes ``seat`` hashed into its own chain)."""
    done: list[int] = []

    def hook(sender: int, recipient: int, msg: Message, data: bytes) -> bytes | None:
        if (sender, recipient) != (seat, only_to) or not isinstance(msg, kind) or done:
            return data
        done.append(msg.seq)
        return change(msg).encode()

    return hook


Body = dict[str, Any]


def liar(kind: type[Message], change: Callable[[Session, Body], Body]) -> type[Session]:
    """A seat whose first message of ``kind`` says ``change(session, body)`` instead: a
    cheat of its own (its chain, hence its echo, is of what it sent, as a patched node's
    would be)."""
    class Liar(Session):
        lied = False

        def _send(self, cls: type[Message], **body: Any) -> None:
            if cls is kind and not self.lied:
                self.lied = True
                body = change(self, body)
            super()._send(cls, **body)

    return Liar


def known(tag: bytes) -> Point:
    """A point the cheater knows (a card of its own choosing)."""
    return group.hash_to_point(b"test/matrix", tag)


# ----------------------------------------------------------------------------- the rows


def test_wrong_strip_is_caught_at_once_naming_the_stripper() -> None:
    def change(session: Session, body: Body) -> Body:
        (e, i, _), *rest = body["items"]
        return {**body, "items": ((e, i, known(b"strip")), *rest)}

    caught = run(table(3, cheater=(2, liar(Strip, change))))
    assert_caught(caught, Phase.DEAL, 2, Fault.BAD_STRIP, by=range(3), code=Cheat.STRIP_PROOF)


def test_bad_point_in_a_shuffle_is_caught_at_once_naming_the_shuffler() -> None:
    def change(session: Session, body: Body) -> Body:
        return {**body, "points": (Point(bytes(32)), *body["points"][1:])}

    caught = run(table(3, cheater=(1, liar(Shuffle, change))))
    assert_caught(caught, Phase.SETUP, 1, Fault.BAD_POINT, by=range(3))


def test_duplicate_point_in_a_shuffle_is_caught_at_once_naming_the_shuffler() -> None:
    def change(session: Session, body: Body) -> Body:
        return {**body, "points": (body["points"][1], *body["points"][1:])}

    caught = run(table(3, cheater=(2, liar(Shuffle, change))))
    assert_caught(caught, Phase.SETUP, 2, Fault.DUPLICATE_POINT, by=range(3))


class Substituter(Session):
    """The issue #13 attack: a card of the first step replaced by a point the shuffler
    knows, and the step proven anyway (the prover run on the forged output)."""

    def _proven_step(self, epoch: int, layer: int, key: Scalar, prev: tuple[Point, ...]
                     ) -> tuple[tuple[Point, ...], shuffle_proof.ShuffleProof]:
        out, _ = super()._proven_step(epoch, layer, key, prev)
        forged = (group.mul(key, known(b"eight")), *out[1:])
        perm = tuple(permutation(len(prev), seeded(b"any")))
        t = self._shuffle_transcript(epoch, layer)
        return forged, shuffle_proof.prove(t, key, perm, prev, forged, self._rand)


def test_substitution_in_the_shuffle_is_caught_at_once_naming_the_shuffler() -> None:
    for n, seat in ((2, 0), (4, 2)):
        net = table(n, cheater=(seat, Substituter))
        caught = run(net)
        assert_caught(caught, Phase.SETUP, seat, Fault.BAD_SHUFFLE, by=range(n),
                      code=Cheat.SHUFFLE_PROOF)
        # nobody built on it: no later step, no strip
        assert not any(isinstance(m, Shuffle) for s in range(seat + 1, n) for m in net.sent[s])
        assert not any(isinstance(m, Strip) for sent in net.sent for m in sent)


def test_a_card_not_held_is_caught_at_once_naming_the_player() -> None:
    def change(session: Session, body: Body) -> Body:
        (e, i, k), = body["items"]
        return {**body, "items": ((e, i, (k + 1) % 52),)}

    caught = run(table(3, cheater=(1, liar(PlayCards, change))))
    assert_caught(caught, Phase.PLAY, 1, Fault.BAD_PLAY, by=range(3), code=Cheat.PLAY_PROOF)


def test_a_false_no_playable_card_is_caught_at_the_audit_naming_the_drawer() -> None:
    """Seat 1 draws while holding a playable card (R-DRAW, ``draw_when_playable`` off):
    its peers cannot see its hand, so the round goes on (every strip and play checks
    out); the audit's replay with every card known names it, at that Draw."""
    rules = Ruleset(draw_when_playable=False)
    net, actions, _, _ = play_round(rules, 3, cheat_draw=True)  # raises on any live fault
    net.call_all(lambda s: s.end_round())
    net.roundtrip_until_done()
    report = net.sessions[0].audit()  # every card was dealt and shown right
    with pytest.raises(CheatDetected) as info:
        check_claims(report, rules, players=3, dealer=0, actions=actions)
    err = info.value
    assert (err.seat, err.fault) == (1, Fault.ILLEGAL_CLAIM)
    assert err.params["action"] == Draw()
    assert err.params["cause"].code is EngineCode.PLAYABLE_NO_DRAW


def test_a_wrong_key_at_reveal_is_caught_at_once_naming_the_seat() -> None:
    def change(session: Session, body: Body) -> Body:
        return {**body, "key": group.scalar_from_int(12345)}

    caught = run(table(3, cheater=(2, liar(KeyReveal, change))))
    assert_caught(caught, Phase.REVEAL, 2, Fault.BAD_KEY, by=range(3),
                  code=Cheat.KEY_MISMATCH)


def test_a_replay_is_caught_at_once_naming_the_sender() -> None:
    copies: list[bytes] = []

    def replay(sender: int, recipient: int, msg: Message, data: bytes) -> bytes | None:
        if (sender, recipient) == (1, 0) and isinstance(msg, Commit):
            copies.append(data)
        elif (sender, recipient) == (1, 0) and copies and isinstance(msg, KeyAnnounce):
            net.links[(1, 0)].append((copies[0], 0.0, 0))  # the Commit once more
        return data

    net = table(3, replay)
    caught = run(net)
    assert_caught(caught, Phase.SETUP, 1, Fault.REPLAY, by=(0,), code=Cheat.ALREADY_RECEIVED)


def test_equivocation_is_caught_at_the_next_echo_naming_the_sender() -> None:
    def change(m: Commit) -> Message:
        return dataclasses.replace(m, box_key=bytes(31) + b"\x09")

    caught = run(table(3, equivocate(Commit, 0, change, only_to=2)))
    assert_caught(caught, Phase.SETUP, 0, Fault.EQUIVOCATION, by=(1, 2),
                  code=Cheat.SAW_DIFFERENT)


def test_a_bad_escrow_share_is_caught_at_once_naming_the_dealer() -> None:
    """Dealer 2 seals for seat 0 a share that decrypts but is not ``f(1)``: seat 0
    accuses, and every session settles it from public data and names the dealer."""
    def change(dealer: Session, body: Body) -> Body:
        wrong = escrow.seal_share(
            group.scalar_from_int(7), dealer=2, recipient=0, box_secret=dealer._box_secret,
            recipient_box_key=net.sessions[0]._box_key, commitments=body["commitments"],
            ctx=dealer._ctx())
        (r0, _), *rest = body["shares"]
        return {**body, "shares": ((r0, wrong), *rest)}

    net = table(3, cheater=(2, liar(KeyAnnounce, change)))
    caught = run(net)
    assert_caught(caught, Phase.SETUP, 2, Fault.BAD_SHARE, by=range(3),
                  code=Cheat.SHARE_FELDMAN)
    assert any(isinstance(m, Accuse) for m in net.sent[0])


def test_a_bad_share_at_recovery_is_caught_at_once_naming_the_holder() -> None:
    def change(session: Session, body: Body) -> Body:
        return {**body, "share": group.scalar_from_int(7)}

    net = table(3, cheater=(1, liar(ShareReveal, change)))
    _call(net, lambda s: s.start_round())
    assert net.failures == {}
    for s in (0, 1):  # seat 2 is gone: its holders publish their shares
        net.call(s, lambda x: x.recover(2))
    _deliver(net)
    assert_caught(Caught(Phase.SETUP, dict(net.failures)), Phase.SETUP, 1, Fault.BAD_SHARE,
                  by=(0,), code=Cheat.SHARE_WRONG)


class FalseAccuser(Session):
    """Accuses dealer 0 of a bad share right after taking in its (good) KeyAnnounce."""

    def receive(self, msg: Message) -> ev.Output:
        out = super().receive(msg)
        if isinstance(msg, KeyAnnounce) and msg.seat == 0:
            self._send(Accuse, dealer=0, box_secret=self._box_secret)
            more = self._run()
            return ev.Output(out.messages + more.messages, out.events + more.events)
        return out


def test_a_false_accusation_is_caught_at_once_naming_the_accuser() -> None:
    net = table(3, cheater=(2, FalseAccuser))
    caught = run(net)
    assert_caught(caught, Phase.SETUP, 2, Fault.FALSE_ACCUSATION, by=range(3),
                  code=Cheat.FALSE_ACCUSATION)


def test_a_withholding_holder_is_never_named_by_the_session_the_recovery_waits() -> None:
    """Seat 2 is gone; holder 1 keeps its share of seat 2's key back. Nothing is named
    and nothing is opened: the key is not rebuilt (every holder's share is needed), so
    the game waits on seat 2 and the table's timers count seat 1's node lost in turn
    (protocol/table.md, "A recovery whose shares cannot all arrive")."""
    net = table(3)
    _call(net, lambda s: s.start_round())
    deal_hands(net, 2)
    net.call(0, lambda x: x.recover(2))
    _deliver(net)
    assert net.failures == {}
    for s in (0, 1):
        assert net.sessions[s].recovering(2) and not net.sessions[s].recovered(2)
        assert net.sessions[s].hand_of(2) is None
    # the last share is all it takes
    net.call(1, lambda x: x.recover(2))
    _deliver(net)
    assert all(net.sessions[s].recovered(2) for s in (0, 1))


def test_collusion_is_never_caught_and_opens_only_what_all_holders_hold() -> None:
    """Seats 1 and 2 pool their keys and their escrow shares of seat 0's key (every
    holder of it at 3 seats: by design, so a gone seat's hand can be played): they read
    seat 0's hand, and the round audits clean — nobody is named. At 4 seats two of the
    three holders rebuild nothing."""
    net = table(3)
    _call(net, lambda s: s.start_round())
    deal_hands(net, HAND)
    shares = {s: net.sessions[s]._my_shares[0] for s in (1, 2)}
    commitments = net.sessions[1]._escrow[0]  # the shares interpolate e^-1 (A_0 = e^-1·G)
    key = group.scalar_inv(escrow.recover(0, shares, commitments, commitments[0]))
    assert key == net.sessions[0]._key
    record = net.sessions[1].record()
    _call(net, lambda s: s.end_round())
    assert net.failures == {}
    report = net.sessions[1].audit()
    assert {p: report.orders[0][p[1]] for p in report.holdings[0]} == net.sessions[0].hand()
    assert audit_round(record, [net.sessions[s]._key for s in range(3)]).orders

    # 4 seats: seat 0's key escrowed to 1, 2, 3 (threshold 3); 1 and 2 pool theirs
    rand = seeded(b"collusion")
    boxes = [escrow.box_keypair(rand) for _ in range(4)]
    secret = group.random_scalar(rand)
    deal = escrow.deal(secret, dealer=0, players=4, box_secret=boxes[0][0],
                       box_keys={s: boxes[s][1] for s in (1, 2, 3)}, ctx=net.sessions[0]._ctx(),
                       rand=rand)
    two = {r: escrow.open_share(c, dealer=0, recipient=r, box_secret=boxes[r][0],
                                dealer_box_key=boxes[0][1], commitments=deal.commitments,
                                ctx=net.sessions[0]._ctx())
           for r, c in deal.shares if r in (1, 2)}
    with pytest.raises(ValueError):  # fewer shares than the threshold
        escrow.recover(0, two, deal.commitments, group.base_mul(secret))
    # and no line through two points of a degree-2 polynomial hits f(0) (Lagrange at 0)
    x1, x2 = escrow.share_x(1), escrow.share_x(2)
    s1, s2 = (group.scalar_to_int(two[r]) for r in (1, 2))
    line = (s1 * x2 - s2 * x1) * pow(x2 - x1, -1, group.ORDER) % group.ORDER
    assert group.scalar_from_int(line) != secret


def test_a_sessions_audit_may_skip_the_proven_strips_but_not_their_order() -> None:
    """``strips_proven``: a session's record holds only strips whose proof it checked,
    so the audit gives the same report without re-multiplying them; a strip out of its
    fixed order (a forged record) is still named, and without the flag a wrong value."""
    net = table(3)
    for _, step in _phases(net)[:-1]:
        step(net)
    assert net.failures == {}
    record = net.sessions[0].record()
    secrets = [net.sessions[s]._key for s in range(3)]
    assert audit_round(record, secrets, strips_proven=True) == audit_round(record, secrets)
    pr = next(p for p in record.positions if len(p.strips) == 2)
    (a, va), (b, vb) = pr.strips
    for forged, proven, code in ((((b, vb), (a, va)), True, Cheat.STRIP_ORDER),
                                 (((a, known(b"x")), (b, vb)), False, Cheat.STRIP_WRONG)):
        bad = dataclasses.replace(record, positions=tuple(
            dataclasses.replace(p, strips=forged) if p is pr else p
            for p in record.positions))
        with pytest.raises(CheatDetected) as info:
            audit_round(bad, secrets, strips_proven=proven)
        assert info.value.code is code and info.value.fault is Fault.BAD_STRIP
