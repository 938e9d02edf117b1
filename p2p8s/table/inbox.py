"""The intake of crypto payloads: from which node, for which round, in which order.

Every ``crypto`` payload a peer sends is a mental-poker message (``p2p8s/crypto``).
:class:`Inbox` decodes it, checks it names a seat and this table, holds messages of the
next round until it starts (early senders are normal), refuses one of another round,
and checks that the sender's node may send for the message's seat this round
(:meth:`~p2p8s.table.seats.Seats.sends_for`) before every local session takes it in.
While a restored node catches up (``Ctx.catching_up``), copies of messages it already
has are skipped and a message after a gap in its seat's chain waits until the gap fills.
"""

from __future__ import annotations

from p2p8s.crypto.errors import CheatDetected
from p2p8s.crypto.messages import Message, decode
from p2p8s.crypto.session import chain_next as message_chain_next
from p2p8s.table.context import MAX_FUTURE, Ctx
from p2p8s.table.errors import TableCode, TableError
from p2p8s.table.seats import Seats
from p2p8s.table.sessions import Inbound, LocalSessions


class Inbox:
    """The crypto intake of this node (see the module docstring). No timer."""

    def __init__(self, ctx: Ctx, sessions: LocalSessions, seats: Seats) -> None:
        self._ctx = ctx
        self._sessions = sessions
        self._seats = seats
        self._future: list[Inbound] = []  # messages of the next round
        self.begin()

    def begin(self) -> None:
        """A new round: nothing waits for a gap."""
        self._gaps: list[Inbound] = []  # catching up: after a gap of their seat

    def get_timer(self) -> float | None:
        """The intake waits for messages, never for the clock."""
        return None

    def on_crypto(self, sender: int, body: bytes) -> None:
        """A ``crypto`` payload from ``sender``'s node. Raises TableError naming
        ``sender`` for one that cannot be taken in."""
        ctx = self._ctx
        try:
            msg = decode(body, sender=None)
        except CheatDetected as e:
            raise TableError(TableCode.BAD_MESSAGE, seat=sender, peer=sender, cause=e) from None
        if msg.seat >= ctx.players:
            raise TableError(TableCode.SIGNED_AS, seat=sender, peer=sender, claimed=msg.seat)
        if msg.table != ctx.config.table:
            raise TableError(TableCode.OTHER_TABLE, seat=sender, peer=sender)
        number = ctx.number
        if ctx.catching_up and number != 0 and msg.round_no < number:
            return  # a copy of a message of a round this node has finished
        if number == 0 or msg.round_no == number + 1:
            if len(self._future) >= MAX_FUTURE:
                raise TableError(TableCode.FLOOD, seat=sender, peer=sender)
            self._future.append(Inbound(sender, msg))
            return
        if msg.round_no != number:
            raise TableError(TableCode.WRONG_ROUND, seat=sender, peer=sender,
                             got=msg.round_no, round=number)
        self.take_in(sender, msg)

    def take_future(self) -> None:
        """A round starts: take in the messages that came early for it."""
        ctx = self._ctx
        waiting, self._future = self._future, []
        for item in waiting:
            if ctx.failed is not None:
                return
            if item.message.round_no != ctx.number:
                raise TableError(TableCode.EARLY_ROUND, seat=item.sender, peer=item.sender,
                                 got=item.message.round_no, round=ctx.number)
            self.take_in(item.sender, item.message)

    def take_in(self, sender: int, msg: Message) -> None:
        """Give a message of this round to every local session, after checking that
        ``sender``'s node may send for its seat (the first message of a seat whose node
        is not decided yet decides it)."""
        ctx = self._ctx
        if ctx.catching_up and not self._fresh(sender, msg):
            return
        if not self._seats.sends_for(sender, msg.seat):
            raise TableError(TableCode.SIGNED_AS, seat=sender, peer=sender, claimed=msg.seat)
        self._sessions.take_in(sender, msg)
        if self._gaps:
            number = ctx.number
            waiting, self._gaps = self._gaps, []
            for item in waiting:
                if ctx.failed is None and ctx.number == number:
                    self.take_in(item.sender, item.message)

    def _fresh(self, sender: int, msg: Message) -> bool:
        """While catching up: False for a copy of a message already taken in (skipped) or
        one after a gap of its seat (held until the gap fills)."""
        primary = self._sessions.primary
        count = primary.chain_heads()[msg.seat][0]
        if msg.seq <= count:
            head = message_chain_next(primary.chain_head(msg.seat, msg.seq - 1), msg.encode())
            return head != primary.chain_head(msg.seat, msg.seq)  # a differing one: fault
        if msg.seq > count + 1:
            self._gaps.append(Inbound(sender, msg))
            return False
        return True
