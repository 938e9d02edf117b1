"""Game actions on the wire: the table payload framing and the action record.

Every table payload (the opaque bytes of a wire ``game`` envelope) is one byte of kind
and a body (protocol/table.md):

====  ======  ===========================================================
kind  name    body
====  ======  ===========================================================
1     crypto  a mental-poker message (:mod:`p2p8s.crypto.messages`) — the game actions
              travel inside its ``Act`` kind, so they are chained and echoed with the
              rest of the round
2     setup   the :class:`~p2p8s.table.config.TableConfig` the sender plays under
3     stop    :class:`StopNotice`: the sender stopped the table on a fault
4     leave   ``[round]``: the sender's player left; the others take its seats over
5     welcome ``[round]``: to a seat that was taken over and is back: deal in from
              ``round`` (sent by the lowest live seat, which ran the seat)
6     resync  ``[[sender, payload], …]``: every payload the sender took in or sent,
              in order, for a node that comes back (``Table.restore``)
7     restarted ``[round]``: the sender was restored from the log and lost its keys
              of ``round``: take its seats of that round over now
8     choice  :class:`Choice`: the person of a seat taken over, back at its own node,
              picks the seat's next action; the node that sends the seat's actions
              puts it (signed) into the action record instead of the computer's move
9     ownkey  ``[round, node, [[seat, key], …]]``: ``node`` restarted and recomputed
              its round keys ``e_seat`` (32-byte scalars) of the seats it runs in
              ``round`` from its per-table secret; every node checks
              ``key·G = Y_seat`` and takes the seats over as after an escrow recovery
              (any node relays it once, unchanged)
====  ======  ===========================================================

An action record (the ``data`` of an ``Act``) is the msgpack array
``[round, index, seat, prev, action, positions]`` or, for a seat taken over whose person
chose the action, ``[round, index, seat, prev, action, positions, choice]``: the round
number, the action's index in the round log (0, 1, …), the author seat (the seat on
turn), ``prev`` — the 32-byte chain hash of the log before it (:func:`chain_start`,
:func:`chain_next`) — the action in compact text (``draw``, ``pass``, ``take``,
``QS,QH``, ``8S/H``), for a play the crypto positions ``[[epoch, index], …]`` of the
cards in the order of the text (shown just before by the author's ``PlayCards``), and
the signed :class:`Choice` array it carries out.

A choice (payload kind 8, and the 7th field of a record) is the msgpack array
``[round, index, prev, seat, action, signature]``; ``signature`` is the Ed25519
signature (64 bytes) by the seat's identity key (``TableConfig.seats[seat].key``) over
``lp("p2p8s/v1/choice") ‖ lp(table) ‖ lp(msgpack [round, index, prev, seat, action])``
(``lp`` = u32 big-endian length prefix; :meth:`Choice.signed_bytes`).

The bodies come from peers: every decoder here raises
:class:`~p2p8s.table.decoding.BadPayload` (a remote error; the caller names the sender).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from p2p8s.crypto.deck import Position
from p2p8s.engine import Action, format_action, parse_action
from p2p8s.table.decoding import PayloadCode, PayloadProblem, decoding, refuse

CRYPTO = 1
SETUP = 2
STOP = 3
LEAVE = 4
WELCOME = 5
RESYNC = 6
RESTARTED = 7
CHOICE = 8
OWNKEY = 9
#: Most records a resync payload may hold.
MAX_RECORDS = 1_000_000
ACT_TAG = b"p2p8s/v1/act"
CHOICE_TAG = b"p2p8s/v1/choice"
SIGNATURE_LENGTH = 64


def _lp(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def chain_start(table: bytes, round_no: int, round_id: bytes) -> bytes:
    """The action chain head before a round's first action (32 bytes)."""
    data = _lp(ACT_TAG) + _lp(table) + _lp(round_no.to_bytes(8, "big")) + _lp(round_id)
    return hashlib.sha512(data).digest()[:32]


