"""The offline audit of a saved table log (``p2p8s audit FILE``), pure.

:func:`verify` takes the signed wire frames a node saved — every frame it sent or
received, in that order, lobby messages included (the file format is
:mod:`p2p8s.store.tablelog`'s) — and re-checks the whole match without trusting anyone:

1. every frame's Ed25519 signature (protocol/wire.md); a frame that does not verify
   means the file was altered, and names the seat whose key it claims;
2. the table setup: the ``setup`` payload (protocol/table.md) signed by the seat-0 key
   it lists gives the roster and rules; every signer must hold the seat it claims;
3. every ``game`` payload, in log order, through a passive observer table
   (:data:`~p2p8s.table.core.OBSERVER`): every mental-poker message and proof, every
   action against the engine, and at each round end — all keys are revealed then — the
   full audit (the shuffles, every dealt, drawn and played card, every hidden claim,
   R-AUDIT) and the scores.

Duplicate copies of one frame (same bytes) are counted once (:attr:`LogReport.duplicates`)
and duplicate copies of one payload are skipped; two *different* payloads signed by one
seat for the same message slot (round, sender, sequence number) are a signed proof of
equivocation and name that seat. A sender's mental-poker messages out of their order
(a log whose frames were moved) are put back in order by their slot
(:attr:`LogReport.reordered`); so is a node's ``leave`` or ``ownkey`` (its own or
relayed) found before crypto frames that node signed in its round (the node's link
keeps the handover last). A failure that only one order of the log shows is no signed
evidence: the best verdict of the orders tried stands (protocol/table.md, "The offline
verifier"). A message missing from the log (a gap in a sender's numbers) is not a
cheat: the log cannot be audited past it (``LogCode.MISSING``).

A verdict that rests on the file rather than on signed evidence — no setup, a frame that
does not verify, a frame no seat signed or of another table, a missing message — is
:attr:`LogReport.damaged`: the rounds before it are audited, the round it stops inside is
incomplete, and nobody is blamed for it.

The report lists each round: audited ok, or the failing seat and why, and the points
(``p2p8s.cli.words.table.report_lines`` says it).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from enum import Enum

import msgpack

from p2p8s import wire
from p2p8s.crypto.errors import Cheat
from p2p8s.crypto.rand import seeded
from p2p8s.errors import RemoteError
from p2p8s.table import events as tev
from p2p8s.table.actions import (
    CRYPTO,
    LEAVE,
    OWNKEY,
    SETUP,
    decode_ownkey,
    decode_round,
)
from p2p8s.table.config import HOST_SEAT, TableConfig
from p2p8s.table.core import OBSERVER, Table
from p2p8s.table.decoding import BadPayload
from p2p8s.table.errors import LogCode


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundReport:
    """One round of the log: ``ok`` (audited and scored), else ``seat`` and ``fault``
    say who failed and why; ``complete`` is False for a round the log stops inside."""

    number: int
    dealer: int | None
    ok: bool
    complete: bool
    seat: int | None = None
    fault: tev.Fault | None = None
    points: tuple[int, ...] = ()
    winner: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class LogReport:
    """The verdict on a log: ``ok`` when every frame verifies, nothing broke a rule and
    every complete round passed its audit. ``fault`` names the first failing seat."""

    ok: bool
    config: TableConfig | None
    frames: int
    rounds: tuple[RoundReport, ...]
    totals: tuple[int, ...] = ()
    winner: int | None = None
    finished: bool = False
    fault: tev.Fault | None = None
    #: further copies of frames already counted (``frames`` counts each frame once)
    duplicates: int = 0
    #: messages taken out of the log's order (put back by their sender's numbering)
    reordered: int = 0

    @property
    def damaged(self) -> bool:
        """True when the verdict is about the file, not about a seat (see the module
        docstring): ``fault`` is one of :data:`DAMAGE`."""
        return self.fault is not None and self.fault.code in DAMAGE


#: The log faults that say the file is damaged or incomplete, not that a seat cheated.
DAMAGE = frozenset({LogCode.NO_SETUP, LogCode.UNREADABLE, LogCode.ALTERED,
                    LogCode.WRONG_KEY, LogCode.OTHER_TABLE, LogCode.MISSING})


def _body(frame: bytes) -> bytes:
    """The frame body: strips the u32 length prefix when present."""
    if (len(frame) >= wire.PREFIX_LENGTH
            and int.from_bytes(frame[:wire.PREFIX_LENGTH], "big")
            == len(frame) - wire.PREFIX_LENGTH):
        return frame[wire.PREFIX_LENGTH:]
    return frame


def _claimed_key(body: bytes) -> bytes:
    return body[1:1 + wire.KEY_LENGTH] if len(body) > wire.KEY_LENGTH else b""


def _find_config(games: Sequence[tuple[bytes, bytes]]) -> TableConfig | None:
    """The setup signed by the seat-0 key it names (else the first setup that parses)."""
    first: TableConfig | None = None
    for key, payload in games:
        if payload[:1] != bytes([SETUP]):
            continue
        try:
            config = TableConfig.from_bytes(payload[1:])
        except BadPayload:
            continue
        if config.seats[HOST_SEAT].key == key:
            return config
        first = first or config
    return first


def verify(frames: Sequence[bytes]) -> LogReport:
    """Re-verify a saved table log (see the module docstring); never raises for bad data.
    A fault's ``index`` is the position of the frame in ``frames``."""
    bodies: list[tuple[int, bytes]] = []
    copies: set[bytes] = set()
    for i, frame in enumerate(frames):
        body = _body(frame)
        if body not in copies:
            copies.add(body)
            bodies.append((i, body))
    duplicates = len(frames) - len(bodies)
    received: list[wire.Received] = []
    broken: tuple[int, bytes, RemoteError] | None = None
    for i, body in bodies:
        try:
            received.append(wire.decode_body(body))
        except RemoteError as e:
            broken = (i, _claimed_key(body), e)
            break
    games = [(r.key, r.message.body.payload) for r in received
             if isinstance(r.message.body, wire.Game) and r.message.body.payload]
    config = _find_config(games)
    if config is None:
        missing = tev.Fault(None, LogCode.NO_SETUP)
        if broken is not None:
            missing = tev.Fault(None, LogCode.UNREADABLE, {"index": broken[0],
                                                            "cause": broken[2]})
        return LogReport(ok=False, config=None, frames=len(bodies), rounds=(),
                         fault=missing, duplicates=duplicates)
    replay = _replayed(config, received)
    fault, table = replay.fault, replay.table
    if broken is not None and fault is not None and fault.code is LogCode.MISSING:
        fault = None  # the replay stopped at the damaged frame: the gap is its shadow
    failed = table.failed
    if _early(failed):
        assert failed is not None
        failed = tev.Fault(None, LogCode.MISSING, {
            "author": failed.seat, "round": table.round_number,
            "expected": failed.params.get("expected"), "seq": failed.params.get("seq")})
    if fault is None and failed is None and broken is not None:
        i, key, why = broken
        seat = config.seat_of_key(key)
        fault = tev.Fault(seat, LogCode.ALTERED, {"index": i, "cause": why})
    fault = failed or fault
    report = _report(config, len(bodies), replay.events, table, fault)
    return LogReport(ok=report.ok, config=config, frames=len(bodies), rounds=report.rounds,
                     totals=report.totals, winner=report.winner, finished=report.finished,
                     fault=fault, duplicates=duplicates, reordered=replay.moved)


