"""A returning player plays its seat again from its next turn (issue #6 item 3).

Its seat is taken over (its key rebuilt from the escrow, or adopted at a round start):
the hand is open and the node sending the seat's actions (the proxy or the adopter)
carries out the person's **signed choice** when one comes in time, else the
deterministic computer's move at the R-TIMER deadline. Every node checks the choice.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from table_helpers import said, texts, until

from p2p8s.cards import Rank, standard_deck
from p2p8s.cli.words import table as words
from p2p8s.crypto.messages import Act, decode
from p2p8s.crypto.rand import seeded
from p2p8s.engine import Action, Draw, Play
from p2p8s.errors import IllegalAction
from p2p8s.table import Table
from p2p8s.table import events as tev
from p2p8s.table.actions import CHOICE, CRYPTO, ActRecord, Choice
from p2p8s.table.clock import STALL_MARGIN_S
from p2p8s.table.core import AWAY_GRACE_S
from p2p8s.table.harness import TableNet, make_config, make_keys
from p2p8s.table.logverify import verify

BACK = ("you are back: you play your seat again from this turn (your hand is open to the "
        "others until the round ends)")


# ---------------------------------------------------------------------- helpers

def _acts(node: Table) -> list[ActRecord]:
    """Every action record in a node's log (what it sent and took in), in order."""
    out = []
    for _, payload in node._resync.records:
        if payload[:1] == bytes([CRYPTO]):
            msg = decode(payload[1:], sender=None)
            if isinstance(msg, Act):
                out.append(ActRecord.decode(msg.data))
    return out


def _record(node: Table, round_no: int, index: int) -> ActRecord:
    found = {r.encode(): r for r in _acts(node) if (r.round_no, r.index) == (round_no, index)}
    assert len(found) == 1, found
    return next(iter(found.values()))


def _author(net: TableNet, seat: int) -> int:
    """The node that sends the actions of ``seat`` (taken over) now."""
    live = next(s for s in net.live if s != seat)
    seats = net.nodes[live]._seats
    assert net.nodes[live].round_number and seat in seats.bots
    return net.config.node_of(seats.proxy()) if seat in seats.recovered else seats.adopter


def _bot_move(node: Table) -> Action:
    assert node.round_number
    return node._computer.takeover_move(node.me)


def _other_choice(node: Table) -> Action | None:
    """A legal action of the choosing node that the takeover computer would not take."""
    bot = _bot_move(node)
    return next((a for a in node.legal_actions() if a != bot), None)


def _same_end(net: TableNet, seats: list[int]) -> None:
    assert net.faults() == {}
    nodes = [net.nodes[s] for s in seats]
    for node in nodes:
        assert node.finished and node.failed is None
        assert node.transcript == nodes[0].transcript
        assert node.transcript_index == nodes[0].transcript_index
        assert node.match.totals == nodes[0].match.totals
    overs = [[(e.result, e.audit_ok) for e in net.of(s, tev.RoundOver)] for s in seats]
    assert all(o == overs[0] for o in overs) and all(ok for _, ok in overs[0])


def _verified(net: TableNet, seats: list[int]) -> None:
    for s in seats:
        report = verify(net.frames[s])
        assert report.ok, words.report_lines(report)
        assert report.finished


def _away_and_back(net: TableNet, gone: int, mode: str, steps: int = 0) -> int:
    """Take ``gone``'s node away at its turn (``drop``: a network drop; ``restart``: a
    crash, then a restored table), until its seat is taken over; bring it back. Returns
    the round it was taken over in."""
    until(net, lambda: net.nodes[gone].my_turn)
    net.idle.add(gone)  # the test chooses for it
    if mode == "drop":
        net.cut_off(gone)
    else:
        net.crash(gone)
    until(net, lambda: gone in net.nodes[0].taken_over)
    for _ in range(steps):
        net.step()
    taken = net.nodes[0].round_number
    if mode == "restart":
        node = Table.restore(net.config, me=gone, records=net.nodes[0].resync_payload(),
                             rand=seeded(b"restored"), seed=b"restored", now=net.now,
                             sign=net.signers[gone])
        for peer in net.live:
            net._post(gone, node.receive(peer, net.nodes[peer].resync_payload(), net.now))
        assert node.failed is None
        net.replace(gone, node)
    net.reconnect(gone)
    return taken


