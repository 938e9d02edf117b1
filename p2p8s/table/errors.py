"""Errors of the replicated table: a peer broke a rule of the table or of the game.

Everything a peer sends is checked; what is wrong is a :class:`TableError` (a
:class:`~p2p8s.errors.RemoteError`, never a local error) whose ``seat`` names the node
(or seat) to blame, with a :class:`TableCode` and its data. A broken rule of the game at
the table — an action out of turn, an illegal card, cards that differ from the ones
shown — is a :class:`RuleBroken` (``rule``: the RULES.md id, when the engine gives one).
What the mental-poker layer finds (a bad proof, a replayed message) stays its
:class:`~p2p8s.crypto.errors.CheatDetected`. Either stops the table with a
:class:`~p2p8s.table.events.Fault`; ``p2p8s.cli.words.table`` says them.

Parameters: ``peer`` is the seat of the node that sent the bad data, ``seat`` a seat of
the table, ``turn`` the seat on turn, ``proxy`` the seat sending a taken seat's moves;
``action``/``expected`` are engine actions, ``cards`` a list of cards; ``cause`` is the
error behind this one (the engine's refusal, a decoder's).
"""

from __future__ import annotations

from typing import Any

from p2p8s.errors import Code, RemoteError


class TableCode(Code):
    """What went wrong at the table (values are stable names)."""

    # payloads
    NO_OTHER_NODE = "table-no-other-node"  #: ``sender``: a payload from a seat with no node
    EMPTY_PAYLOAD = "table-empty-payload"
    UNKNOWN_KIND = "table-unknown-kind"  #: ``kind``
    OTHER_SETUP = "table-other-setup"  #: the peer plays under another roster or rules
    MALFORMED = "table-malformed"  #: ``cause``: a payload body that does not decode
    BAD_MESSAGE = "table-bad-message"  #: ``cause``: a mental-poker message that does not decode
    SIGNED_AS = "table-signed-as"  #: ``claimed``: a message for a seat the peer may not send
    OTHER_TABLE = "table-other-table"
    FLOOD = "table-flood"  #: more messages waiting (gaps, later rounds) than the limit
    #: ``peer`` signed two different messages for one slot: ``round``, seat ``author``, ``seq``
    EQUIVOCATION = "table-equivocation"
    STOPPED = "table-stopped"  #: ``reason``: the peer stopped the game (its claim)
    # keys handed over
    KEYS_FLOOD = "table-keys-flood"
    KEYS_OWN = "table-keys-own"  #: keys of this node's own seats (forged)
    KEY_NOT_RUN = "table-key-not-run"  #: ``claimed`` key, ``node`` does not run it
    KEY_MISMATCH = "table-key-mismatch"  #: ``seat``'s key does not match its ``Y``
    # the action log
    ACT_FOREIGN = "table-act-foreign"  #: ``got`` round, ``claimed`` seat
    ACT_AGAIN = "table-act-again"  #: ``index`` replayed
    ACT_AHEAD = "table-act-ahead"
    SECOND_ACTION = "table-second-action"  #: ``seat`` for place ``index``
    TWO_ACTIONS = "table-two-actions"  #: ``seat``: two for one place
    NOT_ITS_SEAT = "table-not-its-seat"  #: ``peer`` sent for ``seat``
    SEAT_TAKEN = "table-seat-taken"  #: ``peer`` acted for ``seat``, run by ``proxy``
    NOT_FOLLOWING = "table-not-following"  #: ``seat``'s record does not follow the log
    TAKEOVER_MOVE = "table-takeover-move"  #: ``peer`` sent ``action``, not ``expected``
    # choices
    CHOICE_NOT_OWN = "table-choice-not-own"  #: ``claimed`` seat
    CHOICE_UNSIGNED = "table-choice-unsigned"
    CHOICE_PLACE = "table-choice-place"  #: ``index``, where it is ``seat``'s turn
    CHOICE_NOT_FOLLOWING = "table-choice-not-following"
    CHOICE_NOT_TAKEN = "table-choice-not-taken"  #: for ``seat``, not taken over
    CHOICE_OTHER = "table-choice-other"  #: ``action`` for ``seat`` with another choice
    CHOICE_FORGED = "table-choice-forged"  #: ``action`` for ``seat``, not its key's
    # the game, as every node checks it
    OUT_OF_TURN = "table-out-of-turn"  #: ``seat`` (``action``, if one) on ``turn``'s turn
    CARDS_DIFFER = "table-cards-differ"  #: ``seat`` played ``cards``, showed others
    SHOWED_UNPLAYED = "table-showed-unplayed"  #: ``seat`` showed cards, played none
    ILLEGAL_MOVE = "table-illegal-move"  #: ``seat``'s ``action``; ``cause``, ``rule``
    ILLEGAL_CHOICE = "table-illegal-choice"  #: ``peer``'s choice ``action``; ``cause``, ``rule``
    # this node's own view of the round (no seat to blame)
    NO_STARTER = "table-no-starter"
    OPEN_HAND = "table-open-hand"  #: ``seat``'s open hand does not fit the game
    DREW_OTHER = "table-drew-other"
    # the round end
    STOPPED_EARLY = "table-stopped-early"
    ACTED_AFTER_END = "table-acted-after-end"  #: ``seat``
    SHOWED_NEVER_PLAYED = "table-showed-never-played"  #: ``seat``
    REPLAY_DIFFERS = "table-replay-differs"
    # not the peers'
    STUCK = "table-stuck"  #: ``cause``: this node could not go on (a local error)
    # requests of this node (LocalError)
    KEY_SECRET_SIZE = "table-key-secret-size"  #: ``n`` bytes expected
    NOT_HUMAN_SEAT = "table-not-human-seat"  #: ``seat``
    STARTED = "table-started"  #: the table has started already
    NOT_RESYNC = "table-not-resync"  #: records that are not a resync payload
    NOT_YOUR_TURN = "table-not-your-turn"
    UNSENDABLE = "table-unsendable"  #: ``text`` of an action; ``cause``
    NOT_IN_HAND = "table-not-in-hand"  #: ``card``
    NO_NODE = "table-no-node"  #: ``seat`` has no other node
    NO_SIGNATURE = "table-no-signature"  #: the signer gave no Ed25519 signature
    SEATS_ORDER = "table-seats-order"  #: a config's seats are not numbered 0..n-1
    HOST_COMPUTER = "table-host-computer"  #: a config with a computer in the host's seat
    TIMER_NOT_POSITIVE = "table-timer-not-positive"  #: a config's turn timer
    NOTHING_TURNED = "table-nothing-turned"  #: the deck was asked to bury nothing
    NO_REFILL = "table-no-refill"  #: the deck was asked to refill with no stock ready


