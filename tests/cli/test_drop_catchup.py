"""After a plain network drop that cut this node off from most of the table, the moves
the others resend when they are back are past: the screen tells them as one catch-up
line ("While you were away: …"), as after a rejoin, not one by one as if new."""

from __future__ import annotations

import io

from table.linknet import LinkNet

from p2p8s.actions import Draw
from p2p8s.cli.table_view import TableScreen
from p2p8s.cli.terminal import Terminal
from p2p8s.table import events as tev
from p2p8s.table import linkout as lo

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