def _replayed(config: TableConfig, received: Sequence[wire.Received]) -> _Replay:
    """The replay whose verdict stands: in log order; where that fails or waits for
    good, the best (:func:`_rank`) of a node's order and that with the handovers last."""
    replay = _Replay(config, received, order=_Order.LOG)
    failed = replay.table.failed is not None  # (an equivocation is one in any order)
    if failed or _rank(replay) == _STUCK:
        again = _Replay(config, received, order=_Order.CAUSAL)
        tries = [again] if not _rank(again) else [
            again, _Replay(config, received, order=_Order.HANDOVER)]
        best = min(tries, key=_rank)
        if _rank(best) < _rank(replay) or (failed and again.moved):
            replay = best
    return replay


_STUCK, _FAILED = 1, 2


def _rank(replay: _Replay) -> int:
    """0 when the replay took in the whole log, 1 when it waited for good for a message
    the log lacks (damage), :data:`_FAILED` when something failed in it. A failure
    that one order of the log shows and another not rests on the order, not on signed
    evidence: the lowest rank of the orders tried stands."""
    fault = replay.fault
    if replay.table.failed is not None or (fault is not None
                                           and fault.code is not LogCode.MISSING):
        return _FAILED
    return 0 if fault is None else _STUCK


def _early(fault: tev.Fault | None) -> bool:
    """A message that came before an earlier one of its sender (not signed evidence)."""
    return fault is not None and fault.code is Cheat.ARRIVED_EARLY