def chain_next(head: bytes, data: bytes) -> bytes:
    """The chain head after an action record with bytes ``data``."""
    return hashlib.sha512(_lp(ACT_TAG) + head + _lp(data)).digest()[:32]


#: The compact action text of the action records (one canonical form, from the engine).
action_text = format_action


def _number(v: object) -> int:
    if type(v) is not int or not 0 <= v < 2**32:
        refuse(PayloadProblem.NUMBER)
    return v


@dataclass(frozen=True, slots=True, kw_only=True)
class Choice:
    """The action the person of a seat taken over picked at its own node (kind 8).

    ``round_no``, ``index`` and ``prev`` name the place in the round's action log (the
    index and the chain head before it, as in :class:`ActRecord`), ``seat`` the seat,
    ``action`` what it does there; ``signature`` (64 bytes) is the Ed25519 signature by
    the seat's identity key over :meth:`signed_bytes`. msgpack
    ``[round, index, prev, seat, action, signature]``.
    """

    round_no: int
    index: int
    prev: bytes
    seat: int
    action: Action
    signature: bytes = b""

    def fields(self) -> list[object]:
        """The signed fields as a msgpack-able list (no signature)."""
        return [self.round_no, self.index, self.prev, self.seat, action_text(self.action)]

    def signed_bytes(self, table: bytes) -> bytes:
        """What the signature covers: ``lp(CHOICE_TAG) ‖ lp(table) ‖ lp(msgpack fields)``."""
        packed: bytes = msgpack.packb(self.fields(), use_bin_type=True)
        return _lp(CHOICE_TAG) + _lp(table) + _lp(packed)

    def verify(self, table: bytes, key: bytes) -> bool:
        """True if ``signature`` is the Ed25519 signature of ``key`` (32 raw bytes) over
        :meth:`signed_bytes` of ``table``; never raises."""
        try:
            Ed25519PublicKey.from_public_bytes(key).verify(self.signature,
                                                           self.signed_bytes(table))
        except (InvalidSignature, ValueError):
            return False
        return True

    def to_obj(self) -> list[object]:
        """The msgpack array (the signed fields, then the signature)."""
        return [*self.fields(), self.signature]

    def encode(self) -> bytes:
        """The canonical msgpack bytes (the body of a ``choice`` payload)."""
        packed: bytes = msgpack.packb(self.to_obj(), use_bin_type=True)
        return packed

    @classmethod
    def from_obj(cls, obj: object) -> Choice:
        """Parse the msgpack array (inside a :func:`~p2p8s.table.decoding.decoding`
        block, which names the payload it is in)."""
        if type(obj) is not list or len(obj) != 6:
            refuse(PayloadProblem.CHOICE)
        round_no, index, prev, seat, text, signature = obj
        if type(prev) is not bytes or len(prev) != 32 or type(text) is not str:
            refuse(PayloadProblem.CHOICE_FIELD)
        if type(signature) is not bytes or len(signature) != SIGNATURE_LENGTH:
            refuse(PayloadProblem.SIGNATURE)
        return cls(round_no=_number(round_no), index=_number(index), prev=prev,
                   seat=_number(seat), action=parse_action(text), signature=signature)

    @classmethod
    def decode(cls, data: bytes) -> Choice:
        """Parse canonical bytes; raises :class:`~p2p8s.table.decoding.BadPayload`
        (:attr:`~p2p8s.table.decoding.PayloadCode.CHOICE`; the signature is not checked)."""
        with decoding(PayloadCode.CHOICE):
            choice = cls.from_obj(msgpack.unpackb(data, raw=False, use_list=True,
                                                  strict_map_key=True))
            if choice.encode() != data:
                refuse(PayloadProblem.NOT_CANONICAL)
        return choice


