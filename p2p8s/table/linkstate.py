"""The state of one node's links (:class:`~p2p8s.table.link.Link`), and its output primitives.

:class:`LinkState` holds what a :class:`~p2p8s.table.link.Link` knows of each peer — the
connections, the ``sync`` counts and acknowledgements (:mod:`p2p8s.table.acks`), who is
away, pending, expected back — with the read-only views of it (:attr:`~LinkState.done`,
:attr:`~LinkState.owed`…) and the output buffer the link's inputs fill; the link
(protocol/table.md, "The runner's part") is the behaviour on top.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from p2p8s.errors import Note
from p2p8s.table import linkout as lo
from p2p8s.table.acks import Acks, SendQueue
from p2p8s.table.core import Table
from p2p8s.table.freeze import Freeze
from p2p8s.table.linkout import PeerLost, TableFailed
from p2p8s.table.outcome import Outcome
from p2p8s.table.relay import Relays
from p2p8s.table.stall import Watch
from p2p8s.table.sync import LogAnswer


class LinkState:
    """This node's links to the other nodes of ``table``: ``peers`` are the connections the
    mesh holds now (seat → :class:`~p2p8s.table.linkout.Conn`); ``rounds`` stops after
    that many rounds; ``restored``: the table was rebuilt from a peer's log (``seen``: the
    frames it was rebuilt from; ``notes``: told with its first events; ``answers``: other
    peers' partial log answers); ``log_name`` names the table log in messages;
    ``come_back`` is the command a lost player can run to come back through this node.
    """

    def __init__(self, table: Table, *, peers: Mapping[int, lo.Conn], rounds: int | None = None,
                 restored: bool = False, seen: Sequence[bytes] = (),
                 notes: Sequence[Note] = (), answers: Mapping[int, LogAnswer] | None = None,
                 log_name: str | None = None, come_back: str | None = None) -> None:
        self.table = table
        self.config = table.config
        self.me = table.me
        self.names = self.config.names
        self.restored = restored
        self.come_back = come_back
        self.notes = list(notes)
        #: human seats of the other nodes (the computer seats' node is the host's)
        self.others = [s.seat for s in self.config.seats
                       if s.computer is None and s.seat != self.me]
        self.conns: dict[int, lo.Conn] = {c.id: c for c in peers.values()}
        self.peers: dict[int, int] = {s: c.id for s, c in peers.items()}  # the mesh's
        #: the rounds played, the cut-off, and when the runner stops
        self.outcome = Outcome(table, others=self.others, limit=rounds, log_name=log_name)
        self.received_count = 0  # game payloads received (not relayed, not logs)
        self.counts: dict[str, int] = {}  # resent, relayed, frozen
        self.rebuild: lo.Rebuild | None = None
        self.left = False
        self._out: list[lo.Out] = []
        self.relays = Relays(self.config, self.others, seen)
        #: a restored node: the frames it was rebuilt from (until :meth:`Link.start`)
        self.restored_frames: Sequence[bytes] = tuple(seen) if restored else ()
        #: per peer seat: the game payloads posted for it, the unacknowledged ones kept
        #: (``posted``, :mod:`p2p8s.table.acks`), and the count of game payloads received
        #: from it (``got``; the ``sync`` numbers)
        self.acks = Acks(self.others)
        self.got: dict[int, int] = dict.fromkeys(self.others, 0)
        self.last_round: dict[int, int] = {}  # seat -> the last round it sent a message in
        self.pending: dict[int, int] = {}  # connected again, waiting for its sync
        self.expect: dict[int, int] = {}  # seat -> its posted count: peer_back once in
        self.away: set[int] = set()  # seats whose node this node misses
        #: seats whose node came back after this run was done: given what it missed (the
        #: log, or resends), owed until it says it finished (its ``bye``)
        self.telling: set[int] = set()
        #: seats sent this node's log (match over, or restarted): whether it reached them
        #: only their ``bye`` says
        self.given_log: set[int] = set()
        self.gone_for_good = self.outcome.gone_for_good  # seats that left, in order
        #: a restored node: the peers told it restarted, on which connection (a ``sync``
        #: on that one is of the old run: no resend is due for it)
        self.fresh: dict[int, int] = {}
        #: a restored node: peers not reached yet, told ``restarted`` when they are, and
        #: those whose log answer is awaited before :meth:`Table.peer_back`
        self.restart_to: set[int] = set()
        self.await_log: set[int] = set()
        self.told_taken: dict[int, int] = {}  # seat -> the conn told its seats were taken
        self.answers: dict[int, LogAnswer] = dict(answers or {})
        #: peers asked for their log (a restored node asked those it reached): any other
        #: peer's log answer means its match is over, and this node rebuilds from it
        self.asked_log: set[int] = set(peers) | set(self.answers) if restored else set()
        #: the frozen-process rule: while asleep it sends nothing from its table, drives
        #: no timer, calls no ``peer_lost`` (it was the one gone), holds its ``sync``
        self.freeze = Freeze()
        #: stalled turns (R-TIMER, the others' clocks) and this table holding its moves
        self.watch = Watch()
        self.alone = False  # told the player it reaches nobody

    # --- state ---------------------------------------------------------------------------

    @property
    def asleep(self) -> bool:
        """This process was found frozen and does not know yet whether its seats were
        taken over meanwhile (:mod:`p2p8s.table.freeze`): no move, no timer."""
        return self.freeze.asleep

    @property
    def done(self) -> Note | None:
        """Why the runner stops (a ``DONE_*`` note), once it does."""
        return self.outcome.done

    @property
    def failure(self) -> PeerLost | TableFailed | None:
        """Why the match cannot go on (for the caller to raise), once it cannot."""
        return self.outcome.failure

    @property
    def rounds(self) -> int:
        """Rounds completed on this node."""
        return self.outcome.rounds

    @property
    def stopped(self) -> bool:
        """The runner stops (failed) or rebuilds: no further input is taken."""
        return self.failure is not None or self.rebuild is not None

    def member(self, seat: int | None) -> bool:
        """Whether ``seat`` is another person's seat of the table (its node may connect
        after the deal; anyone else is refused)."""
        return seat is not None and seat in self.got

    @property
    def owed(self) -> list[int]:
        """After the end of the match here (or the rounds asked for): the other people's
        seats whose node came back and is being given what it missed, or is away with a
        payload of this node it has not acknowledged — not those that left or finished
        (said ``bye`` after catching up). A node away that acknowledged everything has
        what this one sent it: not waited for (each node waits for its own payloads)."""
        return sorted(s for s in self.away | set(self.pending) | self.telling
                      if s not in self.gone_for_good and s not in self.outcome.finished
                      and (s in self.telling or bool(self.acks.posted[s].unacked)))

    @property
    def unacknowledged(self) -> list[int]:
        """After the end: the peers connected now (reached and synced) that have not
        acknowledged every payload this node posted for them — its last ones, written
        to a connection that may not have carried them out yet (not those that left or
        finished). The runner waits for their ``ack`` before it closes the connections
        and exits, which could lose what is still in flight."""
        return sorted(s for s in self._live()
                      if s not in self.gone_for_good and s not in self.outcome.finished
                      and self.acks.posted[s].unacked)

    @property
    def posted(self) -> dict[int, SendQueue]:
        """Per peer seat: the game payloads posted for it (``len``: how many in all)."""
        return self.acks.posted

    def _live(self) -> dict[int, int]:
        """The peers reached and synced: seat → the connection in use."""
        return {s: c for s, c in self.peers.items()
                if s not in self.pending and s not in self.away}

    # --- output --------------------------------------------------------------------------

    def _emit(self, out: lo.Out) -> None:
        self._out.append(out)

    def _take(self) -> list[lo.Out]:
        out, self._out = self._out, []
        return out

    def _show(self, *events: object) -> None:
        self._emit(lo.Show(events=events))

    def _fail(self, error: PeerLost | TableFailed) -> None:
        if not self.stopped:
            self.outcome.fail(error)

    def _name(self, seat: int | None) -> str | None:
        return self.outcome.name(seat)