class _Order(Enum):
    """The order a :class:`_Replay` takes the log's payloads in."""

    LOG = "log"  #: as the file holds them (the observer's intake holds what must wait)
    CAUSAL = "causal"  #: a mental-poker message after its sender's earlier ones, its causes
    #: CAUSAL, and a node's ``leave`` and its ``ownkey`` (its own or relayed) after every
    #: mental-poker frame the node signed in that round: its link keeps their order, and
    #: it sends nothing of the round after them (protocol/table.md, "Leaving")
    HANDOVER = "handover"


@dataclass(frozen=True, slots=True)
class _Handover:
    """A ``leave`` or ``ownkey`` payload: in ``round``, ``node`` hands its seats over."""

    round: int
    node: int
    signer: int
    payload: bytes
    #: the position of its frame in the log
    at: int = 0


def _handover(signer: int, payload: bytes) -> _Handover | None:
    """The handover a payload states, or None (another kind, or a body that does not
    decode: the observer table names it)."""
    try:
        if payload[:1] == bytes([LEAVE]):
            return _Handover(decode_round(payload[1:]), signer, signer, payload)
        if payload[:1] == bytes([OWNKEY]):
            number, node, _ = decode_ownkey(payload[1:])
            return _Handover(number, node, signer, payload)
    except BadPayload:
        return None
    return None