@dataclass(frozen=True, slots=True, kw_only=True)
class ActRecord:
    """One game action as sent by the seat on turn (see the module docstring); ``choice``:
    the signed choice of the person of a seat taken over that this action carries out
    (``None``: the seat's own action, or the takeover computer's move)."""

    round_no: int
    index: int
    seat: int
    prev: bytes
    action: Action
    positions: tuple[Position, ...] = ()
    choice: Choice | None = None

    def encode(self) -> bytes:
        """The canonical msgpack bytes."""
        obj: list[object] = [self.round_no, self.index, self.seat, self.prev,
                             action_text(self.action), [list(p) for p in self.positions]]
        if self.choice is not None:
            obj.append(self.choice.to_obj())
        packed: bytes = msgpack.packb(obj, use_bin_type=True)
        return packed

    @classmethod
    def decode(cls, data: bytes) -> ActRecord:
        """Parse canonical bytes; raises :class:`~p2p8s.table.decoding.BadPayload`
        (:attr:`~p2p8s.table.decoding.PayloadCode.ACTION`)."""
        with decoding(PayloadCode.ACTION):
            obj = msgpack.unpackb(data, raw=False, use_list=True, strict_map_key=True)
            if type(obj) is not list or len(obj) not in (6, 7):
                refuse(PayloadProblem.RECORD)
            round_no, index, seat, prev, text, positions = obj[:6]
            choice = Choice.from_obj(obj[6]) if len(obj) == 7 else None
            for v in (round_no, index, seat):
                _number(v)
            if type(prev) is not bytes or len(prev) != 32 or type(text) is not str:
                refuse(PayloadProblem.FIELD)
            if type(positions) is not list or len(positions) > 8:
                refuse(PayloadProblem.POSITIONS)
            pos: list[Position] = []
            for p in positions:
                if (type(p) is not list or len(p) != 2
                        or not all(type(x) is int and 0 <= x < 2**16 for x in p)):
                    refuse(PayloadProblem.POSITION)
                pos.append((p[0], p[1]))
            record = cls(round_no=round_no, index=index, seat=seat, prev=prev,
                         action=parse_action(text), positions=tuple(pos), choice=choice)
            if record.encode() != data:
                refuse(PayloadProblem.NOT_CANONICAL)
        return record


@dataclass(frozen=True, slots=True, kw_only=True)
class StopNotice:
    """The sender stopped on a fault: in round ``round_no`` it blames ``seat`` (``None``:
    unknown) for ``message``; ``echo`` is its view of every seat's message chain then
    (``(count, head)`` per seat), so peers can check for equivocation themselves.

    msgpack ``[round, seat or nil, message, [[count, head], ...]]``.
    """

    round_no: int
    seat: int | None
    message: str
    echo: tuple[tuple[int, bytes], ...] = ()

    def encode(self) -> bytes:
        """The canonical msgpack bytes."""
        obj = [self.round_no, self.seat, self.message[:500], [list(e) for e in self.echo]]
        packed: bytes = msgpack.packb(obj, use_bin_type=True)
        return packed

    @classmethod
    def decode(cls, data: bytes) -> StopNotice:
        """Parse; raises :class:`~p2p8s.table.decoding.BadPayload`
        (:attr:`~p2p8s.table.decoding.PayloadCode.STOP`)."""
        with decoding(PayloadCode.STOP):
            round_no, seat, message, echo = msgpack.unpackb(data, raw=False, use_list=True)
            if type(round_no) is not int or not (seat is None or type(seat) is int):
                refuse(PayloadProblem.NUMBERS)
            if type(message) is not str or len(message) > 500 or type(echo) is not list:
                refuse(PayloadProblem.FIELDS)
            heads = []
            for e in echo[:8]:
                count, head = e
                if type(count) is not int or type(head) is not bytes or len(head) != 32:
                    refuse(PayloadProblem.ECHO)
                heads.append((count, head))
        # Shown to every player: no escape sequences or line breaks from a peer.
        shown = "".join(c if c.isprintable() else "?" for c in message)
        return cls(round_no=round_no, seat=seat, message=shown, echo=tuple(heads))


