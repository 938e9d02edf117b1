"""The others' clocks in the crypto of a round (protocol/table.md, "Timer"): a node that
stays connected but never sends the message the round waits for (its commitment, its
shuffle step, its key at the round end) is caught up with after CRYPTO_STALL_S, then
counted lost, and the escrow deals with its seats as with a lost node's."""

from __future__ import annotations

from collections.abc import Callable

from linknet import LinkNet

from p2p8s import wire
from p2p8s.cli.words import Speaker
from p2p8s.cli.words.runner import reason
from p2p8s.crypto.messages import Commit, KeyReveal, Message, Shuffle, decode
from p2p8s.table import events as tev
from p2p8s.table.actions import CRYPTO
from p2p8s.table.clock import CRYPTO_STALL_S, Stall
from p2p8s.table.context import Phase
from p2p8s.table.linkout import LinkCode, PeerGone, note
from p2p8s.table.stall import STALL_RETRY_S


def _crypto(game: wire.Game) -> Message | None:
    payload = game.payload
    return decode(payload[1:]) if payload[:1] == bytes([CRYPTO]) else None


class HoldNet(LinkNet):
    """A LinkNet whose network keeps back every crypto message ``hold(seat, message)``
    picks (sent, resent or relayed, to anyone) until :meth:`release`: a node that is
    connected and heartbeating, but whose message the round waits for does not come."""

    def __init__(self, players: int, hold: Callable[[int, Message], bool]) -> None:
        super().__init__(players)
        self.hold = hold
        self.holding = True
        self.held: list[tuple[int, int, wire.Game, bytes]] = []

    def _put(self, seat: int, conn: int, game: wire.Game, body: bytes) -> None:
        msg = _crypto(game)
        if self.holding and msg is not None and self.hold(seat, msg):
            self.held.append((seat, conn, game, body))
            return
        super()._put(seat, conn, game, body)

    def release(self) -> None:
        """The messages kept back arrive now (late), and nothing more is kept."""
        self.holding = False
        held, self.held = self.held, []
        for item in held:
            super()._put(*item)


def _kind(kind: type, seat: int) -> Callable[[int, Message], bool]:
    """Seat ``seat``'s message of ``kind`` in round 1 and every later one of that seat in
    the round: its node's crypto stream stops there, its connections look fine."""
    stop: list[int] = []

    def hold(sender: int, msg: Message) -> bool:
        if msg.seat != seat or msg.round_no != 1:
            return False
        if isinstance(msg, kind) and not stop:
            stop.append(msg.seq)
        return bool(stop) and msg.seq >= stop[0]
    return hold


def _settle(net: LinkNet) -> None:
    while net.deliver():
        pass


def _stalled(net: LinkNet, seat: int) -> None:
    net.run(lambda: bool(net.notes(seat, LinkCode.TURN_STALLED)), 5_000)


def test_a_withheld_commitment_stalls_on_its_node_after_the_deadline_not_before() -> None:
    net = HoldNet(3, _kind(Commit, 2))
    net.start()
    _settle(net)
    table = net.nodes[0].table
    assert table.phase is Phase.CRYPTO
    # its own Commit and seat 1's are in: the round waits for seat 2's, since now
    assert table.stall == Stall(seat=2, node=2, turn=(1, -3), at=CRYPTO_STALL_S)
    assert table.get_timer() == CRYPTO_STALL_S
    _stalled(net, 0)
    assert net.now >= CRYPTO_STALL_S  # not before the deadline
    assert net.notes(0, LinkCode.TURN_STALLED)[0].params == {"seat": 2, "node": 2, "deal": True}
    assert net.notes(1, LinkCode.TURN_STALLED)[0].params == {"seat": 2, "node": 2, "deal": True}
    assert not net.of(0, PeerGone)  # caught up with first, not counted lost yet


def test_a_commitment_still_withheld_after_catching_up_counts_its_node_lost() -> None:
    """Before its key is announced a seat has no escrow: the game waits for it and says
    so (protocol/table.md, "No escrow")."""
    net = HoldNet(3, _kind(Commit, 2))
    net.start()
    _stalled(net, 0)
    caught_up = net.now
    net.connect(2, 0)  # its node dials back at once (a fresh connection and sync)
    net.connect(2, 1)
    net.run(lambda: 2 in net.nodes[0].table.paused, 20_000)
    assert net.now >= caught_up + STALL_RETRY_S
    gone = [o for o in net.of(0, PeerGone) if isinstance(o, PeerGone)]
    assert gone[-1].seat == 2 and gone[-1].why == note(LinkCode.GONE_STALLED, deal=True)
    # said as the deal it is, not as a turn
    speaker = Speaker(names=net.config.names, me=0)
    said = net.notes(0, LinkCode.TURN_STALLED)[0]
    name = net.config.names[2]
    assert speaker.say(said.code, **said.params) == (
        f"{name}'s part of the deal does not come: connecting to {name} again to catch up…")
    assert reason(gone[-1].why) == (
        "its part of the deal did not come, even after catching up with it")
    waits = [e for e in net.nodes[0].shown() if isinstance(e, tev.SeatAway) and e.paused]
    assert waits[-1].seat == 2