class _Replay:
    """One pass of the log's game payloads through an observer table, in ``order``:
    for CAUSAL and HANDOVER a sender's mental-poker messages are held until the ones
    before them came."""

    def __init__(self, config: TableConfig, received: Sequence[wire.Received], *,
                 order: _Order) -> None:
        self.table = table = Table(config, me=OBSERVER, rand=seeded(b"p2p8s/v1/observer"))
        self.events: list[tev.Event] = list(table.start(0.0).events)
        self.fault: tev.Fault | None = None
        self.moved = 0
        #: ((round, sender), the number missing, the next one held) left at the end
        self.gap: tuple[tuple[int, int], int, int | None] | None = None
        seen: dict[tuple[int, tuple[int, int, int]], bytes] = {}
        done: set[tuple[int, bytes]] = set()
        games: Iterable[tuple[int, bytes]] = self._games(config, received)
        if order is not _Order.LOG:
            games = self._in_order(list(games), handovers=order is _Order.HANDOVER)
        for signer, payload in games:
            if (signer, payload) in done:
                continue
            done.add((signer, payload))
            stamp = _stamp(payload)
            if stamp is not None:
                slot = (stamp.round, stamp.seat, stamp.seq)
                other = seen.setdefault((signer, slot), payload)
                if other != payload:
                    self.fault = tev.Fault(signer, LogCode.EQUIVOCATION, {
                        "round": slot[0], "author": slot[1], "seq": slot[2]})
                    break
            self.events.extend(table.receive(signer, payload, 0.0).events)
            if table.failed is not None:
                break
        else:
            gap = table.missing() if table.failed is None else None
            if self.gap is None and gap is not None:
                self.gap = ((gap.round, gap.seat), gap.expected, gap.seq)
            if self.gap is not None and self.fault is None:
                (rnd, author), expected, seq = self.gap
                self.fault = tev.Fault(None, LogCode.MISSING, {
                    "author": author, "round": rnd, "expected": expected, "seq": seq})

    def _games(self, config: TableConfig,
               received: Sequence[wire.Received]) -> Iterator[tuple[int, bytes]]:
        """``(signer seat, payload)`` of every game frame; stops at a frame no seat
        signed or of another table (:attr:`fault`)."""
        for r in received:
            msg, content = r.message, r.message.body
            if not isinstance(content, wire.Game):
                continue
            signer = config.seat_of_key(r.key)
            if signer is None or (msg.seat is not None and msg.seat != signer):
                self.fault = tev.Fault(signer, LogCode.WRONG_KEY, {
                    "key": r.key.hex()[:16], "claimed": msg.seat})
                return
            if msg.table != config.table:
                self.fault = tev.Fault(signer, LogCode.OTHER_TABLE)
                return
            yield signer, content.payload

    def _in_order(self, games: Sequence[tuple[int, bytes]], *, handovers: bool
                  ) -> Iterator[tuple[int, bytes]]:
        """``games`` in an order a node could have received them: a mental-poker message
        waits for its sender's earlier ones, for those its echo says it had seen, for
        every held message of an earlier round and for the observer to reach its round
        (causal delivery); with ``handovers`` a node's ``leave`` and ``ownkey`` of a
        round also wait for every mental-poker frame it signed in that round."""
        got: dict[tuple[int, int], int] = {}  # (round, seat) -> messages delivered
        held: list[tuple[_Stamp, int, bytes]] = []
        table = self.table
        last: dict[tuple[int, int], int] = {}  # (round, signer) -> its last crypto frame
        waiting: list[_Handover] = []  # every handover of the log, until it is due
        if handovers:
            for n, (signer, payload) in enumerate(games):
                if (stamp := _stamp(payload)) is not None:
                    last[stamp.round, signer] = n
                elif (h := _handover(signer, payload)) is not None:
                    waiting.append(replace(h, at=n))
        late = {h.at for h in waiting}

        def after(h: _Handover, read: int) -> bool:
            """True once every crypto frame ``h.node`` signed in ``h.round`` was taken
            (the first ``read`` frames hold them, none is held) and the observer reached
            the round; a node without one there hands over where its frame is."""
            return (read > last.get((h.round, h.node), h.at)
                    and max(1, table.round_number) >= h.round
                    and not any(s.round == h.round and by == h.node for s, by, _ in held))

        def handed(read: int) -> Iterator[tuple[int, bytes]]:
            while (h := next((h for h in waiting if after(h, read)), None)) is not None:
                waiting.remove(h)
                self.moved += read != h.at + 1
                yield h.signer, h.payload

        def ready(stamp: _Stamp) -> bool:
            return (stamp.round <= max(1, table.round_number)
                    and got.get((stamp.round, stamp.seat), 0) == stamp.seq - 1
                    and all(got.get((stamp.round, j), 0) >= c
                            for j, c in enumerate(stamp.seen) if j != stamp.seat)
                    and not any(h[0].round < stamp.round for h in held))

        def take(stamp: _Stamp) -> None:
            key = (stamp.round, stamp.seat)
            got[key] = max(got.get(key, 0), stamp.seq)

        for read, (signer, payload) in enumerate(games, start=1):
            stamp = _stamp(payload)
            if stamp is not None and stamp.seq > got.get((stamp.round, stamp.seat), 0):
                if not ready(stamp):
                    held.append((stamp, signer, payload))
                    self.moved += 1
                    continue
                take(stamp)
            elif read - 1 in late:
                yield from handed(read)  # as soon as it is due (perhaps before its frame)
                continue
            yield signer, payload  # (unnumbered, or a copy: skipped or an equivocation)
            yield from handed(read)
            while (i := next((i for i, h in enumerate(held) if ready(h[0])), None)) is not None:
                stamp, signer, payload = held.pop(i)
                take(stamp)
                yield signer, payload
                yield from handed(read)
        self.moved += len(waiting)
        yield from ((h.signer, h.payload) for h in waiting)  # behind a gap: no matter
        if held:  # the first message held for good, and the one it waits for
            first = min(held, key=lambda h: (h[0].round, h[0].seat, h[0].seq))[0]
            lacking = [(j, got.get((first.round, j), 0) + 1)
                       for j, c in enumerate(first.seen) if got.get((first.round, j), 0) < c]
            author = first.seat
            if got.get((first.round, author), 0) == first.seq - 1 and lacking:
                author = lacking[0][0]
            self.gap = ((first.round, author), got.get((first.round, author), 0) + 1,
                        first.seq if author == first.seat else 0)


