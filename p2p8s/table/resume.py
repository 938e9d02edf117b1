"""A restarted node takes its own seats back, hand hidden (sans-IO).

Every frame a node sends reaches its own table log before any socket
(protocol/table.md "Coming back" → "Restart with the table secret"), so a restarted
node knows every message it can have sent. :meth:`~p2p8s.table.Table.restore` replays
a peer's log, then the node's own messages the peer lacked; when the node's seats of
the round were not taken over meanwhile (no key rebuilt or handed over, no recovery
begun, run by this node alone) and every message of theirs is in, :func:`take_back`
turns the observer session back into their sessions with the round secrets derived
from the table secret (:meth:`~p2p8s.crypto.session.Session.resume`): they go on at
the next slot of their chains — no ``ownkey``, no ``restarted`` — after sending again
what they sent before (copies are dropped by every intake), and the person plays its
own seat from its next turn with its hand hidden.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2p8s.cards import Card
from p2p8s.crypto.deck import card_face
from p2p8s.crypto.errors import CheatDetected, ProtocolMisuse
from p2p8s.crypto.events import Output as CryptoOutput
from p2p8s.crypto.messages import Message, decode
from p2p8s.crypto.session import Session
from p2p8s.table.actions import CRYPTO
from p2p8s.table.context import OBSERVER, Ctx
from p2p8s.table.errors import TableCode, TableError
from p2p8s.table.log import ActionLog
from p2p8s.table.seats import Seats
from p2p8s.table.sessions import LocalSessions

Records = Sequence[tuple[int, bytes]]


def own_crypto(me: int, own: Records) -> list[tuple[int, bytes]]:
    """The crypto payloads this node (seat ``me``) sent, of ``own`` (its own log)."""
    return [(s, p) for s, p in own if s == me and p[:1] == bytes([CRYPTO])]


def seats_to_resume(ctx: Ctx, sessions: LocalSessions, seats: Seats,
                    log: ActionLog) -> list[int] | None:
    """The seats this restored node may take back now (its own; on the host's node the
    computer seats), or None: no key secret, the round over or not begun, the node's
    table failed or void, a seat it may run taken over (adopted, its key rebuilt, known
    or its recovery begun: the takeover is irrevocable), run by another node too, or
    cards of it shown whose action is not in (the takeover plays those)."""
    me = ctx.me
    if (ctx.key_secret is None or ctx.failed is not None or ctx.void or not ctx.number
            or ctx.match.over or seats.cands.get(me) != {me}):
        return None
    primary = sessions.primary
    mine = [s for s in range(ctx.players) if me in seats.cands.get(s, set())]
    for s in mine:
        if (seats.cands[s] != {me} or s in seats.bots or primary.knows_key(s)
                or primary.recovering(s) or (s != me and not ctx.config.computer(s))
                or log.played.get(s) or log.owner_shown.get(s)):
            return None
    return mine


def _all_in(ctx: Ctx, primary: Session, records: Records, mine: list[int]) -> bool:
    """True when every message of the seats ``mine`` this round in ``records`` is taken
    in by ``primary`` and none waits (its next slot is free)."""
    top = dict.fromkeys(mine, 0)
    for msg in _messages(ctx, records):
        if msg.seat in top:
            top[msg.seat] = max(top[msg.seat], msg.seq)
    heads = primary.chain_heads()
    return all(heads[s][0] == top[s] and not primary.waiting(s) for s in mine)


def _messages(ctx: Ctx, records: Records) -> list[Message]:
    """The crypto messages of the current round among ``records``."""
    found = []
    for _, payload in records:
        if payload[:1] != bytes([CRYPTO]):
            continue
        try:
            msg = decode(payload[1:], sender=None)
        except CheatDetected:
            continue  # taken in already: it failed the table there
        if msg.round_no == ctx.number:
            found.append(msg)
    return found


def take_back(ctx: Ctx, sessions: LocalSessions, log: ActionLog, seats: Seats,
              records: Records) -> bool:
    """Turn this restored node's observer session back into its seats' sessions
    (``records``: every payload the table took in, in order), send its own messages of
    the round again, then what the seats send next; True if it did. False (nothing
    changed) when :func:`seats_to_resume` says no, a message of those seats waits, or
    the round's messages of a seat do not derive from the key secret (then the caller
    sends ``ownkey`` / ``restarted`` as before). Raises TableError when the hand does
    not fit the game (no seat to blame), CheatDetected for a bad share dealt to it."""
    mine = seats_to_resume(ctx, sessions, seats, log)
    primary = sessions.primary
    secret = ctx.key_secret
    if mine is None or secret is None or not _all_in(ctx, primary, records, mine):
        return False
    others: dict[int, tuple[Session, CryptoOutput]] = {}
    try:
        for seat in mine:
            if seat != ctx.me:  # a computer seat of the host: its own session
                session = _observer(sessions)
                others[seat] = (session, session.resume(seat, secret))
        out = primary.resume(ctx.me, secret)
    except ProtocolMisuse:
        return False
    send_again(ctx, records, mine)
    sessions.by_seat = {ctx.me: primary, **{s: so[0] for s, so in others.items()}}
    sessions.primary_seat = ctx.me
    for seat in mine:
        _fill_hand(ctx, log, sessions.by_seat[seat], seat)
    sessions.emit(ctx.me, out)
    for seat, (_, later) in others.items():
        sessions.emit(seat, later)
    sessions.drain()
    return True


def send_again(ctx: Ctx, records: Records, seats: Sequence[int]) -> None:
    """Send every message of ``seats`` of this round in ``records`` again, once each, in
    order: a peer may lack it (its log reached the restored node from another peer);
    every intake drops a copy."""
    sent = {m.encode(): None for m in _messages(ctx, records) if m.seat in seats}
    for body in sent:
        ctx.send(CRYPTO, body)


def _observer(sessions: LocalSessions) -> Session:
    """A new observer session fed the round so far (the journal)."""
    observer = sessions.create(OBSERVER)
    for item in sessions.journal:
        if isinstance(item, Message):
            observer.receive(item)
        else:
            item(observer)
    return observer


def _fill_hand(ctx: Ctx, log: ActionLog, session: Session, seat: int) -> None:
    """Put ``seat``'s cards, known again, into the engine (in the order they came)."""
    rnd, deck = log.round, log.deck
    if rnd is None or deck is None or None not in rnd.hands[seat]:
        return
    hand = session.hand()
    order = list(dict.fromkeys(p for p, s in deck.drawn if s == seat and p in hand))
    order += sorted(p for p in hand if p not in order)
    size = ctx.config.deck_size
    cards: list[Card | None] = [card_face(hand[p], size) for p in order]
    if len(cards) != len(rnd.hands[seat]):
        raise TableError(TableCode.OPEN_HAND, seat=None, player=seat)
    rnd.hands[seat] = cards
    drawn = [p for p, s in deck.drawn if s == seat]
    if rnd.turn == seat and rnd.drawn and rnd.last_drawn is None and drawn[-1:]:
        rnd.last_drawn = card_face(hand[drawn[-1]], size) if drawn[-1] in hand else None