def encode_round(round_no: int) -> bytes:
    """The body of a ``leave`` or ``welcome`` payload: msgpack ``[round]``."""
    packed: bytes = msgpack.packb([round_no], use_bin_type=True)
    return packed


def decode_round(data: bytes) -> int:
    """Inverse of :func:`encode_round`; raises :class:`~p2p8s.table.decoding.BadPayload`
    (:attr:`~p2p8s.table.decoding.PayloadCode.ROUND`)."""
    with decoding(PayloadCode.ROUND):
        obj = msgpack.unpackb(data, raw=False, use_list=True)
        (round_no,) = obj
        if type(round_no) is not int or not 0 <= round_no < 2**32:
            refuse(PayloadProblem.ROUND)
        if encode_round(round_no) != data:
            refuse(PayloadProblem.NOT_CANONICAL)
    return int(round_no)


def encode_ownkey(round_no: int, node: int, keys: Sequence[tuple[int, bytes]]) -> bytes:
    """The body of an ``ownkey`` payload: msgpack ``[round, node, [[seat, key], …]]``."""
    packed: bytes = msgpack.packb([round_no, node, [[s, k] for s, k in keys]],
                                  use_bin_type=True)
    return packed


def decode_ownkey(data: bytes) -> tuple[int, int, tuple[tuple[int, bytes], ...]]:
    """Inverse of :func:`encode_ownkey`: ``(round, node, ((seat, key), …))`` with 1..16
    distinct seats in 0..255 and 32-byte keys; raises
    :class:`~p2p8s.table.decoding.BadPayload` (:attr:`~p2p8s.table.decoding.PayloadCode.OWNKEY`)."""
    with decoding(PayloadCode.OWNKEY):
        round_no, node, items = msgpack.unpackb(data, raw=False, use_list=True)
        if type(round_no) is not int or not 0 <= round_no < 2**32:
            refuse(PayloadProblem.ROUND)
        if type(node) is not int or not 0 <= node < 256:
            refuse(PayloadProblem.NODE)
        if type(items) is not list or not 1 <= len(items) <= 16:
            refuse(PayloadProblem.KEY_LIST)
        keys = []
        for item in items:
            seat, key = item
            if type(seat) is not int or not 0 <= seat < 256:
                refuse(PayloadProblem.SEAT)
            if type(key) is not bytes or len(key) != 32:
                refuse(PayloadProblem.KEY)
            keys.append((seat, key))
        if len({s for s, _ in keys}) != len(keys):
            refuse(PayloadProblem.SEAT_TWICE)
        if encode_ownkey(round_no, node, keys) != data:
            refuse(PayloadProblem.NOT_CANONICAL)
    return round_no, node, tuple(keys)


def encode_records(records: Sequence[tuple[int, bytes]]) -> bytes:
    """The body of a ``resync`` payload: msgpack ``[[sender, payload], …]``."""
    packed: bytes = msgpack.packb([[s, p] for s, p in records], use_bin_type=True)
    return packed


def decode_records(data: bytes) -> list[tuple[int, bytes]]:
    """Inverse of :func:`encode_records`; raises :class:`~p2p8s.table.decoding.BadPayload`
    (:attr:`~p2p8s.table.decoding.PayloadCode.RESYNC`)."""
    with decoding(PayloadCode.RESYNC):
        obj = msgpack.unpackb(data, raw=False, use_list=True,
                              max_array_len=MAX_RECORDS, max_bin_len=1 << 20)
        if type(obj) is not list:
            refuse(PayloadProblem.NOT_A_LIST)
        out = []
        for item in obj:
            sender, payload = item
            if type(sender) is not int or not 0 <= sender < 8 or type(payload) is not bytes:
                refuse(PayloadProblem.RECORD)
            out.append((sender, payload))
    return out
