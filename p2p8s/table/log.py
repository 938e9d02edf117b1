"""The action log of a round: records in index order, checked, then applied (sans-IO).

Only the seat on turn authors the next action: an ``Act`` message carrying an
:class:`~p2p8s.table.actions.ActRecord` (round, index, chain hash of the log before it,
action, the positions shown by its ``PlayCards``). :class:`ActionLog` takes the records
the primary session announces (:meth:`~ActionLog.take_act`), holds those for later
indices, takes up the next one (:meth:`~ActionLog.step`: the author is on turn, ``prev``
follows the log, the cards match the shown positions, the engine accepts it — a
takeover's checks come from the ``vet`` hook), declares the crypto a ``Draw`` or
``Take`` needs (a reshuffle of the discards under a new epoch when the stock is empty,
R-RESHUFFLE, then the draw strips) or a ``Lucky`` needs (R-ZW-LUCKY: the ``open`` of the
stock's top, reshuffling first if the stock is empty; once its face is known, the
penalty draws when the card is taken) and, once every operation is done, applies the
action to the engine and returns an :class:`Applied` record.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

from p2p8s.cards import Card
from p2p8s.crypto.deck import Position, card_face
from p2p8s.crypto.session import Session
from p2p8s.engine import Action, Draw, Event, Lucky, Play, Round, Take
from p2p8s.errors import IllegalAction
from p2p8s.table.actions import ActRecord, Choice, chain_next, chain_start
from p2p8s.table.context import MAX_AHEAD, Ctx, Phase
from p2p8s.table.deck import TableDeck
from p2p8s.table.decoding import BadPayload
from p2p8s.table.errors import RuleBroken, TableCode, TableError
from p2p8s.table.seats import Seats
from p2p8s.table.sessions import LocalSessions

#: ``vet(seat, record, author, shown)``: the takeover's checks of a record for a seat
#: taken over (a person's signed choice, or the computer's move); raises TableError.
Vet = Callable[[int, ActRecord, int, Sequence[Position]], None]


@dataclass(frozen=True, slots=True)
class Buffered:
    """A record announced for a later place of the log: for ``seat``, sent by the
    session of ``by``, with the positions ``shown`` by its author's ``PlayCards`` since
    its previous action."""

    seat: int
    record: ActRecord
    data: bytes
    shown: list[Position]
    by: int


@dataclass(slots=True)
class Pending:
    """An action taken up from the log and waiting for its crypto to finish: the
    operations declared for it and the number of cards it draws into the hand. For a
    ``Lucky``: ``lucky`` the position opened as the lucky card, ``turned`` True once its
    face is known (and the penalty draws declared), ``stock`` and ``discard`` the
    positions after the open (R-ZW-LUCKY)."""

    seat: int
    record: ActRecord
    data: bytes
    ops: list[int] = field(default_factory=list)
    draws: int = 0
    lucky: Position | None = None
    turned: bool = False
    stock: list[Position] = field(default_factory=list)
    discard: list[Position] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Applied:
    """An action applied to the engine: ``seat``'s ``record`` and the engine ``event``;
    ``over``: the round ended with it."""

    seat: int
    record: ActRecord
    data: bytes
    event: Event
    over: bool


class ActionLog:
    """The current round's action log on this node (see the module docstring).

    ``round`` and ``deck`` are set once dealt (:meth:`start`); ``applied`` counts the
    actions applied, ``chain`` is the chain hash of the log so far, ``authored`` the last
    index this node sent an action for. No timer (``get_timer``).
    """

    def __init__(self, ctx: Ctx, sessions: LocalSessions, seats: Seats, vet: Vet) -> None:
        self._ctx = ctx
        self._sessions = sessions
        self._seats = seats
        self._vet = vet
        self.begin()

    def begin(self) -> None:
        """A new round: an empty log."""
        self.round: Round | None = None
        self.deck: TableDeck | None = None
        self.chain = b""
        self.applied = 0
        self.authored = -1
        #: records announced for later indices (or not yet taken up)
        self.buffer: list[Buffered] = []
        self.pending: Pending | None = None
        #: positions each seat showed (PlayCards) since its previous action
        self.played: dict[int, list[Position]] = {}
        #: positions a seat's own node showed (PlayCards) whose action is not applied
        #: yet: if the node goes before its Act, the takeover plays exactly these
        self.owner_shown: dict[int, list[Position]] = {}
        #: the round's actions so far, ``(seat, action)`` (the audit replays them)
        self.actions: list[tuple[int, Action]] = []

    def get_timer(self) -> float | None:
        """The log waits for records, never for the clock."""
        return None

    def start(self, rnd: Round, deck: TableDeck, round_id: bytes) -> None:
        """The round is dealt: play on ``rnd`` over ``deck``."""
        self.round, self.deck = rnd, deck
        self.chain = chain_start(self._ctx.config.table, self._ctx.number, round_id)

    # ------------------------------------------------------------------ queries

    def know(self, p: Position) -> Card | None:
        """The card at ``p`` if this node may see it."""
        return self._sessions.know(p)

    def ready_to_author(self, seat: int) -> bool:
        """True when ``seat`` is on turn and the log waits for its next action."""
        rnd = self.round
        return (self._ctx.failed is None and self._ctx.phase is Phase.PLAY
                and rnd is not None and not rnd.over and rnd.turn == seat
                and self.pending is None and self.authored < self.applied
                and not any(b.record.index == self.applied for b in self.buffer))

    def orphans(self, seat: int) -> list[Position]:
        """Positions ``seat``'s own node showed for a play whose Act never came (it went
        in between), while the computer plays the seat: the play must use them."""
        if seat not in self._seats.bots:
            return []
        return list(self.owner_shown.get(seat, []))

    def positions_for(self, seat: int, action: Action,
                      by: int | None = None) -> tuple[Position, ...]:
        """The crypto positions of the cards a play shows, in the play's order (``by``:
        the local session that shows them). Raises IllegalAction for a card the seat
        does not hold (``NOT_IN_HAND``)."""
        if not isinstance(action, Play):
            return ()
        know = self._sessions.know
        orphans = self.orphans(seat)
        if orphans and [know(p) for p in orphans] == list(action.cards):
            return tuple(orphans)  # shown already by the seat's own node
        by = seat if by is None else by
        hand = self._sessions.by_seat[by].hand_of(seat) or {}
        chosen: list[Position] = []
        for card in action.cards:
            p = next((p for p, k in sorted(hand.items())
                      if card_face(k, self._ctx.config.deck_size) == card
                      and p not in chosen), None)
            if p is None:
                raise IllegalAction(TableCode.NOT_IN_HAND, card=card)
            chosen.append(p)
        return tuple(chosen)

    # ------------------------------------------------------------------ inputs

    def on_played(self, seat: int, by: int, positions: Sequence[Position]) -> None:
        """A ``PlayCards`` of ``seat`` (shown by the session of ``by``) checked out."""
        self.played.setdefault(seat, []).extend(positions)
        if by == seat and seat not in self._seats.adopted:
            # shown by the seat's own node; an adopted seat's session is run by the
            # adopter, whose shown cards are the play it authors, never orphans
            self.owner_shown.setdefault(seat, []).extend(positions)

    def take_act(self, seat: int, data: bytes) -> None:
        """An ``Act`` of the session of ``seat`` (in its chain, after every earlier
        message of that seat): keep its record for its place of the log. Raises
        TableError naming ``seat`` for a record that cannot be in this log."""
        ctx = self._ctx
        try:
            record = ActRecord.decode(data)
        except BadPayload as e:
            raise TableError(TableCode.MALFORMED, seat=seat, peer=seat, cause=e) from None
        if (record.round_no != ctx.number or record.seat >= ctx.players
                or (record.seat != seat and record.seat not in self._seats.recovered
                    and not self._sessions.primary.recovering(record.seat))):
            raise TableError(TableCode.ACT_FOREIGN, seat=seat, peer=seat,
                             got=record.round_no, claimed=record.seat)
        if record.index < self.applied:
            raise TableError(TableCode.ACT_AGAIN, seat=seat, peer=seat, index=record.index)
        if record.index > self.applied + MAX_AHEAD or len(self.buffer) > MAX_AHEAD:
            raise TableError(TableCode.ACT_AHEAD, seat=seat, peer=seat)
        # the author's PlayCards before this Act (in its chain) belong to it: the session
        # hands an Act over only after every earlier message of its seat
        self.buffer.append(Buffered(seat=record.seat, record=record, data=data,
                                    shown=self.played.pop(record.seat, []), by=seat))

    def author(self, seat: int, action: Action, positions: tuple[Position, ...],
               by: int | None = None, choice: Choice | None = None) -> None:
        """Send ``seat``'s action from the local session ``by`` (``seat`` itself, or the
        proxy for a seat whose key was recovered), carrying the person's signed
        ``choice`` when it is one."""
        sessions = self._sessions
        by = seat if by is None else by
        session = sessions.by_seat[by]
        if positions and list(positions) != self.orphans(seat):
            sessions.emit(by, session.play(positions, seat=None if by == seat else seat))
        record = ActRecord(round_no=self._ctx.number, index=self.applied, seat=seat,
                           prev=self.chain, action=action, positions=positions, choice=choice)
        data = record.encode()
        self.authored = self.applied
        sessions.emit(by, session.announce(data))
        if by == sessions.primary_seat:
            self.take_act(by, data)
        sessions.drain()

    def step(self) -> Applied | bool:
        """Take up the next record or apply the pending action: an :class:`Applied`
        once applied, else True for progress, False when it must wait. Raises
        TableError (RuleBroken for an action out of turn) naming the seat that broke the
        log."""
        assert self.round is not None and self.deck is not None
        if self.pending is None:
            for b in self.buffer:
                if b.record.index < self.applied:
                    raise TableError(TableCode.SECOND_ACTION, seat=b.seat, player=b.seat,
                                     index=b.record.index)
            due = [b for b in self.buffer if b.record.index == self.applied]
            if not due:
                return False
            if any(b.seat != b.by and b.seat not in self._seats.recovered for b in due):
                return False  # sent for a seat whose key this node is still rebuilding
            turn = self.round.turn
            # the seat on turn first: any other action for this index is out of turn
            due.sort(key=lambda b: b.seat != turn)
            if len(due) > 1:
                seat = due[1].seat
                if seat == due[0].seat:
                    raise TableError(TableCode.TWO_ACTIONS, seat=seat, player=seat)
                raise RuleBroken(TableCode.OUT_OF_TURN, seat=seat, player=seat, turn=turn)
            self.buffer.remove(due[0])
            self._take_up(due[0])
            return True
        pending = self.pending
        if not all(self._sessions.all_done(op) for op in pending.ops):
            return False
        if pending.lucky is not None and not pending.turned:
            return self._turned(pending)
        return self._apply(pending)

    # ------------------------------------------------------------------ internals

    def _take_up(self, b: Buffered) -> None:
        """Check an action against the log and the engine and declare its crypto."""
        rnd, deck, seats, ctx = self.round, self.deck, self._seats, self._ctx
        assert rnd is not None and deck is not None
        seat, record, by, shown = b.seat, b.record, b.by, b.shown
        author = seats.runner(by)
        if author is None:  # cannot happen: the seat sent a message
            author = ctx.config.node_of(by)
        blame = seat if by == seat and seat not in seats.bots else author
        if by != seat and (seat not in seats.recovered or by != seats.proxy()):
            raise TableError(TableCode.NOT_ITS_SEAT, seat=author, peer=author, player=seat)
        if by == seat and seat in seats.recovered:
            raise TableError(TableCode.SEAT_TAKEN, seat=author, peer=author, player=seat,
                             proxy=seats.proxy())
        self._vet(seat, record, author, shown)
        if rnd.turn != seat:
            raise RuleBroken(TableCode.OUT_OF_TURN, seat=blame, player=seat, turn=rnd.turn,
                             action=record.action)
        if record.prev != self.chain:
            raise TableError(TableCode.NOT_FOLLOWING, seat=blame, player=seat)
        action = record.action
        know = self._sessions.know
        if isinstance(action, Play):
            faces = [know(p) for p in record.positions]
            if (len(record.positions) != len(action.cards)
                    or sorted(record.positions) != sorted(shown)
                    or faces != list(action.cards)):
                raise RuleBroken(TableCode.CARDS_DIFFER, seat=blame, player=seat,
                                 cards=list(action.cards))
        elif record.positions or shown:
            raise RuleBroken(TableCode.SHOWED_UNPLAYED, seat=blame, player=seat)
        try:
            rnd.check(action)
        except IllegalAction as e:
            raise RuleBroken(TableCode.ILLEGAL_MOVE, seat=blame, rule=e.rule, player=seat,
                             action=record.action, cause=e) from None
        pending = Pending(seat, record, b.data, stock=list(deck.stock),
                          discard=list(deck.discard))
        self.pending = pending
        if isinstance(action, Lucky):
            self._declare_lucky(pending)
            return
        count = 1 if isinstance(action, Draw) else rnd.pending_draw if isinstance(
            action, Take) else 0
        if count:
            self._declare_draws(pending, count)

    def _reshuffle(self, pending: Pending) -> None:
        """R-RESHUFFLE: the discards but the top become the stock of a new epoch."""
        deck, sessions = self.deck, self._sessions
        assert deck is not None
        old = pending.discard[:-1]
        epoch = sessions.primary.epochs
        sessions.each(partial(Session.reshuffle, positions=old))
        pending.stock = [(epoch, i) for i in range(len(old))]
        deck.refills.append(list(pending.stock))
        pending.discard = pending.discard[-1:]

    def _declare_lucky(self, pending: Pending) -> None:
        """R-ZW-LUCKY: open the stock's top for everyone, as the starter is opened
        (reshuffling first when the stock is empty, as a draw does; the engine checked
        a card can be drawn). A buried starter on top is face up already."""
        deck, sessions = self.deck, self._sessions
        assert deck is not None
        if not pending.stock:
            self._reshuffle(pending)
        p = pending.lucky = pending.stock.pop(0)
        if p not in deck.faceup:
            pending.ops.append(sessions.primary.ops)
            sessions.each(partial(Session.open, positions=[p]))

    def _turned(self, pending: Pending) -> bool:
        """The lucky card's open is done: its face goes to the deck (the engine turns
        it), and when it is taken with the penalty (neither a block nor a penalty card,
        R-ZW-LUCKY) the penalty draws are declared — the same on every node, since
        everyone sees the face. False while the face is unknown (it decoded to no card:
        the session's dispute ends the round)."""
        rnd, deck = self.round, self.deck
        assert rnd is not None and deck is not None and pending.lucky is not None
        card = deck.faceup.get(pending.lucky)
        if card is None:
            k = self._sessions.primary.known_card(pending.lucky)
            if k is None:
                return False
            card = card_face(k, self._ctx.config.deck_size)
            deck.faceup[pending.lucky] = card
        pending.turned = True
        rule = rnd.rules.rule_table.rule(card)
        if not (rule.block or rule.penalty):
            pending.draws = 1  # the lucky card itself, then the penalty
            self._declare_draws(pending, rnd.pending_draw)
        return True

    def _declare_draws(self, pending: Pending, count: int) -> None:
        """R-RESHUFFLE / R-COUNTER: which positions this action will draw from
        ``pending.stock``, with reshuffles; consecutive hidden draws are one ``deal``
        operation."""
        rnd, deck, sessions = self.round, self.deck, self._sessions
        assert rnd is not None and deck is not None
        primary = sessions.primary
        batch: list[Position] = []

        def flush() -> None:
            if batch:
                items: list[tuple[Position, int | None]] = [(p, pending.seat) for p in batch]
                pending.ops.append(primary.ops)
                sessions.each(lambda s: s.deal(items))
                batch.clear()

        for _ in range(count):
            if not pending.stock:
                if not (rnd.rules.reshuffle and len(pending.discard) > 1):
                    break
                flush()
                self._reshuffle(pending)
            p = pending.stock.pop(0)
            pending.draws += 1
            if p not in deck.faceup:
                batch.append(p)
        flush()

    def _apply(self, pending: Pending) -> Applied:
        rnd, deck = self.round, self.deck
        assert rnd is not None and deck is not None
        seat, record = pending.seat, pending.record
        before = len(deck.drawn)
        event = rnd.apply(record.action)
        self.owner_shown.pop(seat, None)  # its shown cards are played (or it drew/passed)
        if pending.lucky is not None:  # R-ZW-LUCKY: the turned card, played or taken
            if deck.turned != pending.lucky or event.lucky is None:
                raise TableError(TableCode.DREW_OTHER, seat=None)
            deck.turned = None
            if event.lucky_played:
                deck.discard.append(pending.lucky)
            else:  # a face-up card in the hand: everyone saw it
                deck.drawn.insert(before, (pending.lucky, seat))
                self._sessions.give(pending.lucky, seat)
        if len(event.drawn) != pending.draws or len(deck.drawn) - before != pending.draws:
            raise TableError(TableCode.DREW_OTHER, seat=None)
        if isinstance(event.action, Play):
            left = list(record.positions)
            know = self._sessions.know
            for card in event.action.cards:
                p = next(p for p in left if know(p) == card)
                left.remove(p)
                deck.discard.append(p)
        self.pending = None
        self.chain = chain_next(self.chain, pending.data)
        self.applied += 1
        self.actions.append((seat, record.action))
        return Applied(seat=seat, record=record, data=pending.data, event=event, over=rnd.over)

    def open_hand(self, seat: int, shown: Sequence[Position]) -> None:
        """Put the open hand of a seat taken over into the engine (its cards in position
        order, the same on every node), and the card it drew this turn. Raises
        TableError (no seat to blame) when the open hand does not fit the game."""
        rnd, deck, sessions = self.round, self.deck, self._sessions
        assert rnd is not None and deck is not None
        primary = sessions.primary
        hand = primary.hand_of(seat)
        if hand is None:
            return
        if None in rnd.hands[seat]:
            # cards shown by a PlayCards whose action is not applied yet are still held
            held = dict(hand)
            for p in [*shown, *self.played.get(seat, [])]:
                k = primary.known_card(p)
                if k is not None:
                    held[p] = k
            size = self._ctx.config.deck_size
            cards: list[Card | None] = [card_face(k, size) for _, k in sorted(held.items())]
            if len(cards) != len(rnd.hands[seat]):
                raise TableError(TableCode.OPEN_HAND, seat=None, player=seat)
            rnd.hands[seat] = cards
        if rnd.turn == seat and rnd.drawn and rnd.last_drawn is None:
            mine = [p for p, s in deck.drawn if s == seat]
            if mine:
                rnd.last_drawn = sessions.know(mine[-1])