class LogCode(Code):
    """What is wrong with a saved log itself (:mod:`p2p8s.table.logverify`)."""

    NO_SETUP = "log-no-setup"  #: the log holds no table setup
    #: frame ``index`` does not verify (``cause``), and no setup could be read
    UNREADABLE = "log-unreadable"
    #: a frame signed by ``key`` (the first hex digits) claims seat ``claimed``
    WRONG_KEY = "log-wrong-key"
    OTHER_TABLE = "log-other-table"  #: a frame names another table
    #: the signer signed two messages for round ``round``, seat ``author``, number ``seq``
    EQUIVOCATION = "log-equivocation"
    ALTERED = "log-altered"  #: frame ``index`` does not verify (``cause``)
    #: the log lacks ``author``'s message ``expected`` of round ``round`` (it has ``seq``)
    MISSING = "log-missing"
    #: records of frames: frame ``index`` (claiming seat ``claimed``) does not verify (``cause``)
    FRAME_BAD = "log-frame-bad"
    #: records of frames: frame ``index`` is signed by a key that does not hold ``claimed``
    FRAME_KEY = "log-frame-key"


class TableError(RemoteError):
    """A peer broke a rule of the table protocol; ``seat`` names it (None: unknown)."""

    code: TableCode

    def __init__(self, code: TableCode, /, *, seat: int | None, **params: Any) -> None:
        super().__init__(code, seat=seat, **params)


class RuleBroken(TableError):
    """A peer's action breaks a rule of the game; ``seat`` names it, ``rule`` is the
    RULES.md id the engine gave (``R-MATCH``), when there is one."""

    def __init__(self, code: TableCode, /, *, seat: int | None, rule: str | None = None,
                 **params: Any) -> None:
        super().__init__(code, seat=seat, rule=rule, **params)
        self.rule = rule
