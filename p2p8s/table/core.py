"""The replicated table (sans-IO): the mental-poker round and the rules engine on every node.

A :class:`Table` is one node's copy of the game. Payloads from peers go in with
:meth:`Table.receive`, the local player's moves with :meth:`Table.act`, the clock with
:meth:`Table.handle_timer`; every call returns an :class:`Output` — payloads to send
(:class:`Outgoing`) and events for the client (:mod:`p2p8s.table.events`). It never does
I/O and never reads a clock: ``now`` is an argument, randomness comes from ``rand``.

How a round runs (protocol/table.md has the full flow):

1. **Crypto start.** Each seat this node plays (its own, and on the host's node the
   computer seats) gets a :class:`~p2p8s.crypto.session.Session`; nonces, keys and the
   epoch-0 shuffle run by themselves. Round 1's first dealer comes from the joint round
   id (R-DEALER); later rounds rotate (:class:`~p2p8s.match.Match`).
2. **Deal.** Every node declares the same batched deal of positions ``(0, 0..H-1)`` in
   R-DEALORDER, then opens the next position as the starter; a forbidden starter is
   buried at ``len(stock)//2`` and the next one opened (R-STARTER). Then the engine deals
   from a :class:`~p2p8s.table.deck.TableDeck` that replays exactly those positions.
3. **Actions.** Only the seat on turn authors the next action: an ``Act`` message (inside
   the crypto chain, so it is ordered, hash-chained and echoed) carrying the round, its
   index in the log, the chain hash of the log before it, the action and — for a play —
   the positions just shown by its ``PlayCards`` proof. Every node takes up the actions
   in index order; a ``Draw`` or ``Take`` first runs its crypto (a reshuffle of the known
   discards under a new epoch when the stock is empty, R-RESHUFFLE, then the draw
   strips), and only then is the action applied to the engine. Anything wrong — an
   author not on turn, a broken chain, an illegal action (engine IllegalAction), cards
   that do not match the proof, a bad proof (CheatDetected) — is a
   :class:`~p2p8s.table.events.Fault` naming the signer, and the table stops.
4. **Round end.** Every seat reveals its key; the node audits the round (the crypto audit
   and the replay of every action with every card known, R-AUDIT), shows the open hands,
   scores (R-PTS-*) and starts the next round, until the match is over.

Timers (R-TIMER): when the local seat is on turn, :meth:`Table.get_timer` is its
deadline; :meth:`Table.handle_timer` after it lets the computer play for the seat.
Computer seats run by this node act at once.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import partial

from p2p8s.bots.base import View, view_of
from p2p8s.bots.registry import get_bot
from p2p8s.cards import Card, Rank
from p2p8s.crypto.audit import check_claims
from p2p8s.crypto.deck import Position, card_face
from p2p8s.crypto.errors import CheatDetected
from p2p8s.crypto.errors import Fault as CryptoFault
from p2p8s.crypto.events import Announced, CardsPlayed, Disputed
from p2p8s.crypto.events import Output as CryptoOutput
from p2p8s.crypto.group import Rand
from p2p8s.crypto.messages import Message, decode
from p2p8s.crypto.session import Session, SessionConfig
from p2p8s.engine import Action, Draw, EndedBy, Play, Round, Take
from p2p8s.errors import IllegalAction, LocalError, MalformedInput
from p2p8s.match import Match, RoundResult
from p2p8s.rules import hand_size
from p2p8s.table import events as tev
from p2p8s.table.actions import (
    CRYPTO,
    SETUP,
    STOP,
    ActRecord,
    StopNotice,
    chain_next,
    chain_start,
)
from p2p8s.table.config import TableConfig
from p2p8s.table.deck import TableDeck
from p2p8s.table.text import describe

#: The computer player that plays for a human seat whose timer ran out (R-TIMER).
STAND_IN = "Max"
DEALER_TAG = b"p2p8s/v1/dealer"
TRANSCRIPT_TAG = b"p2p8s/v1/transcript"
BOT_TAG = b"p2p8s/v1/bot"
#: ``me`` of a passive observer table (plays no seat; the offline log verifier).
OBSERVER = -1
#: Most actions a node holds for later indices, and most messages for the next round.
MAX_AHEAD = 64
MAX_FUTURE = 20_000


@dataclass(frozen=True, slots=True)
class Outgoing:
    """A payload to send: to seat ``to``'s node, or (``None``) to every other node."""

    to: int | None
    payload: bytes


