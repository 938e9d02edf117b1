"""The intake of crypto payloads: each message once, in its seat's order, after its causes.

Every ``crypto`` payload a peer sends is a mental-poker message (``p2p8s/crypto``).
:class:`Inbox` decodes it, checks it names a seat and this table, and hands it to every
local session exactly once and in order — reconnects, resends and relays deliver copies,
late and out of order, and none of that is a cheat (protocol/table.md, "Carrying"):

* a copy of a message that arrived before (same sender, round, seat, seq and bytes) is
  dropped, whether it was taken in, waits, or was dropped; so is a past round's message
  this node never took in (that round is closed);
* two *different* messages signed by one node for one slot ``(round, seat, seq)`` are
  equivocation, a fault naming that node (:class:`~p2p8s.table.intake.Slots`; the
  offline audit fails on the same two frames, naming the same seat);
* a message waits (:meth:`Inbox.release` takes it in later, one at a time, each step of
  the table in between) while an earlier message of its seat is missing, while its
  ``echo`` counts messages of another seat this node has not taken in yet (its sender
  had seen them: causal order, so a play never comes before the draw it plays from),
  and — a message of a seat whose key this node rebuilt, sent by its old node before it
  knew (a late resend) — until another message depends on it; what still waits at the
  round end is dropped. Messages of later rounds wait for their round. At most
  :data:`~p2p8s.table.intake.MAX_HELD` wait at once (one more: ``FLOOD`` naming its
  sender).

Before it is taken in, the sender's node must be allowed to send for the message's seat
this round (:meth:`~p2p8s.table.seats.Seats.sends_for`); the session's own checks
(``Session.receive``: sequence, chain, echo) stay strict — they are the audit's.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2p8s.crypto.errors import CheatDetected
from p2p8s.crypto.messages import Message, ShareReveal, decode
from p2p8s.table.context import Ctx
from p2p8s.table.errors import TableCode, TableError
from p2p8s.table.intake import Held, Slots, digest
from p2p8s.table.seats import Seats
from p2p8s.table.sessions import LocalSessions

_ALL = 1 << 62  # the count of a seat this node runs: never waited for


@dataclass(frozen=True, slots=True, kw_only=False)
class Missing:
    """Message ``expected`` of ``seat`` in round ``round`` never came, and a held
    message waits for it: ``seq``, the next one of that seat, or None when another
    seat's message waits (its echo counts the missing one)."""

    round: int
    seat: int
    expected: int
    seq: int | None