def _choose_other(net: TableNet, gone: int, round_no: int,
                  after: Callable[[], None] | None = None) -> tuple[int, Action, Action]:
    """At each turn of ``gone`` in round ``round_no`` (still taken over), its person
    picks an action the computer would not take as soon as there is one. Returns the
    log index, the choice and the computer's move there."""
    node = net.nodes[gone]
    while True:
        until(net, lambda: node.choosing or node.round_number != round_no)
        assert node.round_number == round_no, "the round ended before a choice differed"
        assert node.my_turn and gone in node.taken_over
        other = _other_choice(node)
        index, bot = node._log.applied, _bot_move(node)
        out = node.act(other if other is not None else bot, net.now)
        assert [m.payload[0] for m in out.messages] == [CHOICE]
        assert not node.my_turn
        net._post(gone, out)
        if other is not None:
            if after is not None:
                after()
            return index, other, bot


# ---------------------------------------------------------------------- the person plays

@pytest.mark.parametrize(("players", "mode", "seed", "shuffled"), [
    (3, "drop", b"t3d", False), (4, "drop", b"t4d", False), (3, "restart", b"t3r", False),
    (4, "restart", b"t4r", False), (5, "drop", b"sh0", True), (4, "restart", b"sh2", True),
])
def test_a_returning_player_plays_its_seat_from_its_next_turn(
    players: int, mode: str, seed: bytes, shuffled: bool
) -> None:
    # shuffled: payloads of different links arrive in a seeded random order
    keys = make_keys(players, seed)
    net = TableNet(make_config(players, target=60, keys=keys), seed=seed, keys=keys,
                   order_seed=seed if shuffled else None)
    net.start()
    gone = players - 1
    taken = _away_and_back(net, gone, mode)
    author = _author(net, gone)
    assert author != gone
    index, chosen, bot = _choose_other(net, gone, taken)
    net.idle.discard(gone)  # from here the driver plays the person's choices
    net.run()
    live = net.humans
    _same_end(net, live)
    _verified(net, [s for s in live if s != gone or mode == "drop"])
    for s in live:
        record = _record(net.nodes[s], taken, index)
        assert record.seat == gone and record.action == chosen != bot
        assert record.choice is not None and record.choice.action == chosen
    infos = texts(net, gone)
    assert BACK in infos
    # the turns the computer played for the seat while its node was gone are told
    bot = [r for r in _acts(net.nodes[0]) if r.seat == gone and r.choice is None
           and r.round_no == taken and r.index < index and not isinstance(r.action, Draw)]
    away = [t for t in infos if t.startswith("you were away — the computer played")]
    assert bool(away) == bool(bot)


def test_an_adopted_seat_is_played_by_its_person_once_its_node_is_back() -> None:
    # the node is still gone at the next round start: the adopter runs its seat (key
    # revealed at once); it comes back during that round and chooses
    net = TableNet(make_config(4, target=200), seed=b"adopt")
    net.start()
    gone = 2
    until(net, lambda: net.nodes[gone].my_turn)
    net.idle.add(gone)
    net.cut_off(gone)
    first = net.nodes[0].round_number
    until(net, lambda: net.nodes[0].round_number == first + 1
          and net.nodes[0].round is not None)
    assert gone in net.nodes[0]._seats.adopted
    net.reconnect(gone)
    index, chosen, _ = _choose_other(net, gone, first + 1)
    net.idle.discard(gone)
    net.run()
    _same_end(net, net.humans)
    record = _record(net.nodes[1], first + 1, index)
    assert record.action == chosen and record.choice is not None


