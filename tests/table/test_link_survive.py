"""The runner's protocol on a bad Wi-Fi (p2p8s.table.link), in memory: real tables, no sockets.

protocol/table.md, "The runner's part" and "Timer (R-TIMER)": payloads written to a
connection that dies before delivering them are resent on the next one; the newest
connection of a node replaces the old one at once (nothing is counted from, or written
to, the old one again); a turn that does not move is enforced by the others' clocks
(first a fresh connection and ``sync``, then the node counts as lost); a node whose match
is over tells a returning node the result; a node that reaches nobody says so.
"""

from __future__ import annotations

from linknet import LinkNet, Node, Wire

from p2p8s.cli.words import PLAIN, Speaker
from p2p8s.cli.words.runner import presence_line
from p2p8s.crypto.rand import seeded
from p2p8s.errors import Note
from p2p8s.table import Table
from p2p8s.table import events as tev
from p2p8s.table.actions import CRYPTO
from p2p8s.table.clock import STALL_MARGIN_S
from p2p8s.table.link import Link
from p2p8s.table.linkout import (
    Conn,
    Dial,
    Drop,
    LinkCode,
    PeerBack,
    PeerGone,
    Post,
    Rebuild,
    Resend,
    SendLog,
    note,
)
from p2p8s.table.logverify import records_from_frames
from p2p8s.table.stall import HELD_STUCK_S, STALL_RETRY_S, Watch
from p2p8s.table.sync import SYNC, Sync
from p2p8s.wire import Farewell, Game


def _all_rounds(net: LinkNet, n: int = 1) -> None:
    net.run(lambda: all(node.link.rounds >= n for node in net.nodes.values()))


# --- writes that never arrive -----------------------------------------------------------------

def _into_a_dead_socket() -> tuple[LinkNet, Wire, int]:
    """A 3-seat table where seat 2's connection to seat 0 stops carrying what seat 2
    writes (it does not know) just before seat 2 moves: the net, that connection, and
    how many payloads seat 2 posted for seat 0 that never arrived (at least its move)."""
    net = LinkNet(3)
    net.start()
    _turn_of(net, 2)
    old = net.wires[net.nodes[2].peers[0]]
    old.dead.add(2)
    _move(net, 2)
    while net.deliver():
        pass
    lost = len(net.nodes[2].link.posted[0]) - net.nodes[0].link.got[2]
    assert lost >= 1  # written to the dead socket, counted as posted, never received
    return net, old, lost


def test_writes_to_a_connection_that_dies_before_delivering_them_are_resent() -> None:
    """Seat 2's writes to seat 0 vanish (its socket is dead, it does not know yet) while it
    plays on; when the connection ends, the next one's ``sync`` resends every one of them."""
    net, _, vanished = _into_a_dead_socket()
    net.reset(0, 2)
    net.connect(2, 0)
    net.run(lambda: bool(net.of(0, PeerBack)) and bool(net.of(2, PeerBack)), 5_000)
    assert len(net.of(2, Resend)) == vanished  # exactly what the dead socket swallowed
    _all_rounds(net)
    assert len(net.transcripts()) == 1
    assert all(n.link.failure is None for n in net.nodes.values())


def test_a_node_back_at_a_new_address_replaces_the_old_connection_at_once() -> None:
    """Seat 2's address changes: its old connection to seat 0 still looks open on both
    sides (nobody was told it ended) but carries nothing from it. The new connection
    replaces it at once on both nodes — the old one is closed, nothing more is written to
    it or counted from it — and what seat 2 wrote to the old one is resent on the new."""
    net, old, lost = _into_a_dead_socket()
    new = net.connect(2, 0)
    for seat in (0, 2):
        assert Drop(seat=2 - seat, conn=old.id) in net.of(seat, Drop)
        assert not net.of(seat, PeerGone)  # no loss, no takeover: just a new socket
    assert not old.open
    # a frame still arriving from the old socket is not counted (its copy comes anew)
    stale = net.nodes[0].link.received(2, old.id, Game(to=None, payload=bytes([CRYPTO])),
                                       frame=b"", digest=b"", now=net.now)
    assert stale == [] and net.nodes[0].link.counts["stale"] == 1
    net.run(lambda: net.nodes[0].link.got[2] >= len(net.nodes[2].link.posted[0]), 5_000)
    assert len(net.of(2, Resend)) == lost and net.nodes[0].peers[2] == new.id
    _all_rounds(net)
    assert len(net.transcripts()) == 1


