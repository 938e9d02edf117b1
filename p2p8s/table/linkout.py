"""What a :class:`~p2p8s.table.link.Link` puts out: typed records, notes for people, errors.

Every input of the link returns a list of :data:`Out` records, in the order the adapter
must carry them out (sign and post, send on one connection, log a frame, show, dial…).
Things to tell the player are :class:`Note` values — a :class:`LinkCode` and its data;
``p2p8s.cli.words.runner`` turns them into sentences. The two errors a runner ends with
when the match cannot go on carry a code too (:class:`PeerLost`, :class:`TableFailed`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from p2p8s.errors import Code, Error, IllegalAction, LocalError, Note
from p2p8s.table import events as tev


class LinkCode(Code):
    """Everything a runner tells the player (the data each code carries in brackets)."""

    # --- notes shown at the table (Show) ---------------------------------------------------
    LEFT_TAKEN_OVER = "left-taken-over"  #: [seat] left for good; the computer plays it
    WAITING_FOR_OTHERS = "waiting-for-others"  #: this node is cut off: the game waits
    WAITING_FOR = "waiting-for"  #: [seat] is gone, no escrow: the game waits
    COME_BACK = "come-back"  #: [seat, command] how a lost player comes back
    MISADDRESSED = "misaddressed"  #: [seat (or None), to] a game message for another seat
    PEER_FAULT = "peer-fault"  #: [seat, error] a runner payload that is invalid
    FROZEN = "frozen"  #: [seconds] this process did not run for that long
    ASLEEP_WAITING = "asleep-waiting"  #: [seats] waiting for them to learn what happened
    CAUGHT_UP = "caught-up"  #: after a freeze, nothing was taken over: play goes on
    ASLEEP_GAVE_UP = "asleep-gave-up"  #: [seats, seconds] they did not come back in time
    REBUILD_TAKEN = "rebuild-taken"  #: [seat] its last moves never reached that node
    REBUILD_ASLEEP = "rebuild-asleep"  #: [seat] that node took the seat over meanwhile
    REBUILD_HELD = "rebuild-held"  #: [seat] its table held its moves while all were reached
    REBUILD_OVER = "rebuild-over"  #: [seat] the match ended meanwhile: its log has the result
    REBUILD_GAP = "rebuild-gap"  #: [seat, node] a message of node never came here: stalled
    #: [seat, node] a message of node never came here, and the table waits for it
    REBUILD_LACK = "rebuild-lack"
    GOT_LOG = "got-log"  #: [seat, frames] the table was rebuilt from that node's log
    LOG_GOES_ON = "log-goes-on"  #: [path] the new table log file
    REJOINED = "rejoined"  #: [seat, taken, rounds, resumed] back at the table from the log
    OWN_LOG_UNREAD = "own-log-unread"  #: [error (None: no file)] its own log of the match
    YOU_LEFT = "you-left"  #: the local player left; the computer plays the seat
    INPUT_ENDED = "input-ended"  #: [bot] typed input ended: that bot plays the seat
    STILL_CATCHING_UP = "still-catching-up"  #: a typed move while asleep
    REFUSED = "refused"  #: [error] the table refused the local action
    TURN_STALLED = "turn-stalled"  #: [seat, node, deal] the turn (deal: the round's
    #: crypto) does not move: catching up
    NOBODY_REACHABLE = "nobody-reachable"  #: this node reaches no other node: still trying
    TELLING_RESULT = "telling-result"  #: [seats, seconds] waiting to tell them the result
    # --- how a peer left or came back (PeerGone, PeerBack) -----------------------------------
    GONE_LEFT = "gone-left"  #: its player left the table
    GONE_FINISHED = "gone-finished"  #: it played to the end of what it asked for
    GONE_LOST = "gone-lost"  #: [reason] the connection ended (the node's words)
    GONE_STALLED = "gone-stalled"  #: [seat, deal] its turn (deal: its part of the
    #: round's crypto) did not move, even after catching up
    BACK = "back"  #: [moved] reconnected (``moved``: HOST:PORT if it listens elsewhere)
    BACK_RESYNCED = "back-resynced"  #: [moved] reconnected; it rebuilds from the log
    BACK_RESTARTED = "back-restarted"  #: [moved] restarted; it gets the log
    # --- why the runner stops (Link.done) ----------------------------------------------------
    DONE_ROUNDS = "done-rounds"  #: [n] played the rounds asked for
    DONE_MATCH_OVER = "done-match-over"
    DONE_LEFT = "done-left"  #: the local player left (nothing more to say)
    # --- the errors (PeerLost, TableFailed) ----------------------------------------------------
    PEERS_FINISHED = "peers-finished"  #: [names] they stopped after their rounds
    EVERYONE_LEFT = "everyone-left"  #: [seat, name] the last other person left for good
    STRANDED = "stranded"  #: [seat, name, me, two, log] a restart nobody can repair
    NO_LOG = "no-log"  #: no peer sent its log in time
    #: [seat, names, away, number, rounds, seconds, log] the others finished round
    #: ``number`` and left (``away``: not reached again in ``seconds``); it never came here
    ENDED_ELSEWHERE = "ended-elsewhere"
    #: [seat, name, reason (the Fault), names, log] the table stopped on a fault
    BROKE_RULES = "broke-rules"
    INVALID_DATA = "invalid-data"  #: [seat, name, error]
    DISCONNECTED = "disconnected"  #: [seat, name, error] invalid data on the wire
    REBUILD_FAILED = "rebuild-failed"  #: [failures] no log answer checked out


def note(code: LinkCode, /, **params: Any) -> Note:
    """A :class:`Note`.

    >>> note(LinkCode.BACK, moved=None)
    Note(code=<LinkCode.BACK: 'back'>, params={'moved': None})
    """
    return Note(code, params)


class PeerLost(LocalError):
    """A player's node left the table during the match; the match cannot go on.

    ``seat`` is that player's seat (this node's own for :attr:`LinkCode.NO_LOG` and a
    stranded restart of its own)."""

    def __init__(self, code: LinkCode, /, *, seat: int, **params: Any) -> None:
        super().__init__(code, seat=seat, **params)
        self.seat = seat


class TableFailed(LocalError):
    """The table stopped: a peer broke the rules or the logs disagree (the data says who)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LogFailure:
    """Why the log answer of ``seat``'s node (``name``) could not rebuild the table:
    ``error`` (its frames) or ``fault`` (the table it rebuilt failed)."""

    seat: int
    name: str
    error: Error | None = None
    fault: tev.Fault | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Conn:
    """A connection the adapter numbered ``id``: ``moved`` = ``HOST:PORT`` where its node
    listens now if not where it did at the deal, ``joined``: it came with role ``join``
    (``p2p8s join`` run again: a new process)."""

    id: int
    moved: str | None = None
    joined: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Post:
    """Sign ``payload`` once, chained to the last game message handled, log the signed
    frame (handed to the OS) and only then send it to seat ``to``'s node (None: every
    connected node): protocol/table.md "Coming back"."""

    to: int | None
    payload: bytes


