"""The words of the replicated table: its events, faults, errors and the log audit.

The table (``p2p8s.table``) emits events and raises errors that carry codes and data;
this module says them. :func:`said` gives the sentence of a table event (an
:class:`~p2p8s.table.events.Info` and its kinds, a :class:`~p2p8s.table.events.Fault`,
a :class:`~p2p8s.table.events.RoundOver`'s audit verdict); :func:`report_lines` the
report of ``p2p8s audit``. Faults name seats by name; an Info says "you"/"your seat"
for the speaker's own seat.

>>> from p2p8s.cli.words import Speaker
>>> from p2p8s.table import events as tev
>>> said(tev.Info(tev.InfoCode.AWAY_TURNS, {"n": 2}), Speaker(names=("Ann", "Bea"), me=0))
'you were away — the computer played 2 turns for you'
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import TYPE_CHECKING, Any

from p2p8s.cli.words import PLAIN, Speaker, Template
from p2p8s.cli.words.rules import describe_rules
from p2p8s.table.botaudit import BotAuditCode
from p2p8s.table.decoding import PayloadCode, PayloadProblem
from p2p8s.table.errors import LogCode, TableCode
from p2p8s.table.events import InfoCode, PauseWhy

if TYPE_CHECKING:
    from p2p8s.table.logverify import LogReport

P = Mapping[str, Any]


def _stopped(sp: Speaker, p: P) -> str:
    """A peer's stop notice: its ``reason`` is the peer's claim (the code of the fault it
    found, then its data); only a code-shaped first word of it is shown, never its text."""
    first = str(p.get("reason", "")).split(" ", 1)[0]
    if first and len(first) <= 40 and all(c.islower() or c.isdigit() or c == "-"
                                          for c in first):
        return sp.format("{peer:name} stopped the game: it reports a fault ({code})",
                         peer=p["peer"], code=first)
    return sp.format("{peer:name} stopped the game: it reports a fault", peer=p["peer"])


def _seat_waits(sp: Speaker, p: P) -> str:
    name = sp.name(p["seat"])
    what = f"{name} left the table" if p["left"] else f"{name}'s node is gone"
    return f"{what}: the game waits until it is back ({sp.say(p['why'])})"


def _sender(sp: Speaker, seat: int | None) -> str:
    """Whose node sends a taken-over seat's moves: ``you``, ``Bob's node`` (``nobody``:
    no node is left to)."""
    if seat is None or seat == sp.me:
        return sp.who(seat)
    return f"{sp.name(seat)}'s node"


def _taken(how: str) -> Template:
    def say(sp: Speaker, p: P) -> str:
        seat = p["seat"]
        who = "your seat" if seat == sp.me else f"{sp.name(seat)}'s seat"
        return (f"{who} is taken over: {how}, its hand is open and the computer plays it; "
                f"its moves are sent by {_sender(sp, p['by'])}")
    return say


def _out_of_turn(sp: Speaker, p: P) -> str:
    action = f" ({p['action']})" if p.get("action") is not None else ""
    return (f"{sp.name(p['player'])} acted{action} out of turn: it is "
            f"{sp.name(p['turn'])}'s turn")


def _illegal(who: str, verb: str) -> Template:
    def say(sp: Speaker, p: P) -> str:
        rule = f" ({p['rule']})" if p.get("rule") else ""
        return (f"{sp.name(p[who])} {verb} an illegal move ({p['action']}): "
                f"{sp.error(p['cause'])}{rule}")
    return say


def payload(head: str) -> Template:
    """``head: problem`` for an error whose ``problem`` param is a
    :class:`~p2p8s.table.decoding.PayloadProblem` (said with the other params)."""
    def say(sp: Speaker, p: P) -> str:
        rest = {k: v for k, v in p.items() if k not in ("problem", "seat")}
        return sp.format(head + ": {problem}", problem=sp.say(p["problem"], **rest))
    return say


#: Why a payload body does not decode.
PROBLEMS: dict[Enum, Template] = {
    PayloadProblem.UNDECODABLE: "undecodable bytes ({error})",
    PayloadProblem.NOT_CANONICAL: "not the canonical encoding",
    PayloadProblem.INVALID: "{cause}",
    PayloadProblem.WRONG_TYPE: "a field has the wrong type",
    PayloadProblem.NOT_A_LIST: "not a list",
    PayloadProblem.FIELDS_3_OR_4: "not a list of 3 or 4 fields",
    PayloadProblem.FIELDS_3: "not a list of 3 fields",
    PayloadProblem.NUMBER: "bad number",
    PayloadProblem.NUMBERS: "bad numbers",
    PayloadProblem.FIELD: "bad field",
    PayloadProblem.FIELDS: "bad fields",
    PayloadProblem.RECORD: "bad record",
    PayloadProblem.CHOICE: "bad choice",
    PayloadProblem.CHOICE_FIELD: "bad choice field",
    PayloadProblem.SIGNATURE: "bad choice signature",
    PayloadProblem.POSITIONS: "bad positions",
    PayloadProblem.POSITION: "bad position",
    PayloadProblem.ECHO: "bad echo",
    PayloadProblem.ROUND: "bad round",
    PayloadProblem.NODE: "bad node",
    PayloadProblem.KEY_LIST: "bad key list",
    PayloadProblem.SEAT: "bad seat",
    PayloadProblem.KEY: "bad key",
    PayloadProblem.SEAT_TWICE: "a seat twice",
    PayloadProblem.RELAY: "bad relay",
    PayloadCode.ACTION: payload("malformed action"),
    PayloadCode.CHOICE: payload("malformed choice"),
    PayloadCode.STOP: payload("malformed stop notice"),
    PayloadCode.ROUND: payload("malformed round notice"),
    PayloadCode.OWNKEY: payload("malformed ownkey payload"),
    PayloadCode.RESYNC: payload("malformed resync payload"),
    PayloadCode.CONFIG: payload("bad table config"),
}

TEMPLATES: dict[Enum, Template] = {
    **PROBLEMS,
    # what the table tells the player
    InfoCode.STOOD_IN: "the computer played for you",
    InfoCode.STOOD_IN_FIRST: (
        "the computer played for you (your {timeout_s:g} s ran out); until you play again "
        "you count as away and each turn waits only {grace_s:g} s"),
    InfoCode.AWAY_TURNS: "you were away — the computer played {n} turn{n:s} for you",
    InfoCode.PLAYS_AGAIN: ("you are back: you play your seat again from this turn (your hand "
                           "is open to the others until the round ends)"),
    InfoCode.SEAT_LEFT: "{seat:name} left the table: the computer plays its seat",
    InfoCode.SEAT_GONE: ("{seat:name}'s connection dropped; the others go on without "
                         "seeing {seat:name}'s hand"),
    InfoCode.SEAT_WAITS: _seat_waits,
    InfoCode.CUT_OFF: "lost contact with most of the table: waiting until it is back",
    InfoCode.SEAT_RESTARTED: (
        "{seat:name}'s node lost its cards of this round (its program restarted, or it "
        "rebuilt its table from the log): the others rebuild its key from the escrow and "
        "the computer plays its seat until {seat:name} plays again"),
    InfoCode.ADOPTED: lambda sp, p: sp.format(
        "the computer plays {seat:name} this round (hand open); its moves are sent by "
        "{sender}", seat=p["seat"], sender=_sender(sp, p["by"])),
    InfoCode.HANDED_OVER: _taken("its node handed over its key (it restarted, or its "
                                 "player left)"),
    InfoCode.REBUILT: _taken("its key was rebuilt from the escrow"),
    InfoCode.SEAT_BACK: "{seat:name} is back",
    InfoCode.AUDIT_PASSED: "audit passed: the shuffle, every card and every claim check out",
    InfoCode.AUDIT_FAILED: "audit failed: {reason}",
    InfoCode.WITHHOLDS: ("{seat:name} has not served its part of {dealer:name}'s cards for "
                         "{wait_s:g} s: the draw waits for it"),
    InfoCode.ACCUSED: ("{seat:name} accuses {dealer:name} of sending a bad escrow share: "
                       "every node is checking that share"),
    BotAuditCode.STEERED: ("{host:name}'s computer seat {player:name} did not play as its bot "
                      "would ({action}; the bot plays {expected})"),
    PauseWhy.NO_ESCROW: "no escrow with fewer than three people playing their own seats",
    PauseWhy.NOT_NOW: ("its key cannot be rebuilt this round: a holder of a share of it is "
                       "gone, or lost its share"),
    PauseWhy.ESCROW_OFF: "escrow is off at this table",
    # faults: payloads
    TableCode.NO_OTHER_NODE: "payload from seat {sender}, which has no other node",
    TableCode.EMPTY_PAYLOAD: "{peer:name} sent an empty payload",
    TableCode.UNKNOWN_KIND: "{peer:name} sent an unknown payload kind {kind}",
    TableCode.OTHER_SETUP: "{peer:name} plays under a different table setup (roster or rules)",
    TableCode.MALFORMED: "{peer:name} sent a {cause}",
    TableCode.BAD_MESSAGE: "{peer:name} sent a {cause}",
    TableCode.SIGNED_AS: "{peer:name} sent a message signed as seat {claimed}",
    TableCode.OTHER_TABLE: "{peer:name} sent a message for another table",
    TableCode.FLOOD: "{peer:name} floods messages that cannot be taken in yet",
    TableCode.EQUIVOCATION: ("{peer:name} signed two different messages for round {round}, "
                             "seat {author}, message {seq} (equivocation)"),
    TableCode.STOPPED: _stopped,
    # faults: keys handed over
    TableCode.KEYS_FLOOD: "{peer:name} floods keys for a later round",
    TableCode.KEYS_OWN: "{peer:name} sent round keys of this node's own seats (forged)",
    TableCode.KEY_NOT_RUN: ("{peer:name} sent a round key of seat {claimed}, which the node "
                            "of seat {node} does not run this round"),
    TableCode.KEY_MISMATCH: ("{peer:name} sent a round key of {player:name} that does not "
                             "match its public key (forged)"),
    # faults: the action log
    TableCode.ACT_FOREIGN: "{peer:name} sent an action of round {got} for seat {claimed}",
    TableCode.ACT_AGAIN: "{peer:name} sent action {index} again (replayed)",
    TableCode.ACT_AHEAD: "{peer:name} sent actions far ahead of the log",
    TableCode.SECOND_ACTION: "{player:name} sent a second action for place {index} of the log",
    TableCode.TWO_ACTIONS: "{player:name} sent two actions for the same place in the log",
    TableCode.NOT_ITS_SEAT: "{peer:name} sent an action for {player:name}, which it does not play",
    TableCode.SEAT_TAKEN: lambda sp, p: sp.format(
        "{peer:name} acted for {player:name}, whose seat was taken over (the computer "
        "plays it" + (f"; its moves are sent by {_sender(sp, p['proxy'])})"
                      if p.get("proxy") is not None else ")"), **p),
    TableCode.NOT_FOLLOWING: ("{player:name} sent an action that does not follow the log "
                              "(replayed or reordered)"),
    TableCode.TAKEOVER_MOVE: ("{peer:name} sent {action} for {player:name} (taken over), but "
                              "the computer plays {expected} there"),
    # faults: choices
    TableCode.CHOICE_NOT_OWN: "{peer:name} sent a choice for seat {claimed}, which is not its own",
    TableCode.CHOICE_UNSIGNED: "{peer:name} sent a choice that its key did not sign (forged)",
    TableCode.CHOICE_PLACE: ("{peer:name} chose for place {index} of the log, where it is "
                             "{player:name}'s turn"),
    TableCode.CHOICE_NOT_FOLLOWING: ("{peer:name} sent a choice that does not follow the log "
                                     "(replayed or forged)"),
    TableCode.CHOICE_NOT_TAKEN: ("{peer:name} sent a person's choice for {player:name}, which "
                                 "is not a person's seat taken over"),
    TableCode.CHOICE_OTHER: ("{peer:name} sent {action} for {player:name} (taken over) with a "
                             "choice made for another place of the log or another action "
                             "(replayed or forged)"),
    TableCode.CHOICE_FORGED: ("{peer:name} sent {action} for {player:name} (taken over) with a "
                              "choice {player:name}'s key did not sign (forged)"),
    # faults: the game
    TableCode.OUT_OF_TURN: _out_of_turn,
    TableCode.CARDS_DIFFER: "{player:name} played {cards} but showed other cards",
    TableCode.SHOWED_UNPLAYED: "{player:name} showed cards without playing them",
    TableCode.ILLEGAL_MOVE: _illegal("player", "made"),
    TableCode.ILLEGAL_CHOICE: _illegal("peer", "chose"),
    TableCode.NO_STARTER: "no card in the stock can start the discard pile",
    TableCode.OPEN_HAND: "the open hand of {player:name} does not match the game",
    TableCode.DREW_OTHER: "the engine drew other cards than the crypto deal",
    TableCode.STOPPED_EARLY: "the round stopped before its end",
    TableCode.ACTED_AFTER_END: "{player:name} acted after the round ended",
    TableCode.SHOWED_NEVER_PLAYED: "{player:name} showed cards it never played",
    TableCode.REPLAY_DIFFERS: "the replay of the round differs from the game",
    TableCode.STUCK: "this node could not go on: {cause}",
    # requests of this node
    TableCode.KEY_SECRET_SIZE: "key_secret must be {n} bytes",
    TableCode.NOT_HUMAN_SEAT: "seat {seat} is not a human seat of this table",
    TableCode.STARTED: "the table has already started",
    TableCode.NOT_RESYNC: "not a resync payload",
    TableCode.NOT_YOUR_TURN: "it is not your turn",
    TableCode.UNSENDABLE: "{text}: {cause}",
    TableCode.NOT_IN_HAND: "{card} is not in your hand",
    TableCode.NO_NODE: "seat {seat} has no other node",
    TableCode.NO_SIGNATURE: "the signer returned no Ed25519 signature",
    TableCode.SEATS_ORDER: "seats must be numbered 0..n-1 in order",
    TableCode.HOST_COMPUTER: "the host's seat cannot be a computer seat",
    TableCode.TIMER_NOT_POSITIVE: "the turn timer must be positive",
    TableCode.NOTHING_TURNED: "nothing was turned face up to bury",
    TableCode.NO_REFILL: "no reshuffled stock is ready for this refill",
    # the log audit
    LogCode.NO_SETUP: "the log holds no table setup",
    LogCode.UNREADABLE: "frame {index} does not verify: {cause}",
    LogCode.WRONG_KEY: ("a frame signed by {key}… claims seat {claimed}, which that key does "
                        "not hold"),
    LogCode.OTHER_TABLE: "a frame names another table",
    LogCode.EQUIVOCATION: ("signed two different messages for round {round}, seat {author}, "
                           "message {seq} (equivocation)"),
    LogCode.ALTERED: "frame {index} does not verify ({cause}): the log was altered",
    LogCode.MISSING: lambda sp, p: sp.format(
        "the log lacks message {expected} of {author:name} in round {round}"
        + (" (it holds message {seq})" if p.get("seq") else "")
        + ": it cannot be audited past that point", **p),
    LogCode.FRAME_BAD: "frame {index} (seat {claimed}) does not verify: {cause}",
    LogCode.FRAME_KEY: "frame {index} is signed by a key that does not hold seat {claimed}",
}


def said(event: object, speaker: Speaker = PLAIN) -> str:
    """The sentence of a table event for ``speaker``: an Info, a Fault, or a RoundOver's
    audit verdict ("audit passed: …" / "audit failed: …"). Raises TypeError for another
    event."""
    from p2p8s.table import events as tev

    if isinstance(event, (tev.Info, tev.Fault)):
        return speaker.say(event.code, **event.params)
    if isinstance(event, tev.RoundOver):
        if event.audit_ok:
            return speaker.say(InfoCode.AUDIT_PASSED)
        reason = said(event.fault, speaker) if event.fault is not None else ""
        return speaker.say(InfoCode.AUDIT_FAILED, reason=reason)
    raise TypeError(f"not a table event that is said: {event!r}")


def report_lines(report: LogReport) -> list[str]:
    """The report of ``p2p8s audit`` for people, one line per fact."""
    names = report.config.names if report.config else ()
    speaker = Speaker(names=names)

    def who(seat: int | None) -> str:
        if seat is None:
            return "an unknown party"
        return f"{names[seat]} (seat {seat})" if seat < len(names) else f"seat {seat}"

    def name(seat: int) -> str:
        return names[seat] if seat < len(names) else str(seat)

    out = [f"{report.frames} frames"]
    if report.config is not None:
        out.append(f"table {report.config.table.hex()}: {', '.join(names)}; "
                   f"{describe_rules(report.config.rules)}")
    for r in report.rounds:
        if not r.complete and r.ok:
            out.append(f"round {r.number}: incomplete (the log stops inside it)")
        elif r.ok:
            pts = ", ".join(f"{name(s)} {p:+d}" for s, p in enumerate(r.points))
            out.append(f"round {r.number}: audit ok; points {pts}")
        else:
            why = said(r.fault, speaker) if r.fault is not None else ""
            if r.complete:
                why = speaker.say(InfoCode.AUDIT_FAILED, reason=why)
            out.append(f"round {r.number}: FAILED — {who(r.seat)}: {why}")
    if report.damaged:
        assert report.fault is not None
        claim = (f" (it claims to be from {who(report.fault.seat)}: no proof against it)"
                 if report.fault.seat is not None else "")
        out.append(f"the log cannot be audited further: {said(report.fault, speaker)}"
                   f"{claim}")
    elif report.fault is not None and not any(not r.ok for r in report.rounds):
        out.append(f"FAILED — {who(report.fault.seat)}: {said(report.fault, speaker)}")
    if report.totals:
        out.append("totals: " + ", ".join(f"{name(s)} {t}"
                                          for s, t in enumerate(report.totals)))
    if report.finished and report.winner is not None:
        out.append(f"winner: {who(report.winner)}")
    if report.damaged and all(r.ok for r in report.rounds):
        out.append("verdict: damaged log (no seat at fault in what could be read)")
    else:
        out.append("verdict: " + ("ok" if report.ok else "FAILED"))
    return out