def test_the_next_shuffler_is_blamed_not_the_seat_after_it() -> None:
    """Seat 1's shuffle step never comes: seat 2 cannot make its own (it follows), so
    the nodes waiting blame seat 1's node, never seat 2's."""
    net = HoldNet(3, _kind(Shuffle, 1))
    net.start()
    _settle(net)
    for seat in (0, 2):
        stall = net.nodes[seat].table.stall
        assert stall is not None and (stall.seat, stall.node) == (1, 1)
    _stalled(net, 2)
    assert net.notes(2, LinkCode.TURN_STALLED)[0].params == {"seat": 1, "node": 1, "deal": True}
    assert net.notes(0, LinkCode.TURN_STALLED)[0].params == {"seat": 1, "node": 1, "deal": True}


def test_after_giving_up_on_a_withheld_shuffle_the_round_goes_on_without_it() -> None:
    """Seat 2's key is announced (its escrow shares are out) but its shuffle step never
    comes: once its node counts lost, the holders rebuild its key, the proxy shuffles
    for it, and the round is dealt and played to its end by the two others."""
    net = HoldNet(3, _kind(Shuffle, 2))
    net.start()
    _stalled(net, 0)
    net.connect(2, 0)
    net.connect(2, 1)
    net.run(lambda: all(net.nodes[s].link.rounds >= 1 for s in (0, 1)), 50_000)
    for seat in (0, 1):
        taken = [e for e in net.nodes[seat].shown() if isinstance(e, tev.SeatTakenOver)]
        assert taken and taken[0].seat == 2
        assert net.nodes[seat].link.failure is None
        assert [o.seat for o in net.of(seat, PeerGone) if isinstance(o, PeerGone)] == [2]
    assert net.nodes[0].table.transcript == net.nodes[1].table.transcript


def test_a_key_withheld_at_the_round_end_stalls_on_its_node() -> None:
    net = HoldNet(3, _kind(KeyReveal, 1))
    net.start()
    net.run(lambda: bool(net.notes(0, LinkCode.TURN_STALLED)), 50_000)
    table = net.nodes[0].table
    assert table.phase is Phase.END
    assert net.notes(0, LinkCode.TURN_STALLED)[0].params == {"seat": 1, "node": 1, "deal": True}
    assert net.notes(2, LinkCode.TURN_STALLED)[0].params == {"seat": 1, "node": 1, "deal": True}


def test_a_commitment_that_comes_late_but_within_the_deadline_is_not_given_up() -> None:
    net = HoldNet(3, _kind(Commit, 2))
    net.start()
    _settle(net)
    assert net.nodes[0].table.get_timer() == CRYPTO_STALL_S
    net.now = CRYPTO_STALL_S - 1  # the clock runs; then it comes
    assert net.held
    net.release()
    net.run(lambda: all(n.link.rounds >= 1 for n in net.nodes.values()), 50_000)
    for seat in net.nodes:
        assert not net.notes(seat, LinkCode.TURN_STALLED)
        assert not net.of(seat, PeerGone)
    assert len(net.transcripts()) == 1


def test_a_withheld_shuffle_at_a_table_of_two_pauses_and_says_so() -> None:
    net = HoldNet(2, _kind(Shuffle, 1))
    net.start()
    _stalled(net, 0)
    assert net.now >= CRYPTO_STALL_S
    assert net.notes(0, LinkCode.TURN_STALLED)[0].params == {"seat": 1, "node": 1, "deal": True}
    net.connect(1, 0)
    net.run(lambda: bool(net.notes(0, LinkCode.WAITING_FOR)), 5_000)
    assert net.now >= CRYPTO_STALL_S + STALL_RETRY_S
    assert net.notes(0, LinkCode.WAITING_FOR) == [note(LinkCode.WAITING_FOR, seat=1)]
    assert 1 in net.nodes[0].table.paused
