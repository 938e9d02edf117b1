"""What the screen says of what happened while this node was away (#11): after a plain
network drop that cut it off from most of the table, the moves the others resend when
they are back are past — one catch-up line ("While you were away: …"), as after a
rejoin, not one by one as if new; a rejoin that finds the match over says the result."""

from __future__ import annotations

import io

from table.linknet import LinkNet

from p2p8s.actions import Draw
from p2p8s.cli.table_view import TableScreen
from p2p8s.cli.terminal import Terminal
from p2p8s.crypto.rand import seeded
from p2p8s.table import Table
from p2p8s.table import events as tev
from p2p8s.table import linkout as lo
from p2p8s.table.link import Link
from p2p8s.table.linkout import Conn, LinkCode, note
from p2p8s.table.logverify import records_from_frames

ME = 2


class _Watched(LinkNet):
    """A link net whose seat :data:`ME` draws its outputs on a screen as the runner does
    (shows, presence, a turn prompt when the table waits for it)."""

    def __init__(self) -> None:
        self.out = io.StringIO()
        self.screen = TableScreen(Terminal(self.out, io.StringIO(), width=200), me=ME)
        self._prompted = False
        super().__init__(3, seed=b"drop")
        self.screen.started(self.nodes[ME].table, self.config, log=None, auto=None)

    def run_out(self, seat: int, outs: list[lo.Out]) -> list[lo.Out]:
        done = super().run_out(seat, outs)
        if seat != ME or not hasattr(self, "screen"):
            return done
        table, screen = self.nodes[ME].table, self.screen
        for out in outs:
            if isinstance(out, lo.Show):
                screen.show(table, out.events, self.now)
            elif isinstance(out, lo.PeerGone):
                screen.presence(out.seat, screen.names[out.seat], connected=False,
                                reason=out.why)
            elif isinstance(out, lo.PeerBack):
                screen.presence(out.seat, screen.names[out.seat], connected=True,
                                reason=out.how)
        if table.my_turn and not self._prompted:
            screen.turn(table, self.now)
        self._prompted = table.my_turn
        return done


def test_moves_resent_after_a_plain_drop_are_one_catch_up_line() -> None:
    net = _Watched()
    net.nodes[ME].auto = False  # a person: the screen prompts, nobody acts meanwhile
    net.start()
    net.run(lambda: net.applied(ME) >= 4)
    while net.deliver():
        pass
    before = net.applied(0)
    for other in (0, 1):  # the network goes away: seat 2 is cut off, the others go on
        net.reset(ME, other)
    net.run(lambda: net.applied(0) >= before + 3)
    view = net.nodes[0].table.view()
    assert view is not None
    missed = list(view.log[before:])
    assert any(e.seat != ME and not isinstance(e.action, Draw) for e in missed)
    told = len(net.out.getvalue())
    for other in (0, 1):  # back: the others resend what they posted meanwhile
        net.connect(ME, other)
    net.run(lambda: not net.nodes[ME].link.pending and net.applied(ME) >= net.applied(0))
    while net.deliver():
        pass
    after = net.out.getvalue()[told:]
    lines = after.splitlines()
    back = max(i for i, line in enumerate(lines) if " is back " in line)
    summary = [line for line in lines if line.startswith("While you were away: ")]
    assert len(summary) == 1, after
    plays = {s: sum(1 for e in missed if e.seat == s and not isinstance(e.action, Draw))
             for s in (0, 1)}
    first = min(s for s in (0, 1) if plays[s])
    assert f"{net.screen.names[first]} played {plays[first]} turn" in summary[0], summary
    # nothing the others played in the drop is narrated as new after their return
    names = tuple(f"{net.screen.names[s]} " for s in (0, 1))
    narrated = [line for line in lines[back + 1:] if line.startswith(names)]
    assert narrated == [], after
    assert not [e for e in net.nodes[ME].shown() if isinstance(e, tev.Fault)]


def test_a_rejoin_that_finds_the_match_over_says_the_result_not_that_it_goes_on() -> None:
    """Seat 2 is cut off and played by the computer to the end of the match; run again,
    it rebuilds from a peer's log: the screen says the match ended, the scores and who
    won — not "the game goes on", nor the last round again as "so far"."""
    net = LinkNet(3, target=30, seed=b"over")
    net.start()
    net.run(lambda: net.applied(0) >= 2)
    while net.deliver():
        pass
    for other in (0, 1):
        net.reset(ME, other)
    net.nodes[ME].auto = False
    net.run(lambda: all(net.nodes[s].link.done is not None for s in (0, 1)), 200_000)
    records = records_from_frames(net.config, net.nodes[0].frames, me=ME)
    restored = Table.restore(net.config, me=ME, records=records, rand=seeded(b"r"))
    match = restored.match
    assert match is not None and match.winner is not None
    out = io.StringIO()
    screen = TableScreen(Terminal(out, io.StringIO(), width=200), me=ME)
    screen.started(restored, net.config, log=None, auto=None, rejoined=True)
    link = Link(restored, peers={0: Conn(id=0)}, restored=True)  # as the runner starts it
    for o in link.start(net.now):
        if isinstance(o, lo.Show):
            screen.show(restored, o.events, net.now)
    assert link.done is not None
    # the runner's rejoin line, as after any rebuild (newcomer QA: it said "you play again
    # from your next turn (your hand stays open …)" beside the match result)
    screen.show(restored, [note(LinkCode.REJOINED, seat=ME, taken=True, rounds=0)], net.now)
    screen.finished(restored, link.done)
    text = out.getvalue()
    assert "you play again" not in text, text
    n = len(match.results)
    rounds = f"{n} round{'s' if n != 1 else ''}"
    assert (f"Rejoined the table at seat {ME}: the match is over ({rounds}, every one "
            "audited from the signed log).") in text, text
    assert "the game goes on" not in text and "so far" not in text, text
    assert text.startswith("Back at the table: the match ended while you were away."), text
    winner = "You win the match!" if match.winner == ME else (
        f"{screen.names[match.winner]} wins the match.")
    assert text.count(winner) == 1, text
    for s in range(3):  # every seat's total, in the match table
        assert any(line.split()[:1] == [screen.names[s]]
                   and line.split()[-1] == str(match.totals[s])
                   for line in text.splitlines()), text
    assert "Round 1:" not in text and text.count("Match table") == 1, text
    assert text.rstrip().endswith("Leaving the table: the match is over.")