@dataclass(frozen=True, slots=True)
class Output:
    """What one call of the table produced: payloads to send, in order, and events."""

    messages: list[Outgoing] = field(default_factory=list)
    events: list[tev.Event] = field(default_factory=list)


class Phase(StrEnum):
    """Where the current round is."""

    CRYPTO = "crypto"  #: nonces, keys, shuffle; then the deal and the starter
    PLAY = "play"  #: actions
    END = "end"  #: keys revealed, waiting to audit
    DONE = "done"  #: the match is over
    FAILED = "failed"  #: a fault stopped the table


def first_dealer(round_id: bytes, players: int) -> int:
    """R-DEALER from the joint round id of round 1: ``H(tag ‖ round_id) mod players``."""
    digest = hashlib.sha512(DEALER_TAG + round_id).digest()
    return int.from_bytes(digest[:8], "big") % players


def deal_order(sizes: Sequence[int], dealer: int) -> list[int]:
    """The seat receiving each dealt card, top of the stock first (R-DEALORDER)."""
    n = len(sizes)
    remaining = list(sizes)
    seat = (dealer + 1) % n
    order = []
    while any(remaining):
        if remaining[seat]:
            order.append(seat)
            remaining[seat] -= 1
        seat = (seat + 1) % n
    return order


def forbidden_starter(card: Card, action_cards: bool) -> bool:
    """R-STARTER: an 8 never starts the pile; with action cards neither do 2, Q, A."""
    banned = {Rank.EIGHT, Rank.TWO, Rank.QUEEN, Rank.ACE} if action_cards else {Rank.EIGHT}
    return card.rank in banned


class _Pending:
    """An action taken up from the log and waiting for its crypto to finish."""

    __slots__ = ("data", "draws", "ops", "record", "seat")

    def __init__(self, seat: int, record: ActRecord, data: bytes) -> None:
        self.seat = seat
        self.record = record
        self.data = data
        self.ops: list[int] = []
        self.draws = 0


class _RoundState:
    """Everything of one round on this node."""

    def __init__(self, number: int, sessions: dict[int, Session]) -> None:
        self.number = number
        self.sessions = sessions
        self.phase = Phase.CRYPTO
        self.round_id: bytes | None = None
        self.dealer = 0
        self.sizes: list[int] = []
        self.wild: list[int] | None = None
        self.hand_op: int | None = None
        self.sim: list[Position] = []  # the stock during the starter search, top first
        self.faceup: dict[Position, Card] = {}
        self.opening: tuple[int, Position] | None = None
        self.round: Round | None = None
        self.deck: TableDeck | None = None
        self.chain = b""
        self.applied = 0
        self.authored = -1
        #: actions received for later indices: (seat, record, bytes, positions its author
        #: showed with PlayCards since its previous action)
        self.buffer: list[tuple[int, ActRecord, bytes, list[Position]]] = []
        self.pending: _Pending | None = None
        self.played: dict[int, list[Position]] = {}
        self.actions: list[tuple[int, Action]] = []
        self.deadline: float | None = None
        self.stood_in = False
        self.revealed = False


