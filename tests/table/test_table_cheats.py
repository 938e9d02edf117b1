"""Every kind of misbehaviour is caught and the signer named (issue #5, R-AUDIT)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from table_helpers import on_turn, quiet, said, until

from p2p8s.crypto.messages import Act, PlayCards, decode
from p2p8s.crypto.proofs import Proof
from p2p8s.engine import DRAW, PASS, Action, Play
from p2p8s.rules import Ruleset
from p2p8s.table import Table
from p2p8s.table import events as tev
from p2p8s.table.actions import CRYPTO, SETUP, STOP, ActRecord
from p2p8s.table.harness import TableNet, make_config


def _ready(players: int = 3, seed: bytes = b"cheat", **kw: object) -> TableNet:
    """A dealt table waiting for its first action (every human idle)."""
    net = TableNet(make_config(players, **kw), seed=seed,  # type: ignore[arg-type]
                   idle=range(players))
    net.start()
    quiet(net)
    return net


def _named(net: TableNet, culprit: int, *words: str) -> None:
    """Every honest node stopped on a fault naming ``culprit``."""
    faults = net.faults()
    for s in net.humans:
        if s == culprit:
            continue
        f = faults.get(s)
        assert f is not None, f"node {s} did not notice"
        assert f.seat == culprit, f
        for w in words:
            assert w in said(f), f


def _author(seat: int, action: Action,
            positions: tuple[tuple[int, int], ...] = ()) -> Callable[[Table], None]:
    def go(node: Table) -> None:
        node._log.author(seat, action, positions)
    return go


def test_an_action_out_of_turn_is_named() -> None:
    net = _ready()
    cheat = (on_turn(net) + 1) % 3
    net.inject(cheat, _author(cheat, DRAW))
    quiet(net)
    _named(net, cheat, "out of turn")


def test_an_unmatched_card_is_named() -> None:
    for seed in (b"c1", b"c2", b"c3", b"c4"):
        net = _ready(seed=seed)
        turn = on_turn(net)
        node = net.nodes[turn]
        rnd = node.round
        assert rnd is not None
        bad = [c for c in rnd.hands[turn] if c is not None and not rnd.playable(c)
               and c.rank != 8]
        if bad:
            break
    play = Play((bad[0],))
    net.inject(turn, _author(turn, play, node._log.positions_for(turn, play)))
    quiet(net)
    _named(net, turn, "illegal move", "R-MATCH")


def test_an_illegal_pass_is_named() -> None:
    net = _ready(seed=b"pass")
    turn = on_turn(net)
    net.inject(turn, _author(turn, PASS))
    quiet(net)
    _named(net, turn, "illegal move", "R-PASS")


def test_claiming_a_card_not_shown_is_named() -> None:
    net = _ready(seed=b"claim")
    turn = on_turn(net)
    node = net.nodes[turn]
    rnd = node.round
    assert rnd is not None
    held = {c for c in rnd.hands[turn] if c is not None}
    shown = sorted(held)[0]
    other = next(c for c in map(type(shown), range(52)) if c not in held and c.rank != 8)
    positions = node._log.positions_for(turn, Play((shown,)))
    net.inject(turn, _author(turn, Play((other,)), positions))
    quiet(net)
    _named(net, turn, "showed other cards")


def _tamper_play(kind: str, culprit: int) -> TableNet:
    def tamper(sender: int, recipient: int, payload: bytes) -> bytes | None:
        if sender != culprit or payload[:1] != bytes([CRYPTO]):
            return payload
        msg = decode(payload[1:])
        if not isinstance(msg, PlayCards):
            return payload
        if kind == "proof":
            flipped = bytes([msg.proof.to_bytes()[0] ^ 1]) + msg.proof.to_bytes()[1:]
            msg = replace(msg, proof=Proof.from_bytes(flipped))
        else:  # claim a different card at the same position: "a card not held"
            e, i, k = msg.items[0]
            msg = replace(msg, items=((e, i, (k + 1) % 52), *msg.items[1:]))
        return bytes([CRYPTO]) + msg.encode()
    net = TableNet(make_config(3, target=1), seed=b"tp", tamper=tamper)
    net.start()
    net.run()
    return net


def test_a_forged_play_proof_is_named() -> None:
    net = _tamper_play("proof", 1)
    _named(net, 1, "proof")


def test_playing_a_card_not_held_is_named() -> None:
    net = _tamper_play("card", 2)
    _named(net, 2, "not held")


def test_a_replayed_copy_of_a_message_is_dropped_and_a_different_one_named() -> None:
    # an identical copy is what a resend or a relay delivers: dropped, no fault (issue
    # #11); a different message under a used sequence number is equivocation
    net = TableNet(make_config(3, target=1), seed=b"rp")
    sent: list[bytes] = []

    def tamper(sender: int, recipient: int, payload: bytes) -> bytes | None:
        if sender == 1 and payload[:1] == bytes([CRYPTO]) and isinstance(
                decode(payload[1:]), Act) and not sent:
            sent.append(payload)
        return payload
    net.tamper = tamper
    net.start()
    until(net, lambda: bool(sent) and not any(net.links.values()))
    net.send_raw(1, 0, sent[0])
    net.send_raw(1, 2, sent[0])
    quiet(net)
    assert net.faults() == {}
    msg = decode(sent[0][1:])
    other = bytes([CRYPTO]) + replace(msg, data=msg.data + b"\x00").encode()  # type: ignore[call-arg]
    net.send_raw(1, 0, other)
    net.send_raw(1, 2, other)
    quiet(net)
    _named(net, 1, "two different messages", f"message {msg.seq} (equivocation)")


def test_a_replayed_action_in_a_new_message_is_named() -> None:
    net = _ready(seed=b"rpa")
    turn = on_turn(net)
    node = net.nodes[turn]
    action = node.legal_actions()[0]
    net.inject(turn, lambda n: n.act(action, 0.0))
    quiet(net)
    old = ActRecord(round_no=node.round_number, index=0, seat=turn, prev=bytes(32), action=action)
    net.inject(turn, lambda n: n._sessions.emit(turn, n._sessions.by_seat[turn].announce(
        old.encode())))
    quiet(net)
    _named(net, turn, "again")


def test_different_actions_to_different_peers_are_named() -> None:
    culprit = 1
    forked: list[int] = []

    def tamper(sender: int, recipient: int, payload: bytes) -> bytes | None:
        if sender != culprit or recipient != 2 or payload[:1] != bytes([CRYPTO]) or forked:
            return payload
        msg = decode(payload[1:])
        if not isinstance(msg, Act):
            return payload
        rec = ActRecord.decode(msg.data)
        if not isinstance(rec.action, Play):
            return payload
        forked.append(rec.index)
        other = replace(rec, action=DRAW, positions=())
        return bytes([CRYPTO]) + replace(msg, data=other.encode()).encode()
    net = TableNet(make_config(3, target=1), seed=b"fork", tamper=tamper)
    net.start()
    net.run()
    assert forked
    _named(net, culprit)
    # the peer given the odd action stops at once and tells why, with its chain view;
    # the other peer sees the fork with its own evidence (the echo of seat 1's chain)
    assert "saw different messages from seat 1" in said(net.faults()[0])


def test_a_false_hidden_claim_fails_the_audit_naming_the_seat() -> None:
    # R-DRAW with draw_when_playable off: drawing while holding a playable card is a
    # hidden claim; peers cannot see it until the round-end audit (R-AUDIT)
    for seed in (b"h1", b"h2", b"h3", b"h4", b"h5"):
        net = _ready(seed=seed)
        turn = on_turn(net)
        node = net.nodes[turn]
        if node.round is not None and node.round.playable_cards():
            break
    rnd = node.round
    assert rnd is not None
    rnd.rules = replace(rnd.rules, draw_when_playable=True)  # the cheat's own engine
    net.inject(turn, _author(turn, DRAW))
    net.idle = set()
    net.run()
    for s in net.humans:
        overs = net.of(s, tev.RoundOver)
        assert overs and not overs[-1].audit_ok
    _named(net, turn, "draw", "R-DRAW")


def test_a_node_under_another_setup_is_named() -> None:
    net = _ready(seed=b"sig")
    node = net.nodes[0]
    config = make_config(3, rules=Ruleset.classic())
    out = node.receive(2, bytes([SETUP]) + config.to_bytes(), 0.0)
    assert node.failed is not None and node.failed.seat == 2
    assert out.events[-1] == node.failed
    assert out.messages and out.messages[0].payload[:1] == bytes([STOP])
    # the others hear why node 0 stopped, and stop naming the same seat
    net._post(0, out)
    quiet(net)
    assert {f.seat for f in net.faults().values()} == {2}


def test_a_crypto_message_under_a_wrong_seat_is_named() -> None:
    captured: list[bytes] = []

    def tamper(sender: int, recipient: int, payload: bytes) -> bytes | None:
        if sender == 1 and recipient == 2 and payload[:1] == bytes([CRYPTO]):
            captured.append(payload)
        return payload
    net = TableNet(make_config(3), seed=b"ws", tamper=tamper, idle=range(3))
    net.start()
    quiet(net)
    node = net.nodes[0]
    node.receive(2, captured[-1], 0.0)  # seat 2 relays seat 1's message as its own
    assert node.failed is not None and node.failed.seat == 2
    assert "signed as seat 1" in said(node.failed)


def test_a_substituted_card_is_caught_at_the_shuffle_step_and_the_shuffler_named() -> None:
    """The shuffle proof (issue #13): a step with a card replaced is refused on receipt by
    every other node, before anyone deals from it, naming the shuffler."""
    from p2p8s.crypto import group

    net = TableNet(make_config(3, target=1), seed=b"shuf")
    net.start()
    session = net.nodes[1]._sessions.by_seat[1]
    honest = session._shuffle_points

    def bad_shuffle(epoch: int, prev: tuple[group.Point, ...]) -> Any:
        out, proof = honest(epoch, prev)
        bad = group.hash_to_point(b"p2p8s/test", b"not a card")
        return (bad, *out[1:]), proof
    session._shuffle_points = bad_shuffle  # type: ignore[method-assign]
    net.run()
    for s in (0, 2):
        assert not net.of(s, tev.RoundOver)  # never dealt: stopped at the shuffle
    _named(net, 1, "shuffle", "proof")


def test_a_false_dispute_is_named_at_the_audit() -> None:
    net = _ready(seed=b"disp")

    def dispute(node: Table) -> None:
        session = node._sessions.primary
        session._dispute(sorted(session.hand())[0])  # a good card of its own
        node._sessions.emit(2, session._run())
    net.inject(2, dispute)
    net.idle = set()
    net.run()
    for s in (0, 1):
        assert not net.of(s, tev.RoundOver)[0].audit_ok
    _named(net, 2, "disputed")


def test_two_actions_for_one_place_in_the_log_are_named() -> None:
    net = _ready(seed=b"twice")
    turn = on_turn(net)
    node = net.nodes[turn]
    first = node.legal_actions()[0]

    def twice(n: Table) -> None:
        n._log.author(turn, first, n._log.positions_for(turn, first))
        n._log.authored, n._log.applied = -1, 0  # pretend nothing happened, act again
        n._log.author(turn, DRAW if first != DRAW else PASS, ())
    net.inject(turn, twice)
    quiet(net)
    _named(net, turn)
