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
deadline; :meth:`Table.handle_timer` after it lets the computer play for the seat, and
for each later turn after a short grace (:data:`AWAY_GRACE_S`) until the player acts.
Computer seats run by this node act at once; so do seats taken over that it sends for,
unless their person is back (then :meth:`Table.get_timer` is the deadline it waits for
their choice until).

A table that survives (issue #6, protocol/table.md "Dropped nodes"):
:meth:`Table.peer_lost` (the runner's heartbeats failed) or a ``leave`` payload starts
the takeover of the gone node's seats — its escrowed keys are rebuilt from the live
nodes' shares, the hands are open and a deterministic computer plays them, sent by the
lowest live seat and checked by every node; in later rounds the lowest live seat runs
them (key revealed at once). With no escrow (2 live nodes) the game pauses.
:meth:`Table.resync_payload` and :meth:`Table.restore` rebuild a restarted node from a
peer's records, checking everything. A returning player (:meth:`Table.peer_back`, or a
restored table) plays its seat again **from its next turn**: while the seat is still
taken over, :attr:`Table.my_turn` / :attr:`Table.choosing` is true on its own node at its
turn and :meth:`Table.act` broadcasts a ``choice`` payload signed with the node's
identity key (the ``sign`` argument); the node sending the seat's actions carries it out
inside the ``Act`` record (the signed choice embedded), or plays the takeover computer's
move at the R-TIMER deadline (:meth:`Table.get_timer`), and every node checks the
embedded choice's signature, place in the log and legality (a fault names the sender).
The ``welcome`` payload deals the node in again (its own sessions) from the next round.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import partial

from p2p8s.bots.base import View, view_of
from p2p8s.bots.registry import get_bot
from p2p8s.cards import Card
from p2p8s.crypto.audit import check_claims
from p2p8s.crypto.deck import Position, card_face
from p2p8s.crypto.errors import CheatDetected
from p2p8s.crypto.errors import Fault as CryptoFault
from p2p8s.crypto.events import Announced, CardsPlayed, Disputed, KeyRecovered
from p2p8s.crypto.events import Output as CryptoOutput
from p2p8s.crypto.group import Rand, Scalar, base_mul, is_canonical_scalar
from p2p8s.crypto.messages import Message, decode
from p2p8s.crypto.session import KEY_SEED_BYTES, Session, SessionConfig, round_key
from p2p8s.crypto.session import chain_next as message_chain_next
from p2p8s.engine import Action, Draw, EndedBy, Play, Round, Take, parse_action
from p2p8s.errors import IllegalAction, LocalError, MalformedInput
from p2p8s.match import Match, RoundResult
from p2p8s.rules import hand_size
from p2p8s.table import events as tev
from p2p8s.table.actions import (
    CHOICE,
    CRYPTO,
    LEAVE,
    OWNKEY,
    RESTARTED,
    RESYNC,
    SETUP,
    STOP,
    WELCOME,
    ActRecord,
    Choice,
    StopNotice,
    action_text,
    chain_next,
    chain_start,
    decode_ownkey,
    decode_records,
    decode_round,
    encode_ownkey,
    encode_records,
    encode_round,
)
from p2p8s.table.config import TableConfig
from p2p8s.table.deck import TableDeck
from p2p8s.table.text import describe

#: The computer player that plays for a human seat whose timer ran out (R-TIMER).
STAND_IN = "Max"
DEALER_TAG = b"p2p8s/v1/dealer"
TRANSCRIPT_TAG = b"p2p8s/v1/transcript"
BOT_TAG = b"p2p8s/v1/bot"
TAKEOVER_TAG = b"p2p8s/v1/takeover"
#: Once the computer has played a turn for the local player (R-TIMER), their next turns
#: get this grace (seconds) instead of the full timer, until they act again.
AWAY_GRACE_S = 3.0
#: What the local player is told when the computer played a turn for them (R-TIMER); the
#: first time of an absence also says why and what "away" means.
STOOD_IN = "the computer played for you"
#: A node waits this long (seconds) after :meth:`Table.peer_lost` before it publishes its
#: escrow shares: a node cut off from everyone sees all its peers lost by then and knows
#: it is the one cut off (it never helps take a live node over).
TAKEOVER_GRACE_S = 3.0
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
    from p2p8s import ruletable

    return ruletable.first_dealer(DEALER_TAG + round_id, players)


def deal_order(sizes: Sequence[int], dealer: int) -> list[int]:
    """The seat receiving each dealt card, top of the stock first (R-DEALORDER)."""
    from p2p8s import ruletable

    return list(ruletable.deal_order(sizes, dealer))


def forbidden_starter(card: Card, action_cards: bool) -> bool:
    """R-STARTER: the rule table's cards that may not start the pile."""
    from p2p8s.rules import Ruleset

    return not Ruleset(action_cards=action_cards).rule_table.starter(card)


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
        #: showed with PlayCards since its previous action, the session that sent it)
        self.buffer: list[tuple[int, ActRecord, bytes, list[Position], int]] = []
        self.pending: _Pending | None = None
        self.played: dict[int, list[Position]] = {}
        #: positions a seat's own node showed (PlayCards) whose action is not applied
        #: yet: if the node goes before its Act, the takeover plays exactly these
        self.owner_shown: dict[int, list[Position]] = {}
        self.actions: list[tuple[int, Action]] = []
        self.deadline: float | None = None
        self.stood_in = False
        self.revealed = False
        #: the key of the session whose events drive the table: this node's seat, or
        #: OBSERVER (an observer session) when the seat is run by another node
        self.primary = OBSERVER
        #: seat -> the nodes (human seats) that may send its messages this round; one
        #: node once decided (a seat taken over is run by the adopter, or by its own node
        #: again once welcomed back: the first message of the seat decides)
        self.cands: dict[int, set[int]] = {}
        #: seat -> the seats holding escrow shares of its key this round (empty: none)
        self.holders: tuple[tuple[int, ...], ...] = ()
        self.adopter = 0  #: the lowest live seat at the start of the round
        #: seats taken over: ``adopted`` from the round start (key revealed at once),
        #: ``recovered`` during the round (key rebuilt from the escrow)
        self.adopted: set[int] = set()
        self.recovered: set[int] = set()
        self.asked: set[int] = set()  # seats whose recovery this node asked for
        self.paused: set[int] = set()  # gone nodes that cannot be taken over
        self.welcomed: set[int] = set()  # nodes welcomed back this round (adopter)
        #: every crypto message of this round taken in, in order (to start a session late)
        self.inbox: list[tuple[int, Message]] = []
        self.live: list[int] = []  #: the human seats not taken over at the round start
        #: this node's seat was taken over while it was cut off: it sends nothing more
        #: this round (what it would send could clash with the proxy's messages)
        self.silent = False
        self.cut = False  #: this node was cut off from most of the table this round
        self.unsent = 0  #: messages of this node's seat it never sent (silent)
        self.gaps: list[tuple[int, Message]] = []  # catching up: after a gap of their seat
        self.restarted: set[int] = set()  # nodes that lost their keys of this round
        #: seats whose key their restarted node sent back (``ownkey``): recovered; and
        #: keys received before this node had the seat's ``Y`` (sender, node, seat, key)
        self.ownkeys: set[int] = set()
        self.waiting_keys: list[tuple[int, int, int, bytes]] = []
        #: every message this node's sessions took in or produced and every operation
        #: declared, in order (to rebuild an observer session), and the payloads never
        #: sent (silent); ``rebuild``: replace the sessions by an observer now
        self.journal: list[Message | Callable[[Session], CryptoOutput]] = []
        self.dropped: set[bytes] = set()
        self.rebuild = False
        #: signed choices of people whose seat is taken over, by log index (the first
        #: one for an index counts); ``chose``: the last index this node's person chose
        #: for; ``told``: the person was told it plays its seat again
        self.choices: dict[int, Choice] = {}
        self.chose = -1
        self.told = False
        self.turn_at = 0.0  #: when the current turn started (``now``)

    def runner(self, seat: int) -> int | None:
        """The node (human seat) that sends ``seat``'s messages, once decided."""
        c = self.cands.get(seat, set())
        return next(iter(c)) if len(c) == 1 else None

    def proxy(self) -> int:
        """The lowest seat whose key was not recovered: it authors for recovered seats."""
        return min(s for s in range(len(self.cands)) if s not in self.recovered)

    @property
    def bots(self) -> set[int]:
        """Seats played by the deterministic takeover bot this round."""
        return self.adopted | self.recovered


class Table:
    """One node's replicated table (see the module docstring).

    ``config`` is the final roster and rules, ``me`` this node's seat, ``rand(n)`` the
    source of secret randomness (``os.urandom`` in production), ``seed`` seeds the
    computer players this node runs (deterministic in tests). ``sign(data)`` returns the
    64-byte Ed25519 signature of ``data`` by this node's identity key (the key of
    ``config.seats[me]``): with it, the person plays its seat again from its next turn
    when it was taken over and the node is back (signed choices); without it the
    computer plays the seat until the next round. ``key_secret`` (32 bytes, kept by the
    runner for this table and seat): the round keys of the seats this node runs derive
    from it (:func:`~p2p8s.crypto.session.round_key`), so after a restart
    (:meth:`restore` with the same secret) the node sends them back and its seats go on
    as after an escrow recovery — also with two people. ``me=OBSERVER`` makes a
    passive table that plays no seat and sends nothing: it checks every message and
    action it is given and audits each round (:mod:`p2p8s.table.logverify`).
    Raises MalformedInput if ``me`` is not a human seat.
    """

    def __init__(self, config: TableConfig, *, me: int, rand: Rand, seed: bytes = b"",
                 sign: Callable[[bytes], bytes] | None = None,
                 key_secret: bytes | None = None) -> None:
        self.observing = me == OBSERVER
        if key_secret is not None and len(key_secret) != KEY_SEED_BYTES:
            raise MalformedInput(f"key_secret must be {KEY_SEED_BYTES} bytes")
        self._key_secret = key_secret
        if not self.observing and (not 0 <= me < config.players or config.computer(me)):
            raise MalformedInput(f"seat {me} is not a human seat of this table")
        self.config = config
        self.me = me
        self._rand = rand
        self._seed = seed
        self.match = Match(config.rules, players=config.players, dealer=0,
                           target=config.target, solo=False)
        self.failed: tev.Fault | None = None
        self._rs: _RoundState | None = None
        self._now = 0.0
        self._out: list[Outgoing] = []
        self._events: list[tev.Event] = []
        self._queue: list[tuple[int, Message]] = []
        self._future: list[tuple[int, Message]] = []
        self._future_keys: list[tuple[int, bytes]] = []  # ownkey bodies of the next round
        self._transcript = hashlib.sha512(TRANSCRIPT_TAG + config.to_bytes()).digest()[:32]
        self._entries = 0
        self._started = False
        #: human seats whose node this node believes gone (peer_lost / leave), and those
        #: that left for good
        self._gone: set[int] = set()
        self._left: set[int] = set()
        self._leaving = False
        #: seats taken over at the end of the last round (from the log: the same on every
        #: node); they are run by the lowest live seat until their node is welcomed back
        self._taken: set[int] = set()
        self._welcome: int | None = None  # round this node was welcomed back for
        self._held: list[Outgoing] = []  # payloads kept while cut off (see _flush)
        self._lost_at: dict[int, float] = {}  # gone node -> when its takeover may begin
        #: every payload this node took in or sent, with its sender, in order: what a
        #: returning node replays (:meth:`resync_payload`, :meth:`restore`)
        self._records: list[tuple[int, bytes]] = []
        self._restoring = False  # replaying records: this node plays no seat yet
        self._replaying = False  # taking in a resync payload
        #: restored from records: until the next round, copies of messages already
        #: taken in are skipped and messages after a gap wait for it to fill
        self._catching_up = False
        self._away_turns = 0  # turns the computer played for the local player (R-TIMER)
        self._present = False  # the person typed something since the computer stood in
        self._sign = sign
        #: turns the takeover computer played for the local seat (told with _away_turns)
        self._bot_turns = 0
        #: seats taken over whose person was back but missed a turn (the computer played
        #: it at the deadline): their next turns wait only AWAY_GRACE_S (R-TIMER)
        self._missed: set[int] = set()
        self._back_at: dict[int, float] = {}  # node -> when it was last back
        self._keys_lost: int | None = None  # restored: the round whose keys it lost

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
        rs = self._rs
        return (rs is not None and self._ready_to_author(self.me) and not self._leaving
                and self.me in rs.sessions and self.me not in rs.bots) or self._choosing()

    @property
    def choosing(self) -> bool:
        """True when :attr:`my_turn` is a turn of this node's seat while it is taken
        over: :meth:`act` then sends a signed choice that the node sending the seat's
        actions carries out (protocol/table.md, "Coming back")."""
        return self._choosing()

    @property
    def taken_over(self) -> frozenset[int]:
        """Seats the deterministic computer plays now (their node is gone, or was)."""
        rs = self._rs
        return frozenset(rs.bots) if rs is not None else frozenset()

    @property
    def paused(self) -> frozenset[int]:
        """Nodes (human seats) the game waits for: gone, and no way to take their seats
        over this round (no escrow, no key given up); empty while the game goes on."""
        rs = self._rs
        return frozenset(rs.paused) if rs is not None else frozenset()

    @property
    def stranded(self) -> frozenset[int]:
        """Nodes (human seats) whose process restarted and lost their secret keys of the
        current round (a ``restarted`` payload; this node itself after :meth:`restore`)
        while a seat they run has no escrow to rebuild its key (no holders — fewer than
        three live nodes — or its key not announced yet): nobody can finish the round,
        so the match cannot go on. Empty otherwise, once the match is over, and once the
        node sent its keys back (``ownkey``: restored with its key secret after its
        ``KeyAnnounce``)."""
        rs = self._rs
        if rs is None or self.match.over or self.failed is not None or not rs.holders:
            return frozenset()
        nodes = set(rs.restarted)
        if self._keys_lost == rs.number:
            nodes.add(self.me)
        primary = rs.sessions.get(rs.primary)
        return frozenset(
            node for node in nodes if any(
                rs.runner(d) == node and d not in rs.recovered and (
                    not rs.holders[d] or primary is None or primary.public_key(d) is None)
                for d in range(self.config.players)))

    @property
    def gone(self) -> frozenset[int]:
        """Seats whose node this node believes gone (:meth:`peer_lost`, ``leave``)."""
        return frozenset(self._gone)

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
        times = [t for s, t in self._lost_at.items()
                 if s in self._gone and t > self._now and rs is not None and not any(
                     rs.runner(d) == s and (d in rs.recovered or d in rs.asked)
                     for d in range(self.config.players))]
        if rs is not None and self.my_turn and not self._choosing() and rs.deadline is not None:
            times.append(rs.deadline)
        if rs is not None and (wait := self._choice_wait(rs)) is not None:
            times.append(wait)
        return min(times, default=None)

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
        """A payload from the node of seat ``sender`` (authenticated by the wire layer).

        A ``resync`` payload (:meth:`resync_payload` of a peer) is taken by a table being
        restored or catching up (:meth:`restore`): its records are replayed, copies of
        what this node already has skipped; other tables ignore it."""
        self._now = max(self._now, now)
        if self.failed is None and not self.match.over and not self._leaving:
            if payload[:1] == bytes([RESYNC]):
                if self._catching_up:
                    self._guarded(lambda: self._replay(decode_records(payload[1:])))
            else:
                self._records.append((sender, payload))
                self._guarded(lambda: self._receive(sender, payload))
        return self._flush()

    def resync_payload(self) -> bytes:
        """A ``resync`` payload for a node that comes back: every payload this node took
        in or sent so far, with its sender, in order (:meth:`restore`). Send it to that
        node only (``Outgoing(seat, payload)``)."""
        return bytes([RESYNC]) + encode_records(self._records)

    @classmethod
    def restore(cls, config: TableConfig, *, me: int, records: bytes | Sequence[
                    tuple[int, bytes]], rand: Rand, seed: bytes = b"",
                now: float = 0.0, sign: Callable[[bytes], bytes] | None = None,
                key_secret: bytes | None = None) -> Table:
        """Rebuild a node whose process restarted (its secret keys are lost) from a peer's
        log: ``records`` is that peer's :meth:`resync_payload` (or its records). Every
        payload is replayed and checked as by an observer — every message, proof, action
        and audit — so the state is the match's, not the peer's word. The restored node
        plays no seat until the round after the current one, when the lowest live seat
        welcomes it back (its seat stays taken over until then); with ``sign`` (as for
        the constructor) its person plays the seat again from its next turn through
        signed choices. Its events so far come with its next call.

        With ``key_secret`` (the one the node ran the round with) it recomputes the round
        keys of the seats it runs this round, checks them against their ``Y`` and sends
        them (an ``ownkey`` payload): every node then takes those seats over as after an
        escrow recovery, at once and with any number of people (no ``restarted``, not
        :attr:`stranded`). Seats whose key was not announced yet (or does not derive
        from ``key_secret``) are left to the escrow (``restarted``). Raises
        MalformedInput for undecodable records or a ``key_secret`` not of 32 bytes."""
        if isinstance(records, bytes):
            if records[:1] != bytes([RESYNC]):
                raise MalformedInput("not a resync payload")
            records = decode_records(records[1:])
        table = cls(config, me=me, rand=rand, seed=seed, sign=sign, key_secret=key_secret)
        table._restoring = table._catching_up = table._started = True
        table._now = now
        table._back_at[me] = now
        table._guarded(table._begin_round)
        table._guarded(lambda: table._replay(records))
        table._restoring = False
        table._out.clear()
        rs = table._rs
        if rs is not None and rs.cands.get(me) == {me} and not table.match.over:
            # its keys of this round are lost: the others must take its seats over
            table._keys_lost = rs.number
            if not table._own_keys(rs):
                table._out.append(Outgoing(None, bytes([RESTARTED]) + encode_round(rs.number)))
        return table

    def _own_keys(self, rs: _RoundState) -> bool:
        """Restored with a key secret: recompute the round keys of the seats this node
        runs whose key nobody knows yet, check each against its ``Y``, send them (an
        ``ownkey`` payload) and take them in here. True when no seat it runs is left
        without a key (else the escrow must rebuild the rest: ``restarted``)."""
        if self._key_secret is None or self.failed is not None:
            return False
        primary = self._primary
        keys: list[tuple[int, bytes]] = []
        complete = True
        for seat in range(self.config.players):
            if rs.runner(seat) != self.me or primary.knows_key(seat):
                continue
            public = primary.public_key(seat)
            key = round_key(self._key_secret, self.config.table, rs.number, seat)
            if public is None or base_mul(key) != public:
                complete = False  # not announced yet, or not derived from this secret
                continue
            keys.append((seat, bytes(key)))
        if keys:
            self._out.append(Outgoing(None, bytes([OWNKEY]) + encode_ownkey(
                rs.number, self.me, keys)))
            for seat, secret in keys:
                self._guarded(functools.partial(self._learn_key, rs, seat, secret))
        return complete and self.failed is None

    def _learn_key(self, rs: _RoundState, seat: int, key: bytes) -> None:
        """Take ``seat``'s key (checked) into every local session, as an escrow recovery."""
        rs.ownkeys.add(seat)
        self._each(lambda session: session.learn_key(seat, Scalar(key)))

    def _replay(self, records: Sequence[tuple[int, bytes]]) -> None:
        """Take in a peer's records (restore / resync), skipping what is not for us."""
        self._replaying = True
        try:
            self._replay_records(records)
        finally:
            self._replaying = False

    def _replay_records(self, records: Sequence[tuple[int, bytes]]) -> None:
        for sender, payload in records:
            if self.failed is not None or self.match.over:
                return
            if payload[:1] in (bytes([SETUP]), bytes([WELCOME]), bytes([RESYNC])):
                continue
            if sender == self.me and not self._restoring:
                continue
            self._records.append((sender, payload))
            self._receive(sender, payload)
            self._advance()

    def act(self, action: Action, now: float) -> Output:
        """The local player's action. Raises IllegalAction (nothing changes) when it is
        not this seat's turn, or the action breaks a rule (the message names the rule).

        While the seat is taken over (:attr:`choosing`) the action goes out as a signed
        ``choice`` payload (``sign``, protocol/table.md "Coming back"): the node sending
        the seat's actions carries it out if it arrives before its deadline (R-TIMER)."""
        self._now = max(self._now, now)
        rs = self._rs
        if rs is None or rs.round is None or not self.my_turn:
            raise IllegalAction("it is not your turn")
        choosing = self._choosing()  # its open hand is in the engine (_ready_choice)
        rs.round.check(action)
        if choosing:
            action = rs.round.canonical(action)
            try:
                action = parse_action(action_text(action))
            except MalformedInput as e:
                raise IllegalAction(f"{action_text(action)}: {e}") from None
        positions = () if choosing else self._positions_for(self.me, action, self.me)
        if self._away_turns or self._bot_turns:
            n = self._away_turns + self._bot_turns
            self._away_turns = self._bot_turns = 0
            self._events.append(tev.Info(
                f"you were away — the computer played {n} turn{'s' if n != 1 else ''} "
                "for you"))
        if choosing:
            self._guarded(lambda: self._choose(rs, action))
        else:
            self._guarded(lambda: self._author(self.me, action, positions, self.me))
        return self._flush()

    def _choose(self, rs: _RoundState, action: Action) -> None:
        """Send the local person's signed choice for its seat taken over (kind 8)."""
        assert self._sign is not None
        choice = Choice(round_no=rs.number, index=rs.applied, prev=rs.chain, seat=self.me,
                        action=action)
        signature = self._sign(choice.signed_bytes(self.config.table))
        if len(signature) != 64:
            raise LocalError("the signer returned no Ed25519 signature")
        choice = dataclasses.replace(choice, signature=signature)
        rs.chose = rs.applied
        rs.choices.setdefault(rs.applied, choice)
        self._out.append(Outgoing(None, bytes([CHOICE]) + choice.encode()))

    def present(self, now: float) -> Output:
        """The local person typed something (a command, even a mistake): they are back
        (R-TIMER). An away player's short grace ends: the turn on now, if it is theirs,
        gets the full turn timer from ``now``, and so do their next turns."""
        self._now = max(self._now, now)
        rs = self._rs
        if self._away_turns and not self._present:
            self._present = True
            if (rs is not None and self.my_turn and rs.deadline is not None
                    and rs.deadline < now + self.config.turn_timeout_s):
                rs.deadline = now + self.config.turn_timeout_s
                self._events.append(tev.TurnStarted(self.me, rs.deadline))
        return self._flush()

    def peer_lost(self, seat: int, now: float) -> Output:
        """The runner's heartbeats to ``seat``'s node failed: take its seats over.

        With 3+ live nodes every node publishes its escrow shares of the keys of the
        seats that node runs; once rebuilt (checked against ``Y``) their hands are open
        and the deterministic computer plays them, sent by the lowest live seat and
        checked by every node — this round and the next ones, until it is back. With no
        escrow (2 live nodes) the game pauses (:class:`~p2p8s.table.events.SeatAway`
        with ``paused``) until :meth:`peer_back`. Idempotent; raises MalformedInput for
        a seat that has no other node."""
        self._now = max(self._now, now)
        self._check_peer(seat)
        if seat not in self._gone:
            self._gone.add(seat)
            self._lost_at[seat] = now + TAKEOVER_GRACE_S
            if self.failed is None and not self.match.over:
                self._guarded(lambda: self._lost(seat))
        return self._flush()

    def peer_back(self, seat: int, now: float) -> Output:
        """``seat``'s node is reachable again (same identity key). A paused game goes on;
        a seat that was taken over is played by its person again from its next turn
        (signed choices, the node sending its actions waits for them until the R-TIMER
        deadline) and dealt in again from the next round this node starts as its adopter
        (a ``welcome``). The runner must make sure the node has every payload it missed
        (its own table survived) or restored its table from the log (:meth:`restore`)."""
        self._now = max(self._now, now)
        self._check_peer(seat)
        if seat in self._gone:
            rs = self._rs
            was_cut = rs is not None and self._isolated()
            self._gone.discard(seat)
            self._left.discard(seat)
            self._back_at[seat] = now
            self._missed.difference_update(
                d for d in range(self.config.players) if self.config.node_of(d) == seat)
            if rs is not None:
                rs.paused.discard(seat)
                if not self._isolated():
                    rs.paused.discard(self.me)
                    if was_cut:
                        self._back_at[self.me] = now
                self._refresh_deadline(rs)
            self._events.append(tev.SeatBack(f"{self.names[seat]} is back", seat))
        return self._flush()

    def leave(self, now: float) -> Output:
        """The local player quits: tell the others (a ``leave`` payload: they take the
        seat over as for a dropped node, at once). The table does nothing afterwards."""
        self._now = max(self._now, now)
        if not self._leaving and not self.observing:
            self._leaving = True
            rs = self._rs
            if rs is not None and self.failed is None and not self.match.over:
                # its keys go first (``ownkey``): the others play its seats at once, hand
                # open, with or without an escrow (two people)
                keys = [(seat, bytes(key)) for seat, session in sorted(rs.sessions.items())
                        if seat != OBSERVER and rs.runner(seat) == self.me
                        and (key := session.give_up_key()) is not None]
                if keys:
                    self._out.append(Outgoing(None, bytes([OWNKEY]) + encode_ownkey(
                        rs.number, self.me, keys)))
            self._out.append(Outgoing(None, bytes([LEAVE]) + encode_round(self.round_number)))
        return self._flush()

    def _check_peer(self, seat: int) -> None:
        if (not 0 <= seat < self.config.players or self.config.computer(seat)
                or seat == self.me):
            raise MalformedInput(f"seat {seat} has no other node")

    def handle_timer(self, now: float) -> Output:
        """Let the clock run to ``now``: past the local deadline the computer plays."""
        self._now = max(self._now, now)
        if self.failed is None and not self.match.over and not self._leaving:
            self._guarded(self._advance)
        return self._flush()

    # ------------------------------------------------------------------ plumbing

    def _flush(self) -> Output:
        self._ready_choice()
        messages, self._out = self._out, []
        if self._holding():
            # cut off from most of the table: keep what this node sends until it knows
            # whether its seat was taken over meanwhile (then it is dropped, unsent)
            self._held.extend(messages)
            messages = []
        elif self._held:
            messages, self._held = self._held + messages, []
        if not self.observing:
            self._records.extend((self.me, m.payload) for m in messages
                                 if m.payload[:1] != bytes([WELCOME]))
        out = Output(messages, self._events)
        self._events = []
        return out

    def _isolated(self) -> bool:
        """True when this node reaches at most half of the round's live nodes (itself
        included): it must not take anyone over — it is the one that is cut off."""
        rs = self._rs
        if rs is None or self.observing:
            return False
        live = [s for s in rs.live if s not in self._left]  # who left said so: not a cut
        reach = [s for s in live if s == self.me or s not in self._gone]
        if len(live) >= 3 and 2 * len(reach) <= len(live):
            rs.cut = True
            return True
        return False

    def _holding(self) -> bool:
        rs = self._rs
        if rs is None or self.observing or rs.primary != self.me:
            return False
        return self._isolated() or (rs.cut and self._primary.recovering(self.me)
                                    and self.me not in rs.recovered)

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
        rs = self._rs
        for msg in out.messages:
            payload = bytes([CRYPTO]) + msg.encode()
            if rs is None or not rs.silent:
                self._out.append(Outgoing(None, payload))
            else:
                rs.dropped.add(payload)
                if seat == rs.primary:
                    rs.unsent += 1
            if rs is not None:
                rs.journal.append(msg)
            self._queue.append((seat, msg))
        if rs is not None and seat == rs.primary:
            for ev in out.events:
                self._on_crypto_event(ev)

    def _each(self, call: Callable[[Session], CryptoOutput]) -> None:
        """Run ``call(session)`` on every local session, the primary first."""
        rs = self._rs
        assert rs is not None
        rs.journal.append(call)
        primary = rs.primary
        for seat in sorted(rs.sessions, key=lambda s: s != primary):
            self._emit_quiet(seat, call(rs.sessions[seat]))
        self._drain()

    def _receive(self, sender: int, payload: bytes) -> None:
        if (not 0 <= sender < self.config.players or self.config.computer(sender)
                or (sender == self.me and not self._restoring)):
            raise CheatDetected(f"payload from seat {sender}, which has no other node",
                                seat=None, fault=CryptoFault.MALFORMED)
        if not payload:
            self._fault(sender, f"{self.names[sender]} sent an empty payload")
            return
        kind, body = payload[0], payload[1:]
        if kind == LEAVE:
            decode_round(body)
            if sender not in self._gone:
                self._gone.add(sender)
                self._left.add(sender)
                self._lost_at[sender] = self._now  # no grace: it said so itself
                self._lost(sender, left=True)
            return
        if kind == WELCOME:
            self._on_welcome(sender, decode_round(body))
            return
        if kind == CHOICE:
            self._on_choice(sender, body)
            return
        if kind == RESTARTED:
            number = decode_round(body)
            rs = self._rs
            if rs is not None and number == rs.number and sender not in rs.restarted:
                rs.restarted.add(sender)
                self._lost_at.setdefault(sender, self._now)
                self._events.append(tev.SeatAway(
                    f"{self.names[sender]}'s node lost its cards of this round (its program "
                    "restarted, or it rebuilt its table from the log): the others rebuild its "
                    "key from the escrow and the computer plays its seat until "
                    f"{self.names[sender]} plays again", sender, False))
            return
        if kind == OWNKEY:
            self._on_ownkey(sender, body)
            return
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
        if msg.seat >= self.config.players:
            self._fault(sender, f"{self.names[sender]} sent a message signed as seat "
                                f"{msg.seat}")
            return
        if msg.table != self.config.table:
            self._fault(sender, f"{self.names[sender]} sent a message for another table")
            return
        rs = self._rs
        if self._catching_up and rs is not None and msg.round_no < rs.number:
            return  # a copy of a message of a round this node has finished
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
        self._take_in(rs, sender, msg)

    def _take_in(self, rs: _RoundState, sender: int, msg: Message) -> None:
        """Give a message of this round to every local session, after checking that
        ``sender``'s node may send for its seat (the first message of a seat whose node
        is not decided yet decides it)."""
        if self._catching_up and not self._fresh(rs, sender, msg):
            return
        cands = rs.cands[msg.seat]
        if sender not in cands:
            self._fault(sender, f"{self.names[sender]} sent a message signed as seat "
                                f"{msg.seat}")
            return
        if len(cands) > 1:
            cands.intersection_update({sender})
            if sender == rs.adopter:
                self._adopted(rs, msg.seat)
        rs.inbox.append((sender, msg))
        rs.journal.append(msg)
        for seat in sorted(rs.sessions, key=lambda s: s != rs.primary):
            self._emit_quiet(seat, rs.sessions[seat].receive(msg))
        self._drain()
        if rs.gaps:
            waiting, rs.gaps = rs.gaps, []
            for s_, m in waiting:
                if self.failed is None and self._rs is rs:
                    self._take_in(rs, s_, m)

    def _fresh(self, rs: _RoundState, sender: int, msg: Message) -> bool:
        """While catching up: False for a copy of a message already taken in (skipped) or
        one after a gap of its seat (held until the gap fills)."""
        primary = self._primary
        count = primary.chain_heads()[msg.seat][0]
        if msg.seq <= count:
            head = message_chain_next(primary.chain_head(msg.seat, msg.seq - 1), msg.encode())
            return head != primary.chain_head(msg.seat, msg.seq)  # a differing one: fault
        if msg.seq > count + 1:
            rs.gaps.append((sender, msg))
            return False
        return True

    def _lost(self, seat: int, *, left: bool = False) -> None:
        """``seat``'s node is gone: take its seats over if the escrow allows."""
        rs = self._rs
        name = self.names[seat]
        what = f"{name} left the table" if left else f"{name}'s node is gone"
        if rs is None:
            return
        self._recover_gone(rs)
        escrowed = bool(rs.holders) and bool(rs.holders[seat])
        if seat not in rs.paused and self.me not in rs.paused and (escrowed or left):
            self._events.append(tev.SeatAway(
                f"{what}: the computer plays its seat" if left else
                f"{what}: the others rebuild its key from the escrow and the computer "
                "plays its seat", seat, False))

    def _recover_gone(self, rs: _RoundState) -> bool:
        """Publish this node's escrow shares for the seats of gone nodes (once each);
        note a gone node whose seats cannot be rebuilt (the game waits)."""
        changed = False
        if self._isolated():
            if self.me not in rs.paused:
                rs.paused.add(self.me)
                self._events.append(tev.SeatAway(
                    "lost contact with most of the table: waiting until it is back", self.me,
                    True))
            return False
        for node in sorted(self._gone | rs.restarted):
            if node not in rs.restarted and self._now < self._lost_at.get(node, 0.0):
                continue
            for d in range(self.config.players):
                if rs.runner(d) != node or d in rs.recovered or d in rs.asked:
                    continue
                holders = rs.holders[d]
                primary = self._primary
                if (not holders or any(h in self._gone for h in holders)
                        or primary.public_key(d) is None):
                    if node not in rs.paused:
                        rs.paused.add(node)
                        why = ("no escrow with fewer than three players" if not holders
                               else "its key cannot be rebuilt now")
                        what = (f"{self.names[node]} left the table" if node in self._left
                                else f"{self.names[node]}'s node is gone")
                        self._events.append(tev.SeatAway(
                            f"{what}: the game waits until it is back ({why})", node, True))
                    continue
                if rs.primary not in holders:
                    continue
                rs.asked.add(d)
                self._emit_quiet(rs.primary, primary.recover(d))
                self._drain()
                changed = True
        return changed

    def _rebuild_observer(self, rs: _RoundState) -> None:
        """This node's seat was taken over while it was cut off, and what it held back
        was dropped: its sessions had taken their own unsent messages in. Replace them by
        an observer session fed the round as the others saw it (the journal without the
        dropped messages), so it goes on checking everything without ever diverging."""
        rs.rebuild = False
        observer = self._session(OBSERVER, rs.number, rs)
        for item in rs.journal:
            if not isinstance(item, Message):
                item(observer)
            elif bytes([CRYPTO]) + item.encode() not in rs.dropped:
                observer.receive(item)
        rs.sessions = {OBSERVER: observer}
        rs.primary = OBSERVER
        rs.unsent = 0
        self._queue.clear()

    def _reveal_adopted(self, rs: _RoundState) -> bool:
        """Reveal the key of each seat this node adopted as soon as the keys are in: its
        hand is open to every node, which checks the computer's moves for it."""
        changed = False
        for seat in sorted(rs.adopted):
            session = rs.sessions.get(seat)
            if session is not None and session.keys_ready and not session.key_revealed:
                self._emit_quiet(seat, session.end_round())
                self._drain()
                changed = True
        return changed

    def _on_welcome(self, sender: int, number: int) -> None:
        """The adopter deals this node back in from round ``number``."""
        rs = self._rs
        if self.observing:
            return  # the log verifier: the first message of the seat decides who runs it
        if rs is None or number > rs.number:
            self._welcome = number
            return
        if (number != rs.number or sender != rs.adopter
                or rs.cands.get(self.me) != {rs.adopter, self.me}):
            self._fault(sender, f"{self.names[sender]} sent an unexpected welcome")
            return
        # nothing of this round moved without this node's commitment: start over
        self._welcome = number
        for seat in range(self.config.players):
            if rs.cands[seat] == {rs.adopter, self.me}:
                rs.cands[seat] = {self.me}
                rs.sessions[seat] = self._session(seat, number, rs)
        rs.sessions.pop(OBSERVER, None)
        rs.primary = self.me
        rs.journal = []
        for seat in list(rs.sessions):
            self._emit_quiet(seat, rs.sessions[seat].start_round())
        self._drain()
        for _, msg in list(rs.inbox):
            rs.journal.append(msg)
            for seat in sorted(rs.sessions, key=lambda s: s != rs.primary):
                self._emit_quiet(seat, rs.sessions[seat].receive(msg))
            self._drain()

    def _on_ownkey(self, sender: int, body: bytes) -> None:
        """A restarted node's round keys (``ownkey``, sent by it or relayed by a peer):
        for this round, of seats that node runs, each matching its ``Y`` — else a fault
        naming the sender. A key not known yet is taken in (the seat is taken over as
        after an escrow recovery) and relayed once to every node, before anything this
        node sends for the seat; a key already known is a copy (skipped). A key whose
        ``Y`` has not arrived yet waits for it; keys of the next round wait for it."""
        name = self.names[sender]
        try:
            number, node, keys = decode_ownkey(body)
        except MalformedInput as e:
            self._fault(sender, f"{name} sent a {e}")
            return
        rs = self._rs
        if rs is None or number == rs.number + 1:
            if len(self._future_keys) >= self.config.players ** 2:  # copies: n per seat
                self._fault(sender, f"{name} floods keys for a later round")
            else:
                self._future_keys.append((sender, body))
            return
        if number < rs.number:
            return  # a late copy (relayed, resent): every key of that round is out anyway
        if number != rs.number:
            self._fault(sender, f"{name} sent round keys of round {number} during round "
                                f"{rs.number}")
            return
        if node == self.me and not self._restoring:
            if all(self._primary.knows_key(seat) for seat, _ in keys):
                return  # a relayed copy of the keys this node sent
            self._fault(sender, f"{name} sent round keys of this node's own seats (forged)")
            return
        for seat, _ in keys:
            if not 0 <= node < self.config.players or rs.runner(seat) != node:
                self._fault(sender, f"{name} sent a round key of seat {seat}, which the "
                                    f"node of seat {node} does not run this round")
                return
        for seat, key in keys:
            if self.failed is not None or self._rs is not rs:
                return
            if self._primary.public_key(seat) is None:
                if all(w[2] != seat for w in rs.waiting_keys):
                    rs.waiting_keys.append((sender, node, seat, key))
                continue
            self._take_key(rs, sender, node, seat, key)

    def _take_key(self, rs: _RoundState, sender: int, node: int, seat: int,
                  key: bytes) -> bool:
        """Check one key of an ``ownkey`` payload against ``Y_seat`` (a fault names the
        sender) and take it in if new, relaying it first; True if taken in."""
        primary = self._primary
        public = primary.public_key(seat)
        if not is_canonical_scalar(key) or not any(key) or base_mul(Scalar(key)) != public:
            raise CheatDetected(f"{self.names[sender]} sent a round key of "
                                f"{self.names[seat]} that does not match its public key "
                                "(forged)", seat=sender, fault=CryptoFault.BAD_KEY)
        if primary.knows_key(seat):
            return False  # a copy, or the escrow rebuilt it first
        if not self.observing and not self._replaying:
            # relayed before anything this node sends for the seat (links keep order)
            self._out.append(Outgoing(None, bytes([OWNKEY]) + encode_ownkey(
                rs.number, node, [(seat, key)])))
        self._learn_key(rs, seat, key)
        return True

    def _waiting_keys(self, rs: _RoundState) -> bool:
        """Take the keys of ``ownkey`` payloads whose seat's ``Y`` has arrived since."""
        primary = self._primary
        ready = [w for w in rs.waiting_keys if primary.public_key(w[2]) is not None]
        if not ready:
            return False
        rs.waiting_keys = [w for w in rs.waiting_keys if w not in ready]
        changed = False
        for sender, node, seat, key in ready:
            changed |= self._take_key(rs, sender, node, seat, key)
        return changed

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

    def _session(self, seat: int, number: int, rs: _RoundState) -> Session:
        observer = seat == OBSERVER
        return Session(SessionConfig(
            table=self.config.table, round_no=number, players=self.config.players,
            seat=0 if observer else seat, deck_size=self.config.deck_size,
            observer=observer, escrow=rs.holders,
            key_seed=None if observer else self._key_secret), self._rand)

    def _adopted(self, rs: _RoundState, seat: int) -> None:
        """``seat`` is run by the adopter this round: its key is revealed at once and
        every node checks the computer's moves for it."""
        rs.adopted.add(seat)
        self._events.append(tev.SeatTakenOver(
            f"the computer plays {self.names[seat]} this round (hand open), sent by "
            f"{self.names[rs.adopter]}", seat, rs.adopter))

    def _begin_round(self) -> None:
        """Start the next round's crypto: who runs which seat, the escrow holders, and
        this node's sessions (protocol/table.md, "Dropped nodes")."""
        number = self.match.round_number
        config, n = self.config, self.config.players
        taken = self._taken
        if not self._restoring and not self._replaying:
            self._catching_up = False
        live = [s for s in range(n) if not config.computer(s) and s not in taken]
        rs = _RoundState(number, {})
        rs.live = live
        rs.adopter = adopter = min(live) if live else 0

        def node(seat: int) -> int:
            return adopter if seat in taken else config.node_of(seat)

        # one holder per other live node; fewer than 2 holders would give a key away
        holders = [tuple(h for h in live if h != node(d)) for d in range(n)]
        rs.holders = tuple(h if len(h) >= 2 else () for h in holders)
        for seat in range(n):
            home = config.node_of(seat)
            rs.cands[seat] = {adopter, home} if seat in taken else {home}
        if adopter == self.me:
            for seat in sorted(taken):
                home = config.node_of(seat)
                if home in self._gone or home == adopter:
                    rs.cands[seat] = {adopter}
                    continue
                rs.cands[seat] = {home}
                if home not in rs.welcomed:
                    rs.welcomed.add(home)
                    self._out.append(Outgoing(home, bytes([WELCOME]) + encode_round(number)))
        elif self.me in taken and self._welcome == number:
            for seat in taken:
                if config.node_of(seat) == self.me:
                    rs.cands[seat] = {self.me}
        self._rs = rs
        if self.observing or self._restoring or (
                self.me in taken and rs.cands[self.me] != {self.me}):
            rs.primary = OBSERVER
            rs.sessions[OBSERVER] = self._session(OBSERVER, number, rs)
        else:
            rs.primary = self.me
        for seat in range(n):
            if rs.cands[seat] == {self.me} and rs.primary != OBSERVER:
                rs.sessions[seat] = self._session(seat, number, rs)
        for seat in rs.sessions:
            if seat != OBSERVER:
                self._emit_quiet(seat, rs.sessions[seat].start_round())
        self._drain()
        for seat in sorted(taken):
            if rs.cands[seat] == {adopter}:
                self._adopted(rs, seat)
        waiting, self._future = self._future, []
        for sender, msg in waiting:
            if self.failed is not None:
                return
            if msg.round_no != rs.number:
                self._fault(sender, f"{self.names[sender]} sent a message of round "
                                    f"{msg.round_no} before round {rs.number}")
                return
            self._take_in(rs, sender, msg)
        keys, self._future_keys = self._future_keys, []
        for sender, body in keys:
            if self.failed is not None:
                return
            self._on_ownkey(sender, body)

    def _advance(self) -> None:
        """Take every step that is possible now."""
        progress = True
        while progress and self.failed is None and self._rs is not None:
            rs = self._rs
            if rs.rebuild:
                self._rebuild_observer(rs)
            if (self._recover_gone(rs) or self._reveal_adopted(rs)
                    or self._waiting_keys(rs)):
                continue
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
        return self._rs.sessions[self._rs.primary]

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
        rs.turn_at = self._now
        timeout = self.config.turn_timeout_s
        if seat == self.me and self._away_turns and not self._present:
            timeout = min(timeout, AWAY_GRACE_S)  # R-TIMER: still away, a short grace
        if seat in rs.bots:  # its person may choose until then, if its node is back
            rs.deadline = self._choice_deadline(rs, seat)
        else:
            rs.deadline = None if self.config.computer(seat) else self._now + timeout
        rs.stood_in = False
        self._events.append(tev.TurnStarted(seat, rs.deadline))

    # ------------------------------------------------------------------ actions

    def _on_crypto_event(self, ev: object) -> None:
        rs = self._rs
        if rs is None:
            return
        if isinstance(ev, KeyRecovered):
            rs.recovered.add(ev.seat)
            if ev.seat == self.me:
                rs.silent = True
                kept = [o for o in self._held if o.payload[:1] != bytes([CRYPTO])]
                rs.unsent += sum(decode(o.payload[1:], sender=None).seat == self.me
                                 for o in self._held if o not in kept)
                rs.dropped.update(o.payload for o in self._held if o not in kept)
                rs.rebuild = bool(rs.dropped)
                self._held = kept
            gone = {rs.runner(d) for d in rs.recovered}
            proxy = min((s for s in range(self.config.players)
                         if s not in rs.recovered and rs.runner(s) not in gone),
                        default=rs.proxy())
            who = "your seat" if ev.seat == self.me else f"{self.names[ev.seat]}'s seat"
            how = ("its node handed over its key (it restarted, or its player left)"
                   if ev.seat in rs.ownkeys else "its key was rebuilt from the escrow")
            self._events.append(tev.SeatTakenOver(
                f"{who} is taken over: {how}, its hand is open and the computer plays it "
                f"(sent by {self.names[proxy]})", ev.seat, proxy))
        elif isinstance(ev, CardsPlayed):
            rs.played.setdefault(ev.seat, []).extend(p for p, _, _ in ev.items)
            if ev.by == ev.seat:
                rs.owner_shown.setdefault(ev.seat, []).extend(p for p, _, _ in ev.items)
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
        if (record.round_no != rs.number or record.seat >= self.config.players
                or (record.seat != seat and record.seat not in rs.recovered
                    and not self._primary.recovering(record.seat))):
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
        rs.buffer.append((record.seat, record, data, rs.played.pop(record.seat, []), seat))

    def _ready_to_author(self, seat: int) -> bool:
        """True when ``seat`` is on turn and the log waits for its next action."""
        rs = self._rs
        return (self.failed is None and rs is not None and rs.phase is Phase.PLAY
                and rs.round is not None and not rs.round.over and rs.round.turn == seat
                and rs.pending is None and rs.authored < rs.applied
                and not any(b[1].index == rs.applied for b in rs.buffer))

    def _author_for(self, rs: _RoundState, seat: int) -> int | None:
        """The local session that authors ``seat``'s action (``None``: another node)."""
        if seat in rs.recovered:
            proxy = rs.proxy()
            return proxy if proxy in rs.sessions else None
        return seat if seat in rs.sessions else None

    def _positions_for(self, seat: int, action: Action,
                       by: int | None = None) -> tuple[Position, ...]:
        """The crypto positions of the cards a play shows, in the play's order (``by``:
        the local session that shows them)."""
        if not isinstance(action, Play):
            return ()
        assert self._rs is not None
        orphans = self._orphans(self._rs, seat)
        if orphans and [self._know(p) for p in orphans] == list(action.cards):
            return tuple(orphans)  # shown already by the seat's own node
        by = seat if by is None else by
        hand = self._rs.sessions[by].hand_of(seat) or {}
        chosen: list[Position] = []
        for card in action.cards:
            p = next((p for p, k in sorted(hand.items())
                      if card_face(k) == card and p not in chosen), None)
            if p is None:
                raise IllegalAction(f"{card} is not in your hand")
            chosen.append(p)
        return tuple(chosen)

    def _author(self, seat: int, action: Action, positions: tuple[Position, ...],
                by: int | None = None, choice: Choice | None = None) -> None:
        """Send ``seat``'s action from the local session ``by`` (``seat`` itself, or the
        proxy for a seat whose key was recovered), carrying the person's signed
        ``choice`` when it is one."""
        rs = self._rs
        assert rs is not None
        by = seat if by is None else by
        session = rs.sessions[by]
        if positions and list(positions) != self._orphans(rs, seat):
            self._emit_quiet(by, session.play(positions, seat=None if by == seat else seat))
        record = ActRecord(round_no=rs.number, index=rs.applied, seat=seat, prev=rs.chain,
                           action=action, positions=positions, choice=choice)
        data = record.encode()
        rs.authored = rs.applied
        self._emit_quiet(by, session.announce(data))
        if by == rs.primary:
            self._take_act(by, data)
        self._drain()

    def _auto_step(self, rs: _RoundState) -> bool:
        """Computer seats of this node act; so do seats taken over when this node sends
        for them (their person's signed choice, or the deterministic computer — at once
        while their node is gone, else at the R-TIMER deadline); past the deadline the
        computer plays for the local player."""
        assert rs.round is not None
        seat = rs.round.turn
        if self._leaving or not self._ready_to_author(seat):
            return False
        by = self._author_for(rs, seat)
        if by is None:
            return False
        choice: Choice | None = None
        if seat in rs.bots:
            choice = self._choice_for(rs, seat)
            if choice is not None:
                action = choice.action
            else:
                wait = self._choice_deadline(rs, seat)
                if wait is not None:
                    if self._now < wait:
                        return False  # its person is back: wait for its choice
                    self._missed.add(seat)  # R-TIMER: the next turns get a short grace
                action = self._takeover_move(rs, seat)
        else:
            if seat == self.me:
                if rs.deadline is None or self._now < rs.deadline:
                    return False
                if not rs.stood_in:
                    rs.stood_in = True
                    self._away_turns += 1
                    self._present = False
                    self._events.append(tev.Info(
                        STOOD_IN if self._away_turns > 1 else
                        f"{STOOD_IN} (your {self.config.turn_timeout_s:g} s ran out); until "
                        f"you play again you count as away and each turn waits only "
                        f"{AWAY_GRACE_S:g} s"))
                bot = get_bot(STAND_IN)
            else:
                name = self.config.seats[seat].computer
                assert name is not None
                bot = get_bot(name)
            legal = rs.round.legal_actions()
            action = bot.choose(view_of(rs.round, seat, self.match), legal,
                                self._bot_rng(seat))
        self._author(seat, action, self._positions_for(seat, action, by), by, choice)
        return True

    def _takeover_move(self, rs: _RoundState, seat: int,
                       shown: Sequence[Position] = ()) -> Action:
        """The deterministic computer's move for a seat taken over: the seat's own
        computer personality (``Max`` for a person), seeded from the action chain, so
        every node computes the same move from the same log."""
        rnd = rs.round
        assert rnd is not None
        self._open_hand(rs, seat, shown)
        bot = get_bot(self.config.seats[seat].computer or STAND_IN)
        data = (TAKEOVER_TAG + rs.chain + rs.number.to_bytes(4, "big")
                + rs.applied.to_bytes(4, "big") + bytes([seat]))
        rng = random.Random(int.from_bytes(hashlib.sha256(data).digest(), "big"))
        legal = rnd.legal_actions()
        orphans = self._orphans(rs, seat)
        if orphans:  # its node showed these cards and went before its Act: play them
            cards = [self._know(p) for p in orphans]
            forced: list[Action] = [a for a in legal
                                    if isinstance(a, Play) and list(a.cards) == cards]
            if forced:
                legal = forced
        return bot.choose(view_of(rnd, seat, self.match), legal, rng)

    def _orphans(self, rs: _RoundState, seat: int) -> list[Position]:
        """Positions ``seat``'s own node showed for a play whose Act never came (it went
        in between), while the computer plays the seat: the play must use them."""
        if seat not in rs.bots:
            return []
        return list(rs.owner_shown.get(seat, []))

    def _open_hand(self, rs: _RoundState, seat: int, shown: Sequence[Position]) -> None:
        """Put the open hand of a seat taken over into the engine (its cards in position
        order, the same on every node), and the card it drew this turn."""
        rnd, deck = rs.round, rs.deck
        assert rnd is not None and deck is not None
        hand = self._primary.hand_of(seat)
        if hand is None:
            return
        if None in rnd.hands[seat]:
            # cards shown by a PlayCards whose action is not applied yet are still held
            held = dict(hand)
            for p in [*shown, *rs.played.get(seat, [])]:
                k = self._primary.known_card(p)
                if k is not None:
                    held[p] = k
            cards: list[Card | None] = [card_face(k) for _, k in sorted(held.items())]
            if len(cards) != len(rnd.hands[seat]):
                raise CheatDetected(f"the open hand of {self.names[seat]} does not match "
                                    "the game", seat=None, fault=CryptoFault.UNEXPECTED)
            rnd.hands[seat] = cards
        if rnd.turn == seat and rnd.drawn and rnd.last_drawn is None:
            mine = [p for p, s in deck.drawn if s == seat]
            if mine:
                rnd.last_drawn = self._know(mine[-1])

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
            if any(b[0] != b[4] and b[0] not in rs.recovered for b in due):
                return False  # sent for a seat whose key this node is still rebuilding
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
                 shown: list[Position], by: int) -> None:
        """Check an action against the log and the engine and declare its crypto."""
        rnd, deck = rs.round, rs.deck
        assert rnd is not None and deck is not None
        name = self.names[seat]
        author = rs.runner(by)
        if author is None:  # cannot happen: the seat sent a message
            author = self.config.node_of(by)
        blame = seat if by == seat and seat not in rs.bots else author

        def bad(why: str, kind: str = "UNEXPECTED") -> CheatDetected:
            return CheatDetected(f"{name} {why}", seat=blame, fault=CryptoFault[kind])

        if by != seat and (seat not in rs.recovered or by != rs.proxy()):
            raise CheatDetected(f"{self.names[author]} sent an action for {name}, which it "
                                "does not play", seat=author, fault=CryptoFault.UNEXPECTED)
        if by == seat and seat in rs.recovered:
            raise CheatDetected(f"{self.names[author]} acted for {name}, whose seat was taken "
                                f"over (the computer plays it, sent by "
                                f"{self.names[rs.proxy()]})", seat=author,
                                fault=CryptoFault.UNEXPECTED)
        if record.choice is not None:
            self._check_choice(rs, record, author, shown)
        elif seat in rs.bots and rnd.turn == seat:
            expected = self._takeover_move(rs, seat, shown)
            if record.action != expected:
                raise CheatDetected(
                    f"{self.names[author]} sent {record.action} for {name} (taken over), but "
                    f"the computer plays {expected} there", seat=author,
                    fault=CryptoFault.ILLEGAL_CLAIM)
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
        rs.owner_shown.pop(seat, None)  # its shown cards are played (or it drew/passed)
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
        rs.choices = {i: c for i, c in rs.choices.items() if i >= rs.applied}
        if record.choice is not None:
            self._missed.discard(seat)  # its person is back at the table
        elif seat == self.me and seat in rs.bots:
            if not isinstance(record.action, Draw):
                self._bot_turns += 1  # told when the person acts again
            if self._home_back(seat) and rs.told:
                self._missed.add(seat)  # it was back and missed this turn (R-TIMER)
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

    # ------------------------------------------------------------------ choices

    def _home_back(self, seat: int) -> bool:
        """True when the person of ``seat`` (taken over) may choose its actions, as far
        as this node knows: a person's seat whose node is not gone — for this node's own
        seat: it can sign and is not cut off from most of the table."""
        if self.config.computer(seat):
            return False
        home = self.config.node_of(seat)
        if home == self.me:
            return (self._sign is not None and not self._leaving and not self.observing
                    and not self._isolated())
        return home not in self._gone

    def _choosing(self) -> bool:
        """This node's seat is taken over, on turn, and its person may choose now."""
        rs = self._rs
        return (rs is not None and not self._restoring and self.me in rs.bots
                and rs.chose < rs.applied and self._ready_to_author(self.me)
                and self._home_back(self.me))

    def _choice_deadline(self, rs: _RoundState, seat: int) -> float | None:
        """Until when the person of ``seat`` (taken over, on turn) may choose (R-TIMER:
        the full timer from the turn start or its return, ``AWAY_GRACE_S`` after a
        missed turn); ``None`` while its node is gone."""
        if not self._home_back(seat):
            return None
        start = max(rs.turn_at, self._back_at.get(self.config.node_of(seat), rs.turn_at))
        grace = AWAY_GRACE_S if seat in self._missed else self.config.turn_timeout_s
        return start + grace

    def _choice_wait(self, rs: _RoundState) -> float | None:
        """The deadline this node waits for a person's choice until (it sends the
        actions of the seat on turn, taken over), or ``None``."""
        rnd = rs.round
        if rnd is None or self._leaving or rs.phase is not Phase.PLAY:
            return None
        seat = rnd.turn
        if (seat not in rs.bots or not self._ready_to_author(seat)
                or self._author_for(rs, seat) is None or rs.applied in rs.choices):
            return None
        return self._choice_deadline(rs, seat)

    def _refresh_deadline(self, rs: _RoundState) -> None:
        """A node came back: the turn of a seat taken over gets its choice deadline."""
        rnd = rs.round
        if rs.phase is Phase.PLAY and rnd is not None and not rnd.over and rnd.turn in rs.bots:
            rs.deadline = self._choice_deadline(rs, rnd.turn)

    def _ready_choice(self) -> None:
        """When the local person may choose for its seat taken over: open its hand in
        the engine (for :meth:`view` / :meth:`legal_actions`) and tell it once a round."""
        rs = self._rs
        if self.failed is not None or rs is None or not self._choosing():
            return
        try:
            self._open_hand(rs, self.me, ())
        except CheatDetected as e:
            self._fault(e.seat, str(e))
            return
        if not rs.told:
            rs.told = True
            self._events.append(tev.Info(
                "you are back: you play your seat again from this turn (your hand is open "
                "to the others until the round ends)"))

    def _on_choice(self, sender: int, body: bytes) -> None:
        """A person's signed choice for its seat taken over: kept for its log index
        (the node sending the seat's actions carries it out); a choice for a place of the
        log already past, or another round, is stale and ignored."""
        name = self.names[sender]
        try:
            choice = Choice.decode(body)
        except MalformedInput as e:
            self._fault(sender, f"{name} sent a {e}")
            return
        seat = choice.seat
        if (seat >= self.config.players or self.config.computer(seat)
                or self.config.node_of(seat) != sender):
            self._fault(sender, f"{name} sent a choice for seat {seat}, which is not its own")
            return
        if not choice.verify(self.config.table, self.config.seats[seat].key):
            self._fault(sender, f"{name} sent a choice that its key did not sign (forged)")
            return
        rs = self._rs
        if (rs is None or choice.round_no != rs.number or choice.index < rs.applied
                or choice.index <= rs.authored):
            return  # stale: that place of the log is taken (by the computer's move)
        if choice.index > rs.applied + MAX_AHEAD or len(rs.choices) >= MAX_AHEAD:
            return  # far ahead of this node's log: it cannot be the one sending it
        rs.choices.setdefault(choice.index, choice)
        if sender == self.me:  # restoring: this node's person chose there already
            rs.chose = max(rs.chose, choice.index)

    def _choice_for(self, rs: _RoundState, seat: int) -> Choice | None:
        """The choice of ``seat``'s person for the next place of the log, checked
        against the log and the engine (a wrong one is a fault naming its node)."""
        choice = rs.choices.get(rs.applied)
        if choice is None:
            return None
        rnd = rs.round
        assert rnd is not None
        home = self.config.node_of(choice.seat)
        name = self.names[home]
        if choice.seat != seat:
            raise CheatDetected(f"{name} chose for place {choice.index} of the log, where "
                                f"it is {self.names[seat]}'s turn", seat=home,
                                fault=CryptoFault.UNEXPECTED)
        if choice.prev != rs.chain:
            raise CheatDetected(f"{name} sent a choice that does not follow the log "
                                "(replayed or forged)", seat=home, fault=CryptoFault.REPLAY)
        self._open_hand(rs, seat, ())
        try:
            rnd.check(choice.action)
        except IllegalAction as e:
            rule = f" ({e.rule})" if e.rule else ""
            raise CheatDetected(f"{name} chose an illegal move ({choice.action}): {e}{rule}",
                                seat=home, fault=CryptoFault.ILLEGAL_CLAIM) from None
        return choice

    def _check_choice(self, rs: _RoundState, record: ActRecord, author: int,
                      shown: Sequence[Position]) -> None:
        """An action for a seat taken over that carries its person's choice: the choice
        must be signed by the seat's key and name exactly this record (round, index,
        prev, seat, action); a fault names the node that sent it. The engine check of
        the action follows in :meth:`_take_up`."""
        choice = record.choice
        assert choice is not None
        seat, who, name = record.seat, self.names[author], self.names[record.seat]
        if seat not in rs.bots or self.config.computer(seat):
            raise CheatDetected(f"{who} sent a person's choice for {name}, which is not "
                                "a person's seat taken over", seat=author,
                                fault=CryptoFault.UNEXPECTED)
        if ((choice.round_no, choice.index, choice.prev, choice.seat, choice.action)
                != (record.round_no, record.index, record.prev, seat, record.action)):
            raise CheatDetected(f"{who} sent {record.action} for {name} (taken over) with a "
                                "choice made for another place of the log or another "
                                "action (replayed or forged)", seat=author,
                                fault=CryptoFault.REPLAY)
        if not choice.verify(self.config.table, self.config.seats[seat].key):
            raise CheatDetected(f"{who} sent {record.action} for {name} (taken over) with a "
                                f"choice {name}'s key did not sign (forged)", seat=author,
                                fault=CryptoFault.ILLEGAL_CLAIM)
        self._open_hand(rs, seat, shown)

    # ------------------------------------------------------------------ round end

    def _end_step(self, rs: _RoundState) -> bool:
        if not rs.revealed:
            rs.revealed = True
            for seat in sorted(rs.sessions, key=lambda s: s != rs.primary):
                session = rs.sessions[seat]
                if seat != OBSERVER and session.keys_ready and not session.key_revealed:
                    self._emit_quiet(seat, session.end_round())
            self._drain()
            return True
        primary = self._primary
        if not primary.keys_revealed:
            return False
        self._finish_round(rs)
        return True

    def _finish_round(self, rs: _RoundState) -> None:
        primary = self._primary
        rnd = rs.round
        chains = list(primary.chain_heads())
        if rs.unsent and rs.primary >= 0:
            # this node went silent: its own chain as the others saw it
            count = chains[rs.primary][0] - rs.unsent
            chains[rs.primary] = (count, primary.chain_head(rs.primary, count))
        heads = b"".join(h for _, h in chains)
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
        # seats taken over stay so (run by the lowest live seat) until welcomed back
        self._taken = {s for s in range(self.config.players)
                       if s in rs.recovered or rs.runner(s) != self.config.node_of(s)}
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