# ---------------------------------------------------------------------- the timer

def test_without_a_choice_the_computer_plays_at_the_deadline_then_after_a_grace() -> None:
    net = TableNet(make_config(3, target=100, turn_timeout_s=30.0), seed=b"late")
    net.start()
    gone = 2
    _away_and_back(net, gone, "drop")
    node = net.nodes[gone]
    until(net, lambda: node.choosing)
    author = net.nodes[_author(net, gone)]
    clock, mine = author._clock, node._clock
    start = max(clock.turn_at, author._seats.back_at[gone])
    assert author.get_timer() == start + 30.0
    # the person's node does not act on it; it only watches for a stall (R-TIMER)
    assert node.get_timer() == author.get_timer() + STALL_MARGIN_S
    index, bot, round_no = node._log.applied, _bot_move(node), node.round_number
    net.deliver_all()
    assert author._log.authored < index  # it waits
    until(net, lambda: author._log.authored >= index)
    assert net.now == pytest.approx(start + 30.0)
    net.deliver_all()
    assert _record(net.nodes[0], round_no, index).action == bot
    assert _record(net.nodes[0], round_no, index).choice is None
    # the next turn of the seat waits only AWAY_GRACE_S (R-TIMER)
    first = mine.turn_at
    until(net, lambda: (node.choosing and mine.turn_at > first)
          or node.round_number != round_no)
    if node.round_number == round_no:
        assert author.get_timer() == pytest.approx(clock.turn_at + AWAY_GRACE_S)
        assert node.deadline == pytest.approx(net.now + AWAY_GRACE_S)
    net.idle.discard(gone)
    net.run()
    _same_end(net, net.humans)


def test_a_choice_that_comes_after_the_computers_move_is_ignored() -> None:
    held: list[bytes] = []
    state = {"hold": True}

    def tamper(sender: int, recipient: int, payload: bytes) -> bytes | None:
        if state["hold"] and sender == 2 and recipient == 0 and payload[0] == CHOICE:
            held.append(payload)
            return None
        return payload

    net = TableNet(make_config(3, target=100), seed=b"stale", tamper=tamper)
    net.start()
    _away_and_back(net, 2, "drop")
    node, author = net.nodes[2], net.nodes[0]
    assert _author(net, 2) == 0
    until(net, lambda: node.choosing)
    round_no, index, bot = node.round_number, node._log.applied, _bot_move(node)
    other = _other_choice(node)
    net._post(2, node.act(other if other is not None else bot, net.now))
    assert held
    until(net, lambda: _record_or_none(author, round_no, index) is not None)
    net.deliver_all()
    net.send_raw(2, 0, held[0])  # late: the computer's move took that place
    state["hold"] = False
    net.deliver_all()
    assert net.faults() == {}
    record = _record(author, round_no, index)
    assert record.choice is None and record.action == bot
    net.idle.discard(2)
    net.run()
    _same_end(net, net.humans)


def _record_or_none(node: Table, round_no: int, index: int) -> ActRecord | None:
    return next((r for r in _acts(node) if (r.round_no, r.index) == (round_no, index)), None)


# ---------------------------------------------------------------------- local errors

def test_an_illegal_choice_is_refused_locally_and_nothing_is_sent() -> None:
    net = TableNet(make_config(3, target=100), seed=b"illegal")
    net.start()
    _away_and_back(net, 2, "drop")
    node = net.nodes[2]
    until(net, lambda: node.choosing)
    rnd = node.round
    assert rnd is not None
    hand = rnd.hands[2]
    stranger = next(c for c in standard_deck() if c not in hand and c.rank != Rank.EIGHT)
    records = len(node._resync.records)
    with pytest.raises(IllegalAction):
        node.act(Play((stranger,)), net.now)
    assert node.choosing and len(node._resync.records) == records and node.failed is None
    assert node._flush().messages == []
    net.idle.discard(2)
    net.run()
    _same_end(net, net.humans)