@dataclass(frozen=True, slots=True)
class _Stamp:
    """The order of a mental-poker message: round, sender, number, and how many of each
    seat's messages of the round its sender had seen (its echo)."""

    round: int
    seat: int
    seq: int
    seen: tuple[int, ...]


def _stamp(payload: bytes) -> _Stamp | None:
    if payload[:1] != bytes([CRYPTO]):
        return None
    try:
        obj = msgpack.unpackb(payload[1:], raw=False, use_list=True)
        return _Stamp(round=int(obj[3]), seat=int(obj[4]), seq=int(obj[5]),
                      seen=tuple(int(c) for c, _ in obj[6]))
    except (ValueError, TypeError, IndexError, msgpack.UnpackException):
        return None


def _report(config: TableConfig, count: int, events: Sequence[tev.Event], table: Table,
            fault: tev.Fault | None) -> LogReport:
    rounds: list[RoundReport] = []
    dealers: dict[int, int] = {}
    for e in events:
        if isinstance(e, tev.RoundStarted):
            dealers[e.number] = e.dealer
        elif isinstance(e, tev.RoundOver):
            res = e.result
            rounds.append(RoundReport(
                number=res.number, dealer=res.dealer, ok=e.audit_ok, complete=True,
                seat=None if e.audit_ok else (fault.seat if fault else None),
                fault=e.fault, points=res.points if e.audit_ok else (),
                winner=res.winner))
    last = table.round_number
    if last and not any(r.number == last for r in rounds):
        if fault is not None and fault.code not in DAMAGE:
            rounds.append(RoundReport(number=last, dealer=dealers.get(last), ok=False,
                                      complete=False, seat=fault.seat, fault=fault))
        elif not table.finished:
            rounds.append(RoundReport(number=last, dealer=dealers.get(last), ok=True,
                                      complete=False))
    match = table.match
    ok = fault is None and all(r.ok for r in rounds)
    return LogReport(ok=ok, config=config, frames=count, rounds=tuple(rounds),
                     totals=tuple(match.totals), winner=match.winner,
                     finished=table.finished, fault=fault)


def records_from_frames(config: TableConfig, frames: Sequence[bytes], *,
                        me: int, signer: int | None = None) -> list[tuple[int, bytes]]:
    """The ``(sender seat, payload)`` records of a node's saved signed frames, for
    :meth:`~p2p8s.table.Table.restore` of seat ``me``: every frame's Ed25519 signature
    is checked and its signer must hold the seat it claims, so the records carry each
    author's own word, not the word of the peer that sent the log. Payloads meant for
    another seat (``to``) and non-game frames are left out.

    The frames come from a peer (its log): raises :class:`~p2p8s.errors.RemoteError`
    (``seat`` None: the caller names the sender) for a frame that does not verify
    (``LogCode.FRAME_BAD``, ``claimed``: the seat it claims) or whose key does not hold
    its seat (``LogCode.FRAME_KEY``). With ``signer``: only the frames that claim that
    seat's key (the others are not checked).
    """
    records: list[tuple[int, bytes]] = []
    only = config.seats[signer].key if signer is not None else None
    for i, frame in enumerate(frames):
        body = _body(frame)
        if only is not None and _claimed_key(body) != only:
            continue
        try:
            received = wire.decode_body(body)
        except RemoteError as e:
            seat = config.seat_of_key(_claimed_key(body))
            raise RemoteError(LogCode.FRAME_BAD, seat=None, index=i, claimed=seat,
                              cause=e) from None
        msg, content = received.message, received.message.body
        if not isinstance(content, wire.Game) or not content.payload:
            continue
        signer = config.seat_of_key(received.key)
        if signer is None or (msg.seat is not None and msg.seat != signer):
            raise RemoteError(LogCode.FRAME_KEY, seat=None, index=i, claimed=msg.seat)
        if msg.table != config.table or content.to not in (None, me):
            continue
        records.append((signer, content.payload))
    return records