@dataclass(frozen=True, slots=True, kw_only=True)
class Send:
    """A runner payload (sync, relay) to seat ``to`` on connection ``conn`` only."""

    conn: int
    to: int
    payload: bytes


@dataclass(frozen=True, slots=True, kw_only=True)
class Resend:
    """A game payload posted before (for ``to``), again as a new frame on ``conn`` only,
    chained to the last game message handled."""

    conn: int
    to: int | None
    payload: bytes


@dataclass(frozen=True, slots=True, kw_only=True)
class SendLog:
    """Every signed game frame this node logged, in order, as ``log`` parts to ``seat``
    on ``conn`` (:func:`p2p8s.table.sync.log_parts`)."""

    conn: int
    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Log:
    """Append a peer's signed ``frame`` to the table log; ``head``: its hash, now the
    last game message handled (None: relayed, or from a log answer)."""

    frame: bytes
    head: bytes | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Drop:
    """Close seat ``seat``'s connection ``conn`` at once (a newer one replaces it, or the
    link wants a fresh one): nothing is written to it again and its end is not reported;
    until a :class:`Use`, the seat's payloads are only queued (resent after its ``sync``)."""

    seat: int
    conn: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Use:
    """Seat ``seat``'s node is reached on ``conn`` from now on (the mesh's peer)."""

    seat: int
    conn: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Show:
    """Events for the frontend, in order: the table's (:mod:`p2p8s.table.events`) and
    :class:`Note` values."""

    events: tuple[object, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class PeerGone:
    """Seat ``seat``'s node left or was lost (``why``)."""

    seat: int
    why: Note


@dataclass(frozen=True, slots=True, kw_only=True)
class PeerBack:
    """Seat ``seat``'s node is back (``how``); its sync is done."""

    seat: int
    how: Note


@dataclass(frozen=True, slots=True, kw_only=True)
class Dial:
    """Dial seat ``seat``'s node again, with backoff, while it is away."""

    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Undial:
    """Stop dialling seat ``seat``'s node (it is back)."""

    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundLogged:
    """Round ``number`` ended (``audit_ok``; ``totals`` after it): mark the table log.
    ``transcript`` is the table's transcript hash then; None for a round replayed from a
    peer's log (``totals`` are then that round's points)."""

    number: int
    audit_ok: bool
    totals: tuple[int, ...]
    transcript: bytes | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Refused:
    """The table refused the local action (nothing was sent)."""

    error: IllegalAction


@dataclass(frozen=True, slots=True, kw_only=True)
class Rebuild:
    """This node's table took in moves the others never saw (its seats were taken over
    while payloads it sent were lost, or while it was frozen): rebuild it from the log of
    the peers in ``peers`` (seat → conn: the mesh's peers from now on), as a restarted node
    does; ``seat``'s node said so, ``why`` tells the player. The last output of its link.
    ``resume``: the table is not void, it only lacks a message the others have (a gap no
    resend fills): the rebuilt table takes its own log's frames too, so it keeps its seats
    and their round secrets (``Table.restore(own=…)``, "Restart with the table secret and
    its own log") instead of handing its keys over."""

    seat: int
    why: Note
    peers: Mapping[int, int]
    resume: bool = False


Out = (Post | Send | Resend | SendLog | Log | Drop | Use | Show | PeerGone | PeerBack | Dial
       | Undial | RoundLogged | Refused | Rebuild)
