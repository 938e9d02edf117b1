"""The round-end audit of the host's computer seats (sans-IO, pure).

A computer seat is played by the host's node, which sees its hand: checked for legality
only, the host could steer it. So its moves are a pure function of public data: the
seat's bot (:func:`~p2p8s.bots.registry.get_bot`) chooses on the seat's view, from the
engine's legal actions, with a :class:`random.Random` seeded by :func:`bot_seed` — the
action chain at its place in the log (which starts at the joint round id), the round
number, the place and the seat. At round end, every card known, every node replays the
round (:func:`~p2p8s.crypto.audit.check_claims`) and, before each such move, asks the
bot again; a move that differs names the node that sent it (:attr:`BotAuditCode.STEERED`).
protocol/mental-poker.md, "Computer seats".
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from p2p8s.bots.base import view_of
from p2p8s.bots.registry import get_bot
from p2p8s.engine import Action, Round
from p2p8s.errors import Code, RemoteError
from p2p8s.match import Match

BOT_TAG = b"p2p8s/v1/bot"


class BotAuditCode(Code):
    """What the computer-seat audit found (values are stable names)."""

    #: ``host`` (its node; also ``seat``) sent ``action`` for the computer seat
    #: ``player`` at log place ``index`` where its bot plays ``expected``
    STEERED = "table-bot-steered"


@dataclass(frozen=True, slots=True, kw_only=True)
class BotMove:
    """A computer seat's move to replay: ``player`` (the seat) with bot ``bot`` at log
    place ``index``, after the action chain ``prev`` (32 bytes), sent by ``host``'s node."""

    player: int
    bot: str
    index: int
    prev: bytes
    host: int
    action: Action


def bot_seed(prev: bytes, round_no: int, index: int, seat: int) -> random.Random:
    """The RNG of a computer seat's move at log place ``index`` after the chain ``prev``:
    ``Random(int(SHA-256(BOT_TAG ‖ prev ‖ u32 round ‖ u32 index ‖ u8 seat)))``."""
    data = (BOT_TAG + prev + round_no.to_bytes(4, "big") + index.to_bytes(4, "big")
            + bytes([seat]))
    return random.Random(int.from_bytes(hashlib.sha256(data).digest(), "big"))


def bot_move(rnd: Round, seat: int, bot: str, rng: random.Random,
             match: Match | None) -> Action:
    """The move the bot ``bot`` makes for ``seat`` on turn in ``rnd`` (its view only)."""
    return get_bot(bot).choose(view_of(rnd, seat, match), rnd.legal_actions(), rng)


def checker(moves: Mapping[int, BotMove], round_no: int,
            match: Match | None) -> Callable[[int, Round], None]:
    """The ``before`` hook of :func:`~p2p8s.crypto.audit.check_claims` that replays every
    move of ``moves`` (log place -> move). Raises RemoteError (:attr:`BotAuditCode.STEERED`)
    naming the host of the first move that differs."""

    def before(index: int, rnd: Round) -> None:
        move = moves.get(index)
        if move is None or rnd.turn != move.player:
            return
        rng = bot_seed(move.prev, round_no, index, move.player)
        expected = bot_move(rnd, move.player, move.bot, rng, match)
        if expected != move.action:
            raise RemoteError(BotAuditCode.STEERED, seat=move.host, host=move.host,
                              player=move.player, index=index, action=move.action,
                              expected=expected)

    return before