@pytest.mark.parametrize("arrived", [True, False])
def test_a_player_who_drops_again_right_after_choosing(arrived: bool) -> None:
    # the choice reached the table before the drop was noticed (it is carried out), or
    # the drop was noticed first (the computer plays at once; the late choice is stale)
    net = TableNet(make_config(4, target=60), seed=b"again")
    net.start()
    gone = 3

    def drop() -> None:
        if arrived:
            net.deliver_all()
        net.crash(gone)

    taken = _away_and_back(net, gone, "drop")
    index, chosen, bot = _choose_other(net, gone, taken, after=drop)
    net.run()
    live = [0, 1, 2]
    _same_end(net, live)
    record = _record(net.nodes[0], taken, index)
    if arrived:
        assert record.action == chosen and record.choice is not None
    else:
        assert record.action == bot and record.choice is None


# ---------------------------------------------------------------------- forgeries

def _rewrite_acts(fn: Callable[[ActRecord], ActRecord | None]
                  ) -> Callable[[int, int, bytes], bytes | None]:
    """A tamper hook rewriting the action records that carry a choice."""

    def tamper(sender: int, recipient: int, payload: bytes) -> bytes | None:
        if payload[0] != CRYPTO:
            return payload
        msg = decode(payload[1:], sender=None)
        if not isinstance(msg, Act):
            return payload
        record = ActRecord.decode(msg.data)
        if record.choice is None:
            return payload
        new = fn(record)
        if new is None:
            return payload
        return bytes([CRYPTO]) + dataclasses.replace(msg, data=new.encode()).encode()

    return tamper


def _signed(choice: Choice, key_seat: int, keys: Sequence[Ed25519PrivateKey]) -> Choice:
    """``choice`` signed by seat ``key_seat``'s key (of the default table id)."""
    sig = keys[key_seat].sign(choice.signed_bytes(b"TABLE001"))
    return dataclasses.replace(choice, signature=sig)


def _forged_run(rewrite: Callable[[ActRecord, Sequence[Ed25519PrivateKey]], ActRecord | None],
                seed: bytes) -> dict[int, tev.Fault]:
    return _forged_net(rewrite, seed).faults()


def _forged_net(rewrite: Callable[[ActRecord, Sequence[Ed25519PrivateKey]], ActRecord | None],
                seed: bytes) -> TableNet:
    keys = make_keys(4)
    net = TableNet(make_config(4, target=60, keys=keys), seed=seed, keys=keys,
                   tamper=_rewrite_acts(lambda record: rewrite(record, keys)))
    net.start()
    taken = _away_and_back(net, 3, "drop")
    net.idle.discard(3)  # its person chooses at each turn
    for _ in range(20_000):
        if net.faults() or not net.step() or net.nodes[0].round_number != taken:
            break
    net.deliver_all()
    return net


def test_an_embedded_choice_signed_by_another_key_names_the_sender() -> None:
    def rewrite(record: ActRecord, keys: Sequence[Ed25519PrivateKey]) -> ActRecord:
        assert record.choice is not None
        forged = _signed(record.choice, 0, keys)  # the proxy signs for Dag itself
        return dataclasses.replace(record, choice=forged)

    net = _forged_net(rewrite, b"key")
    faults = net.faults()
    assert faults[1].seat == faults[2].seat == 0
    assert "did not sign" in said(faults[1])
    # the offline verifier of a node that got the forged action says the same
    report = verify(net.frames[1])
    assert not report.ok and report.fault is not None and report.fault.seat == 0
    assert "did not sign" in said(report.fault)


def test_an_embedded_choice_for_another_index_names_the_sender() -> None:
    def rewrite(record: ActRecord, keys: Sequence[Ed25519PrivateKey]) -> ActRecord:
        assert record.choice is not None
        other = dataclasses.replace(record.choice, index=record.index + 1)
        return dataclasses.replace(record, choice=_signed(other, 3, keys))

    faults = _forged_run(rewrite, b"idx")
    assert faults[1].seat == faults[2].seat == 0
    assert "another place of the log" in said(faults[1])