def test_payloads_posted_while_the_new_connection_syncs_are_only_queued() -> None:
    """Between a new connection and the peer's ``sync`` a node writes nothing for that
    peer anywhere; the payloads wait in the peer's queue and go out as the resend."""
    net = LinkNet(2)
    net.start()
    net.nodes[1].auto = False
    _turn_of(net, 1)
    old = net.nodes[1].peers[0]
    w = net._wire(1, 0)  # a new connection; seat 1's node is told first
    net.run_out(1, net.nodes[1].link.connected(0, Conn(id=w.id), net.now))
    assert 0 not in net.nodes[1].peers and not net.wires[old].open
    table = net.nodes[1].table
    moves = [o for o in net.run_out(1, net.nodes[1].link.act(table.legal_actions()[0],
                                                             net.now)) if isinstance(o, Post)]
    assert moves
    assert [g.payload[:1] for _, g, _, _ in w.queues[0]] == [bytes([SYNC])]  # its sync only
    queued = [m.payload for m in net.nodes[1].link.posted[0].unacked[-len(moves):]]
    assert queued == [m.payload for m in moves]  # type: ignore[attr-defined]
    net.run_out(0, net.nodes[0].link.connected(1, Conn(id=w.id), net.now))
    net.run(lambda: net.applied(0) == net.applied(1), 5_000)
    resent = [r.payload for r in net.of(1, Resend)]  # type: ignore[attr-defined]
    assert all(m.payload in resent for m in moves)  # type: ignore[attr-defined]
    net.nodes[1].auto = True
    _all_rounds(net)
    assert len(net.transcripts()) == 1


# --- a turn that does not move ------------------------------------------------------------------

def _stall(net: LinkNet, seat: int) -> None:
    """From now on nothing of the mental-poker stream of ``seat``'s node arrives anywhere
    (it applied its move and believes it sent it), while its connections look fine."""
    net.tamper = lambda sender, to, game: not (sender == seat
                                               and game.payload[:1] == bytes([CRYPTO]))


def _turn_of(net: LinkNet, seat: int) -> None:
    net.run(lambda: net.nodes[seat].table.my_turn, 5_000)


def _move(net: LinkNet, seat: int) -> None:
    """``seat``'s node moves now (everything in flight delivered first)."""
    while net.deliver():
        pass
    node = net.nodes[seat]
    assert node.table.my_turn
    posts = [o for o in net.run_out(seat, node.link.act(node.table.legal_actions()[0],
                                                         net.now)) if isinstance(o, Post)]
    assert posts  # applied at home and posted


def _stalled(players: int, turn_timeout_s: float) -> LinkNet:
    """A table whose last seat moves (applied at its node) while its mental-poker stream
    stops arriving anywhere, run until seat 0's clock finds the turn stalled."""
    net = LinkNet(players, turn_timeout_s=turn_timeout_s)
    net.start()
    seat = players - 1
    _turn_of(net, seat)
    _stall(net, seat)
    _move(net, seat)
    net.run(lambda: bool(net.notes(0, LinkCode.TURN_STALLED)), 5_000)
    return net


def test_a_stalled_turn_is_caught_up_by_a_fresh_connection() -> None:
    net = _stalled(3, 30.0)
    net.run(lambda: all(net.notes(s, LinkCode.TURN_STALLED) for s in (0, 1)), 5_000)
    assert net.now >= net.nodes[0].table.deadline + STALL_MARGIN_S  # type: ignore[operator]
    [said] = net.notes(0, LinkCode.TURN_STALLED)
    assert said == note(LinkCode.TURN_STALLED, seat=2, node=2, deal=False)
    assert Speaker(names=net.config.names, me=0).say(said.code, **said.params) == (
        "Cem's turn does not move: connecting to Cem again to catch up…")
    for seat in (0, 1):  # each drops its connection to seat 2, which dials them again
        assert net.of(seat, Drop) == [Drop(seat=2, conn=net.nodes[2].peers[seat])]
        assert not net.of(seat, Dial) and 2 not in net.nodes[seat].table.gone
    net.tamper = None  # the network is fine again: the resend gets through
    net.connect(2, 0)
    net.connect(2, 1)
    net.run(lambda: all(net.nodes[s].link.got[2] >= len(net.nodes[2].link.posted[s])
                        for s in (0, 1)), 5_000)
    assert net.nodes[2].link.counts["resent"] >= 2  # its move, to each of them
    assert not any(isinstance(o, PeerGone) and o.why.code is LinkCode.GONE_STALLED
                   for o in net.nodes[0].outs)
    assert 2 not in net.nodes[0].table.taken_over
    _all_rounds(net)
    assert len(net.transcripts()) == 1