class Inbox:
    """The crypto intake of this node (see the module docstring). No timer."""

    def __init__(self, ctx: Ctx, sessions: LocalSessions, seats: Seats) -> None:
        self._ctx = ctx
        self._sessions = sessions
        self._seats = seats
        self._slots = Slots()
        self._future: list[Held] = []  # messages of later rounds
        self.begin()

    def begin(self) -> None:
        """A new round: what waited for the last one is dropped."""
        self._held: list[Held] = []  # messages of this round that wait

    def get_timer(self) -> float | None:
        """The intake waits for messages, never for the clock."""
        return None

    def on_crypto(self, sender: int, body: bytes) -> None:
        """A ``crypto`` payload from ``sender``'s node. Raises TableError naming
        ``sender`` for one that cannot be taken in (or that equivocates)."""
        ctx = self._ctx
        try:
            msg = decode(body, sender=None)
        except CheatDetected as e:
            raise TableError(TableCode.BAD_MESSAGE, seat=sender, peer=sender, cause=e) from None
        if msg.seat >= ctx.players:
            raise TableError(TableCode.SIGNED_AS, seat=sender, peer=sender, claimed=msg.seat)
        if msg.table != ctx.config.table:
            raise TableError(TableCode.OTHER_TABLE, seat=sender, peer=sender)
        held = Held(sender, msg, digest(body))
        if self._slots.again(held):
            return  # a copy (resent, relayed), or a late one of a closed round
        number = ctx.number
        if number == 0 or msg.round_no > number:
            self._hold(self._future, held)
        elif msg.round_no == number:
            cuts = self._seats.cuts
            if cuts.void(msg.seat, msg.seq):
                return  # beyond the cut of a seat taken over: void on every node
            cuts.shared(msg, self._seats.holders)
            if self._due(held, self._counts()):
                self._take(held)
            else:
                self._hold(self._held, held)
        # else: a message of a closed round this node did without: dropped

    def take_future(self) -> None:
        """A round starts: the messages that came early for it wait to be taken in
        (:meth:`release`); those of later rounds wait on."""
        number = self._ctx.number
        self._held = [h for h in self._future if h.message.round_no == number]
        self._future = [h for h in self._future if h.message.round_no != number]
        for held in self._held:
            self._seats.cuts.shared(held.message, self._seats.holders)

    def release(self) -> bool:
        """Take in one message that waited and can go now; False when none can. Raises
        what taking it in raises."""
        if self._ctx.failed is not None or self._ctx.void or not self._held:
            return False
        cuts = self._seats.cuts
        self._held = [h for h in self._held if not cuts.void(h.message.seat, h.message.seq)]
        counts = self._counts()
        for i, held in enumerate(self._held):
            if self._due(held, counts):
                del self._held[i]
                self._take(held)
                return True
        return False

    def ready(self) -> bool:
        """True while a message that waited can be taken in now (:meth:`release` would)."""
        if self._ctx.failed is not None or self._ctx.void or not self._held:
            return False
        cuts, counts = self._seats.cuts, self._counts()
        return any(self._due(h, counts) for h in self._held
                   if not cuts.void(h.message.seat, h.message.seq))

    def missing(self) -> Missing | None:
        """The first message of this round that a waiting one needs and that never came
        (a gap in a seat's chain, or one its echo counts), or None. Not a fault: the
        offline audit reports it as a damaged log (``LogCode.MISSING``)."""
        if not self._held:
            return None
        heads = self._sessions.primary.chain_heads()
        counts = self._counts()
        for held in self._held:
            lack = _lack(held.message, heads[held.message.seat][0], counts)
            if lack is not None:
                return lack
        return None

    def heard(self, sender: int, seat: int) -> bool:
        """True if a message of ``seat`` of this round arrived from ``sender``'s node
        (taken in, waiting, or void beyond a cut)."""
        return self._slots.heard(sender, self._ctx.number, seat)

    # ------------------------------------------------------------------ internals

    def _hold(self, waiting: list[Held], held: Held) -> None:
        Slots.bound(len(self._held) + len(self._future), held.sender)
        waiting.append(held)

    def _counts(self) -> list[int]:
        """How many messages of each seat the primary session has this round; seats
        this node runs count as complete (the session checks echoes of them)."""
        sessions = self._sessions
        counts = [count for count, _ in sessions.primary.chain_heads()]
        return [c if seat not in sessions.by_seat else _ALL for seat, c in enumerate(counts)]

    def _due(self, held: Held, counts: list[int]) -> bool:
        """True if ``held`` can be taken in now: its slot is filled already by another
        node's message (the strict checks decide), or it is next in its seat's chain,
        every message its echo counts is in, and — for a seat whose key was rebuilt
        here — another waiting message depends on it."""
        msg = held.message
        own = self._sessions.primary.chain_heads()[msg.seat][0]
        if msg.seq <= own:
            return True
        if _lack(msg, own, counts) is not None:
            return False
        cuts = self._seats.cuts
        bound = cuts.bound(msg.seat)
        if (bound is not None and counts[msg.seat] != _ALL and cuts.cut(msg.seat) is None
                and not self._of_mine(msg)):
            return msg.seq <= bound  # its key is being rebuilt: beyond every share, wait
        if msg.seat in self._seats.recovered and cuts.cut(msg.seat) is None:
            return any(h.message.seat != msg.seat and len(h.message.echo) > msg.seat
                       and h.message.echo[msg.seat][0] >= msg.seq for h in self._held)
        return True

    def _of_mine(self, msg: Message) -> bool:
        """A share of the key of a seat this node runs: it never waits for a cut (this
        node's own share of the sender's key may be void, which it cannot know; its own
        seat is taken over, so what it took in beyond any cut voids its table)."""
        return isinstance(msg, ShareReveal) and self._seats.runner(msg.dealer) == self._ctx.me

    def _take(self, held: Held) -> None:
        """Give a message of this round to every local session, after checking that
        ``sender``'s node may send for its seat (the first message of a seat whose node
        is not decided yet decides it)."""
        sender, msg = held.sender, held.message
        if not self._seats.sends_for(sender, msg.seat):
            raise TableError(TableCode.SIGNED_AS, seat=sender, peer=sender, claimed=msg.seat)
        self._sessions.take_in(sender, msg)


def _lack(msg: Message, own: int, counts: list[int]) -> Missing | None:
    """What ``msg`` waits for, or None: the message before it in its seat's chain
    (``own`` = how many of that seat are in), or one its echo counts of another seat
    (``counts`` as :meth:`Inbox._counts`)."""
    if msg.seq > own + 1:
        return Missing(msg.round_no, msg.seat, own + 1, msg.seq)
    if len(msg.echo) == len(counts):
        for seat, (count, _) in enumerate(msg.echo):
            if seat != msg.seat and count > counts[seat]:
                return Missing(msg.round_no, seat, counts[seat] + 1, None)
    return None
