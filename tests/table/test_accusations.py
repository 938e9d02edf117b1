"""A bad-share accusation is settled by a public check, never on the accuser's word
(issue #13, protocol/mental-poker.md §8 "Accusations"): the accuser publishes its round
box secret, every node decrypts the disputed share itself and names the liar — the dealer
for a share that does not open or fails the Feldman check, the accuser otherwise — and
the offline audit (``p2p8s audit``) names the same seat."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from table_helpers import quiet, said, texts

from p2p8s.crypto import escrow, group
from p2p8s.crypto.errors import Cheat
from p2p8s.crypto.messages import Accuse, KeyAnnounce, Message, decode
from p2p8s.crypto.session import Session
from p2p8s.table import Table
from p2p8s.table.actions import CRYPTO
from p2p8s.table.harness import TableNet, make_config, make_keys
from p2p8s.table.logverify import verify


def _net(players: int, seed: bytes, **kw: object) -> TableNet:
    keys = make_keys(players)
    return TableNet(make_config(players, keys=keys, target=1), seed=seed, keys=keys,
                    idle=range(players), **kw)  # type: ignore[arg-type]


def _all_name(net: TableNet, culprit: int, code: Cheat) -> None:
    """Every node (the culprit's aside) stopped naming ``culprit`` for ``code``, and the
    offline audit of its log agrees."""
    for s in net.humans:
        if s == culprit:
            continue
        fault = net.nodes[s].failed
        assert fault is not None and (fault.seat, fault.code) == (culprit, code), (s, fault)
        report = verify(net.frames[s])
        assert report.fault is not None and report.fault.seat == culprit, (s, report.fault)
        assert report.fault.code == code


def _accuse(dealer: int, *, box_secret: bytes | None = None) -> object:
    """A patched node: its seat accuses ``dealer`` of a bad share (its own box secret
    unless ``box_secret`` is given)."""
    def go(node: Table) -> None:
        session = node._sessions.primary
        session._send(Accuse, dealer=dealer,
                      box_secret=session._box_secret if box_secret is None else box_secret)
        node._sessions.emit(node.me, session._run())
    return go


def test_an_honest_dealer_falsely_accused_is_cleared_and_the_accuser_named() -> None:
    for players, accuser, dealer in ((3, 2, 0), (4, 1, 3)):
        net = _net(players, b"false-%d" % players)
        net.start()
        quiet(net)
        net.inject(accuser, _accuse(dealer))  # type: ignore[arg-type]
        net.run()
        _all_name(net, accuser, Cheat.FALSE_ACCUSATION)
        other = next(s for s in net.humans if s not in (accuser, dealer))
        assert any("accuses" in t for t in texts(net, other))  # said, then settled
        text = said(net.nodes[other].failed, net, other)
        assert "falsely accused" in text and net.config.seats[dealer].name in text


def test_an_accusation_with_a_box_secret_not_its_own_names_the_accuser() -> None:
    net = _net(3, b"forged")
    net.start()
    quiet(net)
    net.inject(1, _accuse(0, box_secret=bytes([5]) * 32))  # type: ignore[arg-type]
    net.run()
    _all_name(net, 1, Cheat.ACCUSATION_KEY)


def test_a_truly_bad_share_names_the_dealer_on_every_node() -> None:
    """Dealer 2 swaps the ciphertexts of seats 0 and 1: both accuse, every node checks."""
    def tamper(sender: int, recipient: int, payload: bytes) -> bytes | None:
        if sender != 2 or payload[:1] != bytes([CRYPTO]):
            return payload
        msg = decode(payload[1:])
        if not isinstance(msg, KeyAnnounce):
            return payload
        (r0, c0), (r1, c1), *rest = msg.shares
        return bytes([CRYPTO]) + replace(msg, shares=((r0, c1), (r1, c0), *rest)).encode()

    net = _net(4, b"bad-share", tamper=tamper)
    net.start()
    net.run()
    _all_name(net, 2, Cheat.SHARE_UNDECRYPTABLE)
    # the accusers' screens said it first, then named the dealer
    for s in (0, 1):
        assert any("accuses" in t for t in texts(net, s)), texts(net, s)


def test_a_share_that_decrypts_but_misses_the_commitments_names_the_dealer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Dealer 2 seals for its first holder a share that opens (right keys, right
    commitments as associated data) but is not ``f(x)``: only the Feldman check of
    ``escrow.open_share`` catches it — the holder accuses, every node settles it the
    same way and names the dealer, and so does the audit."""
    send = Session._send

    def lying(self: Session, cls: type[Message], **body: Any) -> None:
        if cls is KeyAnnounce and self._me == 2 and body["shares"]:
            (r0, _), *rest = body["shares"]
            wrong = escrow.seal_share(
                group.scalar_from_int(7), dealer=2, recipient=r0,
                box_secret=self._box_secret, recipient_box_key=self._commits[r0][1],
                commitments=body["commitments"], ctx=self._ctx())
            body = {**body, "shares": ((r0, wrong), *rest)}
        send(self, cls, **body)

    monkeypatch.setattr(Session, "_send", lying)
    net = _net(4, b"feldman")
    net.start()
    net.run()
    _all_name(net, 2, Cheat.SHARE_FELDMAN)
    assert any("accuses" in t for t in texts(net, 0)), texts(net, 0)


def test_a_bad_share_is_never_adopted_on_a_stop_notice_alone() -> None:
    """The race the accusation closes: a node that hears "X sent a bad share" in a stop
    before it could check the share names nobody (only the signed accusation does)."""
    from p2p8s.table.actions import STOP, StopNotice

    net = TableNet(make_config(3, target=1), seed=b"claim", idle=range(3))
    net.start()
    quiet(net)
    node = net.nodes[0]
    claim = StopNotice(round_no=node._ctx.number, seat=2,
                       message="share-undecryptable seat=2 recipient=1")
    net.send_raw(1, 0, bytes([STOP]) + claim.encode())
    net.run()
    fault = node.failed
    assert fault is not None and fault.seat is None and fault.params["peer"] == 1