def test_a_turn_still_stalled_after_catching_up_is_played_by_the_computer() -> None:
    net = _stalled(3, 30.0)
    stalled_at = net.now
    net.connect(2, 0)  # caught up: the move is still not sent
    net.connect(2, 1)
    net.run(lambda: 2 in net.nodes[0].table.taken_over, 20_000)
    assert net.now >= stalled_at + STALL_RETRY_S
    gone = [o for o in net.nodes[0].outs if isinstance(o, PeerGone)]
    assert gone[-1] == PeerGone(seat=2, why=note(LinkCode.GONE_STALLED, deal=False))
    sp = Speaker(names=net.config.names, me=0)  # as the frontend says it (once a crash)
    assert presence_line(sp, 2, "Cem", gone[-1].why) == (
        "Gave up on Cem (seat 2) (its turn did not move, even after catching up with it): "
        "the computer plays their seat.")
    taken = [e for e in net.nodes[0].shown() if isinstance(e, tev.SeatTakenOver)]
    assert taken and taken[-1].seat == 2
    net.run(lambda: net.nodes[0].link.rounds >= 1 and net.nodes[1].link.rounds >= 1, 50_000)
    assert net.nodes[0].table.transcript == net.nodes[1].table.transcript


def test_a_stalled_turn_with_two_people_pauses_and_says_so() -> None:
    net = _stalled(2, 20.0)
    net.connect(1, 0)
    net.run(lambda: bool(net.notes(0, LinkCode.WAITING_FOR)), 5_000)
    assert net.nodes[0].table.deadline is not None
    assert net.now >= 20.0 + STALL_MARGIN_S + STALL_RETRY_S
    assert net.notes(0, LinkCode.WAITING_FOR) == [note(LinkCode.WAITING_FOR, seat=1)]
    assert 1 in net.nodes[0].table.paused


# --- coming back after the end ------------------------------------------------------------------

def test_a_node_back_after_the_match_ended_is_told_the_result() -> None:
    """Seat 2's node is cut off and its seat played by the computer to the end of the
    match; the others stay to tell it (``owed``). Back, it gets a peer's log instead of
    a resend and rebuilds from it: the restored table holds the final standings."""
    net = LinkNet(3, target=30)
    net.start()
    net.run(lambda: net.applied(0) >= 2)
    while net.deliver():
        pass
    for other in (0, 1):
        net.reset(2, other)
    net.nodes[2].auto = False
    net.run(lambda: all(net.nodes[s].link.done is not None for s in (0, 1)), 200_000)
    for seat in (0, 1):
        assert net.nodes[seat].link.done == note(LinkCode.DONE_MATCH_OVER)
        assert net.nodes[seat].link.owed == [2]  # it answers seat 2 when it is back
    assert net.nodes[2].link.done is None
    w = net.connect(2, 0)
    net.run(lambda: net.nodes[2].link.rebuild is not None, 20_000)
    assert net.nodes[2].link.rebuild == Rebuild(
        seat=0, why=note(LinkCode.REBUILD_OVER, seat=0), peers={0: w.id})
    # given the log, it is owed until its bye (the log may not have reached it yet)
    assert net.nodes[0].link.owed == [2] and net.of(0, SendLog) == [SendLog(conn=w.id, seat=2)]
    assert net.of(0, PeerBack)[-1] == PeerBack(seat=2, how=note(LinkCode.BACK, moved=None))
    records = records_from_frames(net.config, net.nodes[0].frames, me=2)
    restored = Table.restore(net.config, me=2, records=records, rand=seeded(b"r"))
    assert restored.finished and restored.failed is None
    assert restored.match.totals == net.nodes[0].table.match.totals
    rejoined = Link(restored, peers={0: Conn(id=w.id)}, restored=True)
    rejoined.start(net.now)
    assert rejoined.done == note(LinkCode.DONE_MATCH_OVER)  # it shows the end and exits
    net.run_out(0, net.nodes[0].link.lost(2, w.id, Note(Farewell.DONE), net.now))
    assert net.nodes[0].link.owed == []  # its bye: told
    assert Speaker(names=net.config.names, me=2).say(LinkCode.REBUILD_OVER, seat=0) == (
        "The match ended while you were away: taking the result from Ann's signed log…")


# --- nobody to reach ---------------------------------------------------------------------------