class Table:
    """One node's replicated table (see the module docstring).

    ``config`` is the final roster and rules, ``me`` this node's seat, ``rand(n)`` the
    source of secret randomness (``os.urandom`` in production), ``seed`` seeds the
    computer players this node runs (deterministic in tests). ``me=OBSERVER`` makes a
    passive table that plays no seat and sends nothing: it checks every message and
    action it is given and audits each round (:mod:`p2p8s.table.logverify`).
    Raises MalformedInput if ``me`` is not a human seat.
    """

    def __init__(self, config: TableConfig, *, me: int, rand: Rand, seed: bytes = b"") -> None:
        self.observing = me == OBSERVER
        if not self.observing and (not 0 <= me < config.players or config.computer(me)):
            raise MalformedInput(f"seat {me} is not a human seat of this table")
        self.config = config
        self.me = me
        self._rand = rand
        self._seed = seed
        self._local = () if self.observing else config.local_seats(me)
        self.match = Match(config.rules, players=config.players, dealer=0,
                           target=config.target, solo=False)
        self.failed: tev.Fault | None = None
        self._rs: _RoundState | None = None
        self._now = 0.0
        self._out: list[Outgoing] = []
        self._events: list[tev.Event] = []
        self._queue: list[tuple[int, Message]] = []
        self._future: list[tuple[int, Message]] = []
        self._transcript = hashlib.sha512(TRANSCRIPT_TAG + config.to_bytes()).digest()[:32]
        self._entries = 0
        self._started = False

    # ------------------------------------------------------------------ public state

    @property
    def names(self) -> tuple[str, ...]:
        """Player names by seat."""
        return self.config.names

    @property
    def round(self) -> Round | None:
        """The engine round as this node sees it, once dealt: other seats' cards are
        ``None`` — except, on the host's node, the computer seats' cards (it runs them).
        Render the local seat with :meth:`view`."""
        return self._rs.round if self._rs is not None else None

    @property
    def round_number(self) -> int:
        """The number of the round being played (0 before :meth:`start`)."""
        return self._rs.number if self._rs is not None else 0

    @property
    def phase(self) -> Phase:
        """Where the table is."""
        if self.failed is not None:
            return Phase.FAILED
        if self.match.over:
            return Phase.DONE
        return self._rs.phase if self._rs is not None else Phase.CRYPTO

    @property
    def finished(self) -> bool:
        """True once the match is over (every round audited)."""
        return self.match.over

    @property
    def deadline(self) -> float | None:
        """When the turn of the seat on turn runs out (``None``: no human turn running)."""
        rs = self._rs
        return rs.deadline if rs is not None and rs.phase is Phase.PLAY else None

    @property
    def my_turn(self) -> bool:
        """True when :meth:`act` may be called now."""
        return self._ready_to_author(self.me)

    @property
    def transcript(self) -> bytes:
        """The chain hash over the config, every applied action and every audited round's
        message chains (32 bytes): equal on every honest node at the same point."""
        return self._transcript

    @property
    def transcript_index(self) -> int:
        """How many entries :attr:`transcript` covers."""
        return self._entries

    def view(self) -> View | None:
        """What the local seat sees, for rendering (``None`` before the first deal)."""
        rnd = self.round
        return view_of(rnd, self.me, self.match) if rnd is not None else None

    def legal_actions(self) -> list[Action]:
        """The local seat's legal actions now (empty when it may not act)."""
        rnd = self.round
        return rnd.legal_actions() if rnd is not None and self.my_turn else []

    def get_timer(self) -> float | None:
        """When :meth:`handle_timer` must be called next (the local turn's deadline)."""
        rs = self._rs
        if rs is None or not self._ready_to_author(self.me):
            return None
        return rs.deadline

    # ------------------------------------------------------------------ inputs

    def start(self, now: float) -> Output:
        """Begin the match: send this node's setup and start round 1's crypto."""
        if self._started:
            raise MalformedInput("the table has already started")
        self._started = True
        self._now = now
        if not self.observing:
            self._out.append(Outgoing(None, bytes([SETUP]) + self.config.to_bytes()))
        self._guarded(self._begin_round)
        return self._flush()

    def receive(self, sender: int, payload: bytes, now: float) -> Output:
        """A payload from the node of seat ``sender`` (authenticated by the wire layer)."""
        self._now = max(self._now, now)
        if self.failed is None and not self.match.over:
            self._guarded(lambda: self._receive(sender, payload))
        return self._flush()

    def act(self, action: Action, now: float) -> Output:
        """The local player's action. Raises IllegalAction (nothing changes) when it is
        not this seat's turn, or the action breaks a rule (the message names the rule)."""
        self._now = max(self._now, now)
        rs = self._rs
        if rs is None or rs.round is None or not self._ready_to_author(self.me):
            raise IllegalAction("it is not your turn")
        rs.round.check(action)
        positions = self._positions_for(self.me, action)
        self._guarded(lambda: self._author(self.me, action, positions))
        return self._flush()

    def handle_timer(self, now: float) -> Output:
        """Let the clock run to ``now``: past the local deadline the computer plays."""
        self._now = max(self._now, now)
        if self.failed is None and not self.match.over:
            self._guarded(self._advance)
        return self._flush()

    # ------------------------------------------------------------------ plumbing

    def _flush(self) -> Output:
        out = Output(self._out, self._events)
        self._out, self._events = [], []
        return out

    def _guarded(self, fn: Callable[[], object]) -> None:
        """Run ``fn`` and every step it enables; a detected fault stops the table."""
        try:
            fn()
            self._advance()
        except CheatDetected as e:
            self._fault(e.seat, str(e))
        except LocalError as e:  # never expected: stop the table rather than the runner
            self._fault(None, f"this node could not go on: {e}")

    def _fault(self, seat: int | None, message: str) -> None:
        if self.failed is not None:
            return
        self.failed = tev.Fault(seat, message)
        self._events.append(self.failed)
        self._queue.clear()
        rs = self._rs
        if not self.observing and rs is not None:
            # tell the others why this node stopped, with its view of every chain
            heads = self._primary.chain_heads()
            notice = StopNotice(round_no=rs.number, seat=seat, message=message, echo=heads)
            self._out.append(Outgoing(None, bytes([STOP]) + notice.encode()))

    def _drain(self) -> None:
        """Deliver queued messages of local sessions to the other local sessions."""
        rs = self._rs
        while self._queue and rs is not None and self.failed is None:
            src, msg = self._queue.pop(0)
            for seat, session in rs.sessions.items():
                if seat != src and msg.round_no == rs.number:
                    self._emit_quiet(seat, session.receive(msg))

    def _emit_quiet(self, seat: int, out: CryptoOutput) -> None:
        for msg in out.messages:
            self._out.append(Outgoing(None, bytes([CRYPTO]) + msg.encode()))
            self._queue.append((seat, msg))
        if seat == self.me:
            for ev in out.events:
                self._on_crypto_event(ev)

    def _each(self, call: Callable[[Session], CryptoOutput]) -> None:
        """Run ``call(session)`` on every local session, own seat first."""
        rs = self._rs
        assert rs is not None
        for seat in sorted(rs.sessions, key=lambda s: s != self.me):
            self._emit_quiet(seat, call(rs.sessions[seat]))
        self._drain()

    def _receive(self, sender: int, payload: bytes) -> None:
        if (not 0 <= sender < self.config.players or self.config.computer(sender)
                or sender == self.me):
            raise CheatDetected(f"payload from seat {sender}, which has no other node",
                                seat=None, fault=CryptoFault.MALFORMED)
        if not payload:
            self._fault(sender, f"{self.names[sender]} sent an empty payload")
            return
        kind, body = payload[0], payload[1:]
        if kind == SETUP:
            if body != self.config.to_bytes():
                self._fault(sender, f"{self.names[sender]} plays under a different table "
                                    "setup (roster or rules)")
            return
        if kind == STOP:
            self._on_stop(sender, body)
            return
        if kind != CRYPTO:
            self._fault(sender, f"{self.names[sender]} sent an unknown payload kind {kind}")
            return
        try:
            msg = decode(body, sender=None)
        except CheatDetected as e:
            raise CheatDetected(f"{self.names[sender]} sent a {e}", seat=sender,
                                fault=CryptoFault.MALFORMED) from None
        if msg.seat >= self.config.players or self.config.node_of(msg.seat) != sender:
            self._fault(sender, f"{self.names[sender]} sent a message signed as seat "
                                f"{msg.seat}")
            return
        if msg.table != self.config.table:
            self._fault(sender, f"{self.names[sender]} sent a message for another table")
            return
        rs = self._rs
        if rs is None or msg.round_no == rs.number + 1:
            if len(self._future) >= MAX_FUTURE:
                self._fault(sender, f"{self.names[sender]} floods messages for a later round")
                return
            self._future.append((sender, msg))
            return
        if msg.round_no != rs.number:
            self._fault(sender, f"{self.names[sender]} sent a message of round "
                                f"{msg.round_no} during round {rs.number} (replayed?)")
            return
        for seat in sorted(rs.sessions, key=lambda s: s != self.me):
            self._emit_quiet(seat, rs.sessions[seat].receive(msg))
        self._drain()

    def _on_stop(self, sender: int, body: bytes) -> None:
        """A peer stopped on a fault: check its chain view (an equivocation shows here
        with this node's own evidence), else stop too, reporting its verdict."""
        name = self.names[sender]
        try:
            notice = StopNotice.decode(body)
        except MalformedInput as e:
            self._fault(sender, f"{name} sent a {e}")
            return
        rs = self._rs
        if rs is not None and notice.round_no == rs.number and notice.echo:
            self._primary.check_echo(sender, notice.echo)
        accused = notice.seat if notice.seat is not None and 0 <= notice.seat < len(
            self.names) else None
        self._fault(accused, f"{name} stopped the game: {notice.message}")

    # ------------------------------------------------------------------ rounds

    def _begin_round(self) -> None:
        number = self.match.round_number
        n = self.config.players
        sessions = {
            seat: Session(SessionConfig(table=self.config.table, round_no=number, players=n,
                                        seat=seat, deck_size=self.config.deck_size),
                          self._rand)
            for seat in self._local
        }
        if self.observing:
            sessions[OBSERVER] = Session(SessionConfig(
                table=self.config.table, round_no=number, players=n, seat=0,
                deck_size=self.config.deck_size, observer=True), self._rand)
        self._rs = _RoundState(number, sessions)
        if not self.observing:
            self._each(lambda s: s.start_round())
        waiting, self._future = self._future, []
        for sender, msg in waiting:
            if self.failed is not None:
                return
            rs = self._rs
            if msg.round_no != rs.number:
                self._fault(sender, f"{self.names[sender]} sent a message of round "
                                    f"{msg.round_no} before round {rs.number}")
                return
            for seat in sorted(rs.sessions, key=lambda s: s != self.me):
                self._emit_quiet(seat, rs.sessions[seat].receive(msg))
            self._drain()

    def _advance(self) -> None:
        """Take every step that is possible now."""
        progress = True
        while progress and self.failed is None and self._rs is not None:
            rs = self._rs
            if rs.phase is Phase.CRYPTO:
                progress = self._deal_step(rs)
            elif rs.phase is Phase.PLAY:
                progress = self._play_step(rs) or self._auto_step(rs)
            elif rs.phase is Phase.END:
                progress = self._end_step(rs)
            else:
                progress = False

    @property
    def _primary(self) -> Session:
        assert self._rs is not None
        return self._rs.sessions[self.me]

    def _all_done(self, op: int) -> bool:
        assert self._rs is not None
        return all(s.op_done(op) for s in self._rs.sessions.values())

    def _deal_step(self, rs: _RoundState) -> bool:
        primary = self._primary
        if rs.round_id is None:
            if primary.round_id is None:
                return False
            rs.round_id = primary.round_id
            if rs.number == 1:
                self.match.dealer = first_dealer(rs.round_id, self.config.players)
            rs.dealer = self.match.dealer
            rules, n = self.config.rules, self.config.players
            if rules.countdown:
                rs.sizes = list(self.match.numbers)
                rs.wild = list(self.match.numbers)
            else:
                rs.sizes = [hand_size(rules, n)] * n
            rs.chain = chain_start(self.config.table, rs.number, rs.round_id)
            return True
        if not all(s.epoch_size(0) for s in rs.sessions.values()):
            return False
        if rs.hand_op is None:
            order = deal_order(rs.sizes, rs.dealer)
            items: list[tuple[Position, int | None]] = [
                ((0, i), seat) for i, seat in enumerate(order)]
            rs.hand_op = primary.ops
            self._each(lambda s: s.deal(items))
            rs.sim = [(0, i) for i in range(len(order), self.config.deck_size)]
            return True
        # R-STARTER: open the top of the stock until a card may start the pile
        if rs.opening is not None:
            op, p = rs.opening
            if not self._all_done(op):
                return False
            k = primary.known_card(p)
            if k is None:  # it decoded to no card: disputed, the audit will tell
                rs.phase = Phase.END
                return True
            rs.faceup[p] = card_face(k)
            rs.opening = None
        for _ in range(len(rs.sim) + 1):
            top = rs.sim[0]
            if top not in rs.faceup:
                rs.opening = (primary.ops, top)
                self._each(partial(Session.open, positions=[top]))
                return True
            if not forbidden_starter(rs.faceup[top], self.config.rules.action_cards):
                break
            rs.sim.pop(0)
            rs.sim.insert(len(rs.sim) // 2, top)
        else:
            raise CheatDetected("no card in the stock can start the discard pile", seat=None,
                                fault=CryptoFault.UNEXPECTED)
        if not self._all_done(rs.hand_op):
            return False
        self._deal_engine(rs)
        return True

    def _deal_engine(self, rs: _RoundState) -> None:
        deck = TableDeck([(0, i) for i in range(self.config.deck_size)], know=self._know,
                         give=self._give)
        deck.faceup = dict(rs.faceup)
        rs.deck = deck
        rs.round = self.match.start_round(deck)
        assert deck.turned is not None
        deck.discard = [deck.turned]
        deck.turned = None
        deck.drawn.clear()
        rs.phase = Phase.PLAY
        self._events.append(tev.RoundStarted(rs.number, rs.dealer))
        self._start_turn(rs)

    def _know(self, p: Position) -> Card | None:
        assert self._rs is not None
        for s in self._rs.sessions.values():
            k = s.known_card(p)
            if k is not None:
                return card_face(k)
        return None

    def _give(self, p: Position, seat: int) -> None:
        self._each(lambda s: s.give(p, seat))

    def _start_turn(self, rs: _RoundState) -> None:
        assert rs.round is not None
        seat = rs.round.turn
        rs.deadline = (None if self.config.computer(seat)
                       else self._now + self.config.turn_timeout_s)
        rs.stood_in = False
        self._events.append(tev.TurnStarted(seat, rs.deadline))

    # ------------------------------------------------------------------ actions

    def _on_crypto_event(self, ev: object) -> None:
        rs = self._rs
        if rs is None:
            return
        if isinstance(ev, CardsPlayed):
            rs.played.setdefault(ev.seat, []).extend(p for p, _, _ in ev.items)
        elif isinstance(ev, Announced):
            self._take_act(ev.seat, ev.data)
        elif isinstance(ev, Disputed) and rs.phase in (Phase.CRYPTO, Phase.PLAY):
            # a card that decodes to nothing: end the round at once; the audit names
            # the cheater (a bad strip, or a false dispute)
            rs.phase = Phase.END

    def _take_act(self, seat: int, data: bytes) -> None:
        rs = self._rs
        assert rs is not None
        name = self.names[seat]
        try:
            record = ActRecord.decode(data)
        except MalformedInput as e:
            raise CheatDetected(f"{name}: {e}", seat=seat,
                                fault=CryptoFault.MALFORMED) from None
        if record.round_no != rs.number or record.seat != seat:
            raise CheatDetected(f"{name} sent an action of round {record.round_no} for seat "
                                f"{record.seat}", seat=seat, fault=CryptoFault.REPLAY)
        if record.index < rs.applied:
            raise CheatDetected(f"{name} sent action {record.index} again (replayed)",
                                seat=seat, fault=CryptoFault.REPLAY)
        if record.index > rs.applied + MAX_AHEAD or len(rs.buffer) > MAX_AHEAD:
            raise CheatDetected(f"{name} sent actions far ahead of the log", seat=seat,
                                fault=CryptoFault.UNEXPECTED)
        # the author's PlayCards before this Act (in its chain) belong to it: the session
        # hands an Act over only after every earlier message of its seat
        rs.buffer.append((seat, record, data, rs.played.pop(seat, [])))

    def _ready_to_author(self, seat: int) -> bool:
        rs = self._rs
        return (self.failed is None and rs is not None and rs.phase is Phase.PLAY
                and rs.round is not None and not rs.round.over and rs.round.turn == seat
                and seat in rs.sessions and rs.pending is None and rs.authored < rs.applied
                and not any(b[1].index == rs.applied for b in rs.buffer))

    def _positions_for(self, seat: int, action: Action) -> tuple[Position, ...]:
        """The crypto positions of the cards a play shows, in the play's order."""
        if not isinstance(action, Play):
            return ()
        assert self._rs is not None
        hand = self._rs.sessions[seat].hand()
        chosen: list[Position] = []
        for card in action.cards:
            p = next((p for p, k in sorted(hand.items())
                      if card_face(k) == card and p not in chosen), None)
            if p is None:
                raise IllegalAction(f"{card} is not in your hand")
            chosen.append(p)
        return tuple(chosen)

    def _author(self, seat: int, action: Action, positions: tuple[Position, ...]) -> None:
        rs = self._rs
        assert rs is not None
        session = rs.sessions[seat]
        if positions:
            self._emit_quiet(seat, session.play(positions))
        record = ActRecord(round_no=rs.number, index=rs.applied, seat=seat, prev=rs.chain,
                           action=action, positions=positions)
        data = record.encode()
        rs.authored = rs.applied
        self._emit_quiet(seat, session.announce(data))
        if seat == self.me:
            self._take_act(seat, data)
        self._drain()

    def _auto_step(self, rs: _RoundState) -> bool:
        """Computer seats of this node act; past the deadline the computer plays for us."""
        assert rs.round is not None
        seat = rs.round.turn
        if not self._ready_to_author(seat):
            return False
        if seat == self.me:
            if rs.deadline is None or self._now < rs.deadline:
                return False
            if not rs.stood_in:
                rs.stood_in = True
                self._events.append(tev.Info("the computer played for you"))
            bot = get_bot(STAND_IN)
        else:
            name = self.config.seats[seat].computer
            assert name is not None
            bot = get_bot(name)
        legal = rs.round.legal_actions()
        action = bot.choose(view_of(rs.round, seat, self.match), legal, self._bot_rng(seat))
        self._author(seat, action, self._positions_for(seat, action))
        return True

    def _bot_rng(self, seat: int) -> random.Random:
        rs = self._rs
        assert rs is not None
        data = (BOT_TAG + self._seed + rs.number.to_bytes(4, "big")
                + rs.applied.to_bytes(4, "big") + bytes([seat]))
        return random.Random(int.from_bytes(hashlib.sha256(data).digest(), "big"))

    def _play_step(self, rs: _RoundState) -> bool:
        assert rs.round is not None and rs.deck is not None
        if rs.pending is None:
            for seat, record, *_ in rs.buffer:
                if record.index < rs.applied:
                    raise CheatDetected(f"{self.names[seat]} sent a second action for place "
                                        f"{record.index} of the log", seat=seat,
                                        fault=CryptoFault.REPLAY)
            due = [b for b in rs.buffer if b[1].index == rs.applied]
            if not due:
                return False
            turn = rs.round.turn
            # the seat on turn first: any other action for this index is out of turn
            due.sort(key=lambda b: b[0] != turn)
            if len(due) > 1:
                seat = due[1][0]
                why = ("sent two actions for the same place in the log" if seat == due[0][0]
                       else f"acted out of turn: it is {self.names[turn]}'s turn")
                raise CheatDetected(f"{self.names[seat]} {why}", seat=seat,
                                    fault=CryptoFault.UNEXPECTED)
            rs.buffer.remove(due[0])
            self._take_up(rs, *due[0])
            return True
        pending = rs.pending
        if not all(self._all_done(op) for op in pending.ops):
            return False
        self._apply(rs, pending)
        return True

    def _take_up(self, rs: _RoundState, seat: int, record: ActRecord, data: bytes,
                 shown: list[Position]) -> None:
        """Check an action against the log and the engine and declare its crypto."""
        rnd, deck = rs.round, rs.deck
        assert rnd is not None and deck is not None
        name = self.names[seat]

        def bad(why: str, kind: str = "UNEXPECTED") -> CheatDetected:
            return CheatDetected(f"{name} {why}", seat=seat, fault=CryptoFault[kind])

        if rnd.turn != seat:
            raise bad(f"acted ({record.action}) out of turn: it is "
                      f"{self.names[rnd.turn]}'s turn")
        if record.prev != rs.chain:
            raise bad("sent an action that does not follow the log (replayed or reordered)",
                      "REPLAY")
        action = record.action
        if isinstance(action, Play):
            faces = [self._know(p) for p in record.positions]
            if (len(record.positions) != len(action.cards)
                    or sorted(record.positions) != sorted(shown)
                    or faces != list(action.cards)):
                raise bad(f"played {action.cards and ' '.join(map(str, action.cards))} but "
                          "showed other cards", "BAD_PLAY")
        elif record.positions or shown:
            raise bad("showed cards without playing them", "BAD_PLAY")
        try:
            rnd.check(action)
        except IllegalAction as e:
            rule = f" ({e.rule})" if e.rule else ""
            raise bad(f"made an illegal move ({record.action}): {e}{rule}",
                      "ILLEGAL_CLAIM") from None
        pending = _Pending(seat, record, data)
        rs.pending = pending
        count = 1 if isinstance(action, Draw) else rnd.pending_draw if isinstance(
            action, Take) else 0
        if not count:
            return
        # R-RESHUFFLE / R-COUNTER: which positions this action will draw, with reshuffles
        stock, discard = list(deck.stock), list(deck.discard)
        primary = self._primary
        batch: list[Position] = []

        def flush() -> None:
            if batch:
                items: list[tuple[Position, int | None]] = [(p, seat) for p in batch]
                pending.ops.append(primary.ops)
                self._each(lambda s: s.deal(items))
                batch.clear()

        for _ in range(count):
            if not stock:
                if not (rnd.rules.reshuffle and len(discard) > 1):
                    break
                flush()
                old = discard[:-1]
                epoch = primary.epochs
                self._each(partial(Session.reshuffle, positions=old))
                stock = [(epoch, i) for i in range(len(old))]
                deck.refills.append(list(stock))
                discard = discard[-1:]
            p = stock.pop(0)
            pending.draws += 1
            if p not in deck.faceup:
                batch.append(p)
        flush()

    def _apply(self, rs: _RoundState, pending: _Pending) -> None:
        rnd, deck = rs.round, rs.deck
        assert rnd is not None and deck is not None
        seat, record = pending.seat, pending.record
        direction = rnd.direction
        before = len(deck.drawn)
        event = rnd.apply(record.action)
        if len(event.drawn) != pending.draws or len(deck.drawn) - before != pending.draws:
            raise CheatDetected("the engine drew other cards than the crypto deal", seat=None,
                                fault=CryptoFault.UNEXPECTED)
        if isinstance(event.action, Play):
            left = list(record.positions)
            for card in event.action.cards:
                p = next(p for p in left if self._know(p) == card)
                left.remove(p)
                deck.discard.append(p)
        rs.pending = None
        rs.chain = chain_next(rs.chain, pending.data)
        rs.applied += 1
        rs.actions.append((seat, record.action))
        self._note(rs.number.to_bytes(4, "big") + pending.data)
        text = describe(event, names=self.names, me=self.me, rules=rnd.rules,
                        direction=direction, out=rnd.over)
        self._events.append(tev.Applied(seat, event.action, text, event.drawn))
        if rnd.over:
            rs.phase = Phase.END
            rs.deadline = None
        elif not isinstance(event.action, Draw):
            self._start_turn(rs)

    def _note(self, entry: bytes) -> None:
        self._transcript = hashlib.sha512(TRANSCRIPT_TAG + self._transcript + entry).digest()[:32]
        self._entries += 1

    # ------------------------------------------------------------------ round end

    def _end_step(self, rs: _RoundState) -> bool:
        if not rs.revealed:
            rs.revealed = True
            if not self.observing:
                self._each(lambda s: s.end_round())
            return True
        primary = self._primary
        if not primary.keys_revealed:
            return False
        self._finish_round(rs)
        return True

    def _finish_round(self, rs: _RoundState) -> None:
        primary = self._primary
        rnd = rs.round
        heads = b"".join(h for _, h in primary.chain_heads())
        self._note(rs.number.to_bytes(4, "big") + heads)
        try:
            report = primary.audit()
            if rnd is None or not rnd.over:
                raise CheatDetected("the round stopped before its end", seat=None,
                                    fault=CryptoFault.UNEXPECTED)
            for seat, *_ in rs.buffer:
                raise CheatDetected(f"{self.names[seat]} acted after the round ended",
                                    seat=seat, fault=CryptoFault.UNEXPECTED)
            for seat, shown in rs.played.items():
                if shown:
                    raise CheatDetected(f"{self.names[seat]} showed cards it never played",
                                        seat=seat, fault=CryptoFault.BAD_PLAY)
            replay = check_claims(report, self.config.rules, players=self.config.players,
                                  dealer=rs.dealer, actions=rs.actions, hand_size=rs.sizes,
                                  wild=rs.wild)
            if (replay.ended_by != rnd.ended_by or replay.winner != rnd.winner
                    or replay.discard != rnd.discard):
                raise CheatDetected("the replay of the round differs from the game",
                                    seat=None, fault=CryptoFault.UNEXPECTED)
        except CheatDetected as e:
            hands = tuple(tuple(str(c) for c in h if c is not None)
                          for h in (rnd.hands if rnd is not None else []))
            result = RoundResult(number=rs.number, dealer=rs.dealer,
                                 ended_by=rnd.ended_by if rnd and rnd.ended_by
                                 else EndedBy.BLOCKED,
                                 winner=rnd.winner if rnd else None,
                                 points=(0,) * self.config.players, hands=hands)
            self._events.append(tev.RoundOver(result, hands, False, f"audit failed: {e}"))
            raise
        result = self.match.finish_round(replay)
        self._events.append(tev.RoundOver(result, result.hands, True,
                                          "audit passed: the shuffle, every card and every "
                                          "claim check out"))
        if self.match.over:
            assert self.match.winner is not None
            rs.phase = Phase.DONE
            self._events.append(tev.MatchOver(self.match.winner, tuple(self.match.totals)))
            return
        self._begin_round()
