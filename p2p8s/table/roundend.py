"""The round end: keys revealed, the audit, the score and the transcript (sans-IO).

When the engine says the round is over (or a card decoded to nothing) every local seat
reveals its key — first, with a preset whose round end draws cards (players in the air,
the loser's tie draws, R-ZW-OUT, R-ZW-SCORE), every node declares a reshuffle of the
discards but the top (R-RESHUFFLE) and waits for it, so the draws never run out of a
stock order the audit can check; the engine at a table leaves those draws to the
audit's replay (the loser depends on every hand), and the replayed round, every card
known, becomes the node's round. With every key known the node audits the round — the
crypto audit of every shuffle, strip and played card, and the replay of every action with every card
known (R-AUDIT, :func:`~p2p8s.crypto.audit.check_claims`) — shows the open hands and
scores it (R-PTS-*). The same replay asks each computer seat's bot again before each of
its moves (:mod:`p2p8s.table.botaudit`): a move the host steered names the host. A failed
audit is a ``RoundOver`` with ``audit_ok`` False and a
fault naming the seat. :class:`Transcript` is the chain hash over the config, every
applied action and every audited round's message chains: equal on every honest node.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from enum import Enum
from functools import partial

from p2p8s.crypto.audit import check_claims
from p2p8s.crypto.session import Session
from p2p8s.engine import EndedBy
from p2p8s.errors import RemoteError
from p2p8s.match import RoundResult
from p2p8s.table import events as tev
from p2p8s.table.botaudit import BotMove, checker
from p2p8s.table.context import Ctx, Phase
from p2p8s.table.deal import Deal
from p2p8s.table.errors import TableCode, TableError
from p2p8s.table.log import ActionLog
from p2p8s.table.seats import Seats
from p2p8s.table.sessions import LocalSessions

TRANSCRIPT_TAG = b"p2p8s/v1/transcript"


class Transcript:
    """The chain hash of the table (32 bytes) and how many entries it covers."""

    def __init__(self, config_bytes: bytes) -> None:
        self.head = hashlib.sha512(TRANSCRIPT_TAG + config_bytes).digest()[:32]
        self.entries = 0

    def note(self, entry: bytes) -> None:
        """Chain one more entry in."""
        self.head = hashlib.sha512(TRANSCRIPT_TAG + self.head + entry).digest()[:32]
        self.entries += 1


class EndStep(Enum):
    """What one :meth:`RoundEnd.step` did."""

    WAIT = "wait"  #: keys (or the round end's reshuffle) still missing
    MOVED = "moved"  #: the round end's reshuffle was declared, or the keys revealed
    NEXT = "next"  #: audited and scored: the next round begins
    DONE = "done"  #: audited and scored: the match is over


class RoundEnd:
    """The end of the current round on this node (see the module docstring). No timer."""

    def __init__(self, ctx: Ctx, sessions: LocalSessions, log: ActionLog, deal: Deal,
                 seats: Seats, *,
                 bot_moves: Callable[[], Mapping[int, BotMove]] = dict) -> None:
        self._ctx = ctx
        self._bot_moves = bot_moves  # this round's computer-seat moves to replay
        self._sessions = sessions
        self._log = log
        self._deal = deal
        self._seats = seats
        self.transcript = Transcript(ctx.config.to_bytes())
        self.begin()

    def begin(self) -> None:
        """A new round: no key revealed."""
        self.revealed = False
        #: the epoch of the round end's reshuffle, once declared
        self.end_epoch: int | None = None

    def get_timer(self) -> float | None:
        """The round end waits for keys, never for the clock."""
        return None

    def step(self) -> EndStep:
        """Reveal the local keys, then audit and score once every key is in. Raises
        the RemoteError naming the seat when the audit fails (after telling the
        ``RoundOver``)."""
        if not self.revealed:
            wait = self._end_reshuffle()
            if wait is not None:
                return wait
            self.revealed = True
            self._sessions.reveal_keys()
            return EndStep.MOVED
        if not self._sessions.primary.keys_revealed:
            return EndStep.WAIT
        return self._finish()

    def _end_reshuffle(self) -> EndStep | None:
        """R-ZW-OUT / R-ZW-SCORE with R-RESHUFFLE: declare the reshuffle the round end's
        draws may need (how many there are depends on every hand, known only after the
        keys) and wait for it; None when there is none to wait for. Every node declares
        it at the same point: after the last action, before any key."""
        sessions, rnd, deck = self._sessions, self._log.round, self._log.deck
        if self.end_epoch is None:
            if rnd is None or deck is None or not rnd.over or not self._end_draws_may_refill():
                return None
            self.end_epoch = sessions.primary.epochs
            sessions.each(partial(Session.reshuffle, positions=deck.discard[:-1]))
            return EndStep.MOVED
        shuffled = all(s.epoch_size(self.end_epoch) for s in sessions.by_seat.values())
        return None if shuffled else EndStep.WAIT

    def _end_draws_may_refill(self) -> bool:
        rnd, deck = self._log.round, self._log.deck
        assert rnd is not None and deck is not None
        table = rnd.rules.rule_table
        if not rnd.rules.reshuffle or len(deck.discard) < 2:
            return False
        # the loser's tie draws have no bound known before the keys
        return table.loser or (table.in_the_air and sum(rnd.air) > len(deck.stock))

    def _finish(self) -> EndStep:
        ctx, sessions, log, deal = self._ctx, self._sessions, self._log, self._deal
        primary = sessions.primary
        rnd = log.round
        chains = list(primary.chain_heads())
        if sessions.unsent and sessions.primary_seat >= 0:
            # this node went silent: its own chain as the others saw it
            seat = sessions.primary_seat
            count = chains[seat][0] - sessions.unsent
            chains[seat] = (count, primary.chain_head(seat, count))
        heads = b"".join(h for _, h in chains)
        self.transcript.note(ctx.number.to_bytes(4, "big") + heads)
        try:
            report = primary.audit()
            if rnd is None or not rnd.over:
                raise TableError(TableCode.STOPPED_EARLY, seat=None)
            for b in log.buffer:
                raise TableError(TableCode.ACTED_AFTER_END, seat=b.seat, player=b.seat)
            for seat, shown in log.played.items():
                if shown:
                    raise TableError(TableCode.SHOWED_NEVER_PLAYED, seat=seat, player=seat)
            replay = check_claims(report, ctx.config.rules, players=ctx.players,
                                  dealer=deal.dealer, actions=log.actions,
                                  hand_size=deal.sizes, wild=deal.wild,
                                  before=checker(self._bot_moves(), ctx.number, ctx.match))
            # the round end's draws (the replay's alone) may have reshuffled the pile
            discard = rnd.discard if replay.reshuffles == rnd.reshuffles else rnd.discard[-1:]
            if (replay.ended_by != rnd.ended_by or replay.winner != rnd.winner
                    or replay.discard != discard or replay.reshuffles - rnd.reshuffles > 1):
                raise TableError(TableCode.REPLAY_DIFFERS, seat=None)
        except RemoteError as e:
            hands = tuple(tuple(str(c) for c in h if c is not None)
                          for h in (rnd.hands if rnd is not None else []))
            result = RoundResult(number=ctx.number, dealer=deal.dealer,
                                 ended_by=rnd.ended_by if rnd and rnd.ended_by
                                 else EndedBy.BLOCKED,
                                 winner=rnd.winner if rnd else None,
                                 points=(0,) * ctx.players, hands=hands)
            ctx.tell(tev.RoundOver(result, hands, False, tev.Fault.of(e, e.seat)))
            raise
        # seats taken over stay so (run by the lowest live seat) until welcomed back
        self._seats.taken = self._seats.taken_at_end()
        log.round = replay  # every card known, with the round end's draws

        result = ctx.match.finish_round(replay)
        ctx.tell(tev.RoundOver(result, result.hands, True))
        if ctx.match.over:
            assert ctx.match.winner is not None
            ctx.phase = Phase.DONE
            ctx.tell(tev.MatchOver(ctx.match.winner, tuple(ctx.match.totals)))
            return EndStep.DONE
        return EndStep.NEXT