def test_a_node_that_reaches_nobody_says_so_once_and_keeps_dialling() -> None:
    net = LinkNet(3)
    net.start()
    net.run(lambda: net.applied(0) >= 2)
    net.reset(2, 0)
    assert net.notes(2, LinkCode.NOBODY_REACHABLE) == []  # seat 1 is still there
    net.reset(2, 1)
    assert net.notes(2, LinkCode.NOBODY_REACHABLE) == [note(LinkCode.NOBODY_REACHABLE)]
    assert {d.seat for d in net.of(2, Dial)} == {0, 1}  # type: ignore[attr-defined]
    assert not net.notes(0, LinkCode.NOBODY_REACHABLE)
    assert PLAIN.say(LinkCode.NOBODY_REACHABLE, mdns=True) == (
        "Cannot reach anyone at the table: still trying (mDNS and the last known "
        "addresses) — Ctrl-C / quit to leave")
    # a --no-mdns table looks nobody up by mDNS: the line says only what it tries
    assert PLAIN.say(LinkCode.NOBODY_REACHABLE) == (
        "Cannot reach anyone at the table: still trying (the last known addresses) — "
        "Ctrl-C / quit to leave")
    net.connect(2, 0)
    net.run(lambda: bool(net.of(2, PeerBack)), 5_000)
    net.reset(2, 0)  # alone again: said again
    assert len(net.notes(2, LinkCode.NOBODY_REACHABLE)) == 2


# --- a move applied at home and held -----------------------------------------------------------


def test_a_node_whose_takeover_one_holder_began_is_taken_over_and_rebuilds() -> None:
    """Issue #11: seat 3's node is cut off from everyone; seats 1 and 2 are back before
    their takeover grace, seat 0 only after it published its escrow share of seat 3's
    key (and seat 3, reaching 1 and 2, its share of seat 0's). A takeover once begun is
    irrevocable: 1 and 2 publish their shares of seat 3's key at once, though they hear
    it, so its key is rebuilt and its cut fixed (once the freeze of a recovery begun and
    never finished). Seat 3's share of seat 0's key is beyond that cut: void, so seat 0
    is not taken over. Seat 3's table took in its messages beyond the cut: void, it
    rebuilds at once from the log of the holder whose share stated the cut, and the round
    ends alike everywhere, nobody stalled or failed."""
    net = LinkNet(4, turn_timeout_s=30.0)
    net.start()
    net.run(lambda: net.applied(0) >= 3)
    while net.deliver():
        pass
    for other in (0, 1, 2):
        net.reset(3, other)
    net.connect(3, 1)
    net.connect(3, 2)
    net.run(lambda: any(3 in n.table._sessions.primary._announced_recoveries
                        for s, n in net.nodes.items() if s != 3), 2_000)
    net.connect(3, 0)
    net.heals = True
    table = net.nodes[3].table
    net.run(lambda: net.nodes[3].link.rebuild is not None, 2_000)
    assert table.void and table.failed is None
    reader = table.void_reader
    assert reader in (1, 2)  # it had read the most of seat 3's messages
    assert net.nodes[3].link.rebuild == Rebuild(
        seat=reader, why=note(LinkCode.REBUILD_TAKEN, seat=reader),
        peers=net.nodes[3].link.rebuild.peers)  # type: ignore[union-attr]
    net.run(lambda: all(3 in net.nodes[s].table._seats.recovered for s in (1, 2)), 2_000)
    net.rebuild(3)
    _all_rounds(net)
    assert len(net.transcripts()) == 1
    assert all(n.link.failure is None for n in net.nodes.values())
    assert not any(n.link.counts.get("stalled") for n in net.nodes.values())
    assert all(0 not in n.table._seats.recovered for n in net.nodes.values())
    assert Speaker(names=net.config.names, me=3).say(LinkCode.REBUILD_HELD, seat=0) == (
        "Your last moves were held back while your seat may have been taken over, and "
        "every player is reached again: rebuilding the table from the others' signed log.")


# --- the last person left ----------------------------------------------------------------------