def test_a_choice_replayed_from_an_earlier_turn_names_the_sender() -> None:
    seen: list[Choice] = []

    def rewrite(record: ActRecord, keys: Sequence[Ed25519PrivateKey]) -> ActRecord | None:
        assert record.choice is not None
        if not seen or seen[0].index == record.index:
            seen[:1] = [record.choice]
            return None
        # the proxy carries out the person's earlier choice again, as if made now
        old = seen[0]
        return dataclasses.replace(record, action=old.action, choice=old)

    faults = _forged_run(rewrite, b"replay")
    assert faults, "no second choice in the round"
    assert faults[1].seat == faults[2].seat == 0


def test_a_choice_sent_by_another_node_or_badly_signed_names_the_sender() -> None:
    net = TableNet(make_config(3, target=100), seed=b"direct")
    net.start()
    _away_and_back(net, 2, "drop")
    node = net.nodes[2]
    until(net, lambda: node.choosing)
    log = node._log
    choice = Choice(round_no=node.round_number, index=log.applied, prev=log.chain, seat=2,
                    action=_bot_move(node))
    keys = make_keys(3)
    good = _signed(choice, 2, keys)
    net.send_raw(1, 0, bytes([CHOICE]) + good.encode())  # Bea relays Cem's choice
    net.deliver_all()
    fault = net.nodes[0].failed
    assert fault is not None and fault.seat == 1 and "not its own" in said(fault)

    net = TableNet(make_config(3, target=100), seed=b"direct")
    net.start()
    _away_and_back(net, 2, "drop")
    until(net, lambda: net.nodes[2].choosing)
    bad = _signed(choice, 1, keys)  # Cem's node, with a signature of Bea's key
    net.send_raw(2, 0, bytes([CHOICE]) + bad.encode())
    net.deliver_all()
    fault = net.nodes[0].failed
    assert fault is not None and fault.seat == 2 and "forged" in said(fault)


def test_a_choice_that_does_not_follow_the_log_names_the_person_node() -> None:
    net = TableNet(make_config(3, target=100), seed=b"prev")
    net.start()
    _away_and_back(net, 2, "drop")
    node = net.nodes[2]
    until(net, lambda: node.choosing)
    wrong = Choice(round_no=node.round_number, index=node._log.applied, prev=bytes(32), seat=2,
                   action=_bot_move(node))
    forged = _signed(wrong, 2, list(make_keys(3)))
    net.send_raw(2, 0, bytes([CHOICE]) + forged.encode())
    net.deliver_all()
    fault = net.nodes[0].failed
    assert fault is not None and fault.seat == 2 and "does not follow the log" in said(fault)


def test_a_choice_in_an_action_of_a_seat_not_taken_over_names_the_sender() -> None:
    keys = make_keys(3)

    def tamper(sender: int, recipient: int, payload: bytes) -> bytes | None:
        if sender != 1 or payload[0] != CRYPTO:
            return payload
        msg = decode(payload[1:], sender=None)
        if not isinstance(msg, Act):
            return payload
        record = ActRecord.decode(msg.data)
        choice = _signed(Choice(round_no=record.round_no, index=record.index,
                                prev=record.prev, seat=1, action=record.action), 1, keys)
        data = dataclasses.replace(record, choice=choice).encode()
        return bytes([CRYPTO]) + dataclasses.replace(msg, data=data).encode()

    net = TableNet(make_config(3, target=100), seed=b"nochoice", tamper=tamper)
    net.start()
    until(net, lambda: bool(net.faults()))
    net.deliver_all()
    faults = net.faults()
    assert faults[0].seat == faults[2].seat == 1
    assert "not a person's seat taken over" in said(faults[0])