def test_a_rejoined_node_whose_last_peer_quits_on_its_turn_ends_the_match_and_says_so() -> None:
    """Two people and a computer seat: Bob quits (his key given up), comes back (rebuilt
    from Ann's log: his seat stays taken over this round), then Ann quits on her turn.
    Every seat's key is public now and nobody is left to send the computer's moves for
    the seats taken over: Bob's runner stops ("Ann left the table; the match cannot go
    on without them") instead of waiting with no timer for good."""
    net = LinkNet(2, computers=(2,))
    net.start_settled()
    net.run_out(1, net.nodes[1].link.leave(net.now))
    while net.deliver():
        pass
    net.reset(0, 1)
    net.run(lambda: net.applied(0) >= 8, 20_000)
    w = net._wire(0, 1)
    frames = list(net.nodes[0].frames)
    table = Table.restore(net.config, me=1, rand=seeded(b"bob again"), now=net.now,
                          records=records_from_frames(net.config, frames, me=1),
                          sign=net.keys[1].sign)
    link = Link(table, peers={0: Conn(id=w.id, joined=True)}, restored=True, seen=frames)
    bob = net.nodes[1] = Node(seat=1, table=table, link=link, peers={0: w.id},
                              frames=frames)
    net.run_out(0, net.nodes[0].link.connected(1, Conn(id=w.id, joined=True), net.now))
    restarted = Game(to=0, payload=Sync(received=0, posted=0, restarted=True).payload())
    net._put(1, w.id, restarted, net._frame(bob, restarted, chained=False))
    net.run_out(1, link.clock(net.now))
    net.run_out(1, link.start(net.now))
    net.run(lambda: net.nodes[0].table.my_turn and net.nodes[0].link.peers.get(1) == w.id
            and not net.nodes[0].link.pending and not link.pending, 20_000)
    net.run_out(0, net.nodes[0].link.leave(net.now))
    while net.deliver():
        pass
    del net.nodes[0]
    w.open = False
    net.lose(1, w)
    net.run(lambda: link.failure is not None, 20_000)
    assert link.failure is not None
    assert PLAIN.error(link.failure) == (
        "Ann (seat 0) left the table; the match cannot go on without them")


def _cut_on_its_turn(turn_timeout_s: float) -> tuple[LinkNet, Node]:
    """A settled 4-node table (seat 3's node has its table secret) where seat 3, played
    by hand, drops from seats 0 and 1 on its turn: the net and seat 3's node."""
    net = LinkNet(4, turn_timeout_s=turn_timeout_s, secrets={3: bytes(range(32))})
    net.start_settled()
    node = net.nodes[3]
    node.auto = False
    net.run(lambda: node.table.my_turn, 20_000)
    while net.deliver():
        pass
    assert node.table.my_turn
    net.reset(3, 0)
    net.reset(3, 1)
    return net, node


def test_a_node_whose_takeover_can_never_finish_rebuilds_at_once() -> None:
    """On its turn (a lost seat is served, not taken over, until it must act), seat 3
    drops from seats 0 and 1, who begin the recovery of its key; seat 2 (still
    connected to it) rebuilds from seat 0's log before publishing its share, which is
    lost with its round secrets: the recovery can never finish. Back and reaching seats
    0 and 1 (not 2), seat 3 sees it begun: it rebuilds from seat 0's log at once (its key then
    goes to the others through ``ownkey``), not only once every node is reached for
    ``HELD_MAX_S`` — a Wi-Fi soak froze for 90 s so."""
    net, node = _cut_on_its_turn(600.0)
    net.tamper = lambda sender, to, game: to != 2  # seat 2 sees no share yet
    net.run(lambda: net.nodes[0].table._sessions.primary.recovering(3), 20_000)
    net.tamper = None
    two = net.nodes[2]
    two.link.rebuild = Rebuild(seat=0, why=note(LinkCode.REBUILD_HELD, seat=0),
                               peers=dict(two.peers))
    net.rebuild(2)
    while net.deliver():
        pass
    assert not node.table.held_for_good and 2 in node.table._seats.restarted
    net.reset(3, 2)
    net.connect(0, 3)
    net.connect(1, 3)
    while net.deliver():
        pass
    assert node.link.away == {2} and node.table.held_for_good
    assert node.link.rebuild == Rebuild(seat=0, why=note(LinkCode.REBUILD_HELD, seat=0),
                                        peers=node.link.rebuild.peers)  # type: ignore[union-attr]
    net.rebuild(3)
    node.auto = True
    net.connect(2, 3)
    net.run(lambda: all(n.link.rounds >= 1 for n in net.nodes.values()), 20_000)
    assert len(net.transcripts()) == 1
    assert all(n.link.failure is None for n in net.nodes.values())


def test_a_node_holding_with_one_node_out_of_reach_rebuilds_after_held_stuck_s() -> None:
    """Seat 3 drops from seats 0 and 1 on its turn; they begin the recovery of its key.
    Back with 0 and 1 but never reaching seat 2 again, seat 3 holds its moves (its seat
    may be taken over) with no end: HELD_MAX_S needs every node reached. After
    ``HELD_STUCK_S`` of holding, most nodes reached and synced, it rebuilds from the
    lowest of them (once it waited with no timer at all) and holds no more."""
    net, node = _cut_on_its_turn(60.0)
    net.run(lambda: net.nodes[0].table._sessions.primary.recovering(3), 20_000)
    net.reset(3, 2)
    net.tamper = lambda sender, to, game: {sender, to} != {2, 3}  # out of reach
    net.connect(0, 3)
    net.connect(1, 3)
    net.run(lambda: node.table.holding, 20_000)
    since = net.now
    net.run(lambda: node.link.rebuild is not None, 20_000)
    assert node.link.rebuild == Rebuild(seat=0, why=note(LinkCode.REBUILD_HELD, seat=0),
                                        peers=node.link.rebuild.peers)  # type: ignore[union-attr]
    assert since + HELD_STUCK_S <= net.now < since + HELD_STUCK_S + 1.0
    assert node.link.away == {2} and node.table.holding
    net.rebuild(3)
    net.tamper = None
    net.connect(3, 2)
    net.run(lambda: not net.nodes[3].table.holding, 20_000)
    assert all(n.link.failure is None and n.table.failed is None for n in net.nodes.values())


def test_the_held_stuck_watch_counts_the_holding_time_in_all() -> None:
    """Watch.stuck: True from HELD_STUCK_S of holding on; not holding starts it anew;
    its time is in the timer until it is due."""
    watch = Watch()
    assert not watch.stuck(True, 5.0) and watch.timer(None) == 5.0 + HELD_STUCK_S
    assert not watch.stuck(True, 4.9 + HELD_STUCK_S)
    assert watch.stuck(True, 5.0 + HELD_STUCK_S) and watch.timer(None) is None
    assert not watch.stuck(False, 6.0 + HELD_STUCK_S) and watch.timer(None) is None
    assert not watch.stuck(True, 100.0) and watch.timer(None) == 100.0 + HELD_STUCK_S


def test_a_turn_stalled_on_a_message_lost_for_good_here_rebuilds_from_a_log() -> None:
    """Seat 3's move never reaches seat 0, and no resend can bring it (both counts say
    it arrived: a gap no ``sync`` fills; a Wi-Fi soak's node stayed on another's turn
    for minutes so, reconnecting to it every 30 s, while the others played on). The
    catch-up does not help; instead of giving up on seat 3 — whose move the others
    have — seat 0, holding later messages that wait for the lost one, rebuilds from
    the lowest synced peer's log and the round ends alike everywhere. (A short turn timer:
    the turn stalls before the gap watch's ``GAP_MAX_S``, which the catch-up's new
    connection starts anew — test_link_gap.py has the gap without a stall.)"""
    net = LinkNet(4, turn_timeout_s=1.0)
    net.start()
    net.run(lambda: net.nodes[3].table.my_turn and net.applied(3) >= 2, 5_000)
    while net.deliver():
        pass
    lost: list[bytes] = []

    def tamper(sender: int, to: int, game: Game) -> bool:
        if sender == 3 and to == 0 and game.payload[:1] == bytes([CRYPTO]) and not lost:
            lost.append(game.payload)
            return False
        return True

    net.tamper = tamper
    node = net.nodes[3]
    net.run_out(3, node.link.act(node.table.legal_actions()[0], net.now))
    net.tamper = None
    assert lost
    net.nodes[0].link.got[3] += 1  # counted (and acknowledged) as if it had come
    zero = net.nodes[0]
    net.run(lambda: zero.link.rebuild is not None, 20_000)
    assert zero.link.counts.get("stalled") == 1 and not zero.link.counts.get("stall_lost")
    lack = zero.table.missing()
    assert lack is not None and lack.seat == 3
    assert zero.link.rebuild == Rebuild(seat=1, why=note(LinkCode.REBUILD_GAP, seat=1, node=3),
                                        peers=zero.link.rebuild.peers,  # type: ignore[union-attr]
                                        resume=True)
    assert Speaker(names=net.config.names, me=0).say(LinkCode.REBUILD_GAP, seat=1, node=3) == (
        "A message from Dag never reached this computer, and the turn waits for it: "
        "rebuilding the table from Bea's signed log.")
    net.rebuild(0)
    net.heals = True
    _all_rounds(net)
    assert len(net.transcripts()) == 1
    assert all(n.link.failure is None and n.table.failed is None for n in net.nodes.values())
