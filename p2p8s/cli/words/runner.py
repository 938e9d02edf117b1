"""The words of a running table's links (:mod:`p2p8s.table.link`): notes, presence, errors.

The codes are :class:`~p2p8s.table.linkout.LinkCode` (notes shown at the table, how a
peer left or came back, why the runner stops, why the match cannot go on),
:class:`~p2p8s.table.sync.SyncCode` (a peer's bad runner payload),
and :class:`~p2p8s.table.roster.RosterCode`.
Errors that end a runner are said by :data:`~p2p8s.cli.words.PLAIN` (no seat names
known), so they carry the names they need.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any

from p2p8s.cli.words import PLAIN, Speaker, Template
from p2p8s.cli.words.table import payload
from p2p8s.errors import Code, Error, Note
from p2p8s.table.linkout import LinkCode
from p2p8s.table.roster import RosterCode
from p2p8s.table.sync import SyncCode

C = LinkCode


class ScreenLine(Code):
    """Lines of the table screen itself (params after the name)."""

    TO_PLAY = "screen-to-play"  # seat (whose turn it is now: another seat)
    #: turns (seat, n) of the others, mine (n of this seat), fresh (this program just
    #: started: the round so far), number (the round): the moves a catch-up replayed
    WHILE_AWAY = "screen-while-away"
    #: the match ended while this player was away (a rejoin finds it over): the result
    #: follows, from the signed log
    MATCH_WAS_OVER = "screen-match-was-over"

#: How a peer left or came back, as said in brackets after its name.
_HOW: dict[Code, str] = {
    C.GONE_LEFT: "left the table",
    C.GONE_FINISHED: "finished playing",
    C.GONE_STALLED: "its turn did not move, even after catching up with it",
    C.BACK: "reconnected",
    C.BACK_RESYNCED: "reconnected; it gets the log",
    C.BACK_RESTARTED: "restarted; it gets the log",
}


def reason(how: Note, sp: Speaker | None = None) -> str:
    """How a peer left or came back (a ``GONE_*`` / ``BACK_*`` note), in brackets' words:
    ``reconnected at 10.0.0.7:4242``, ``left the table``, ``no heartbeat for 5 s``."""
    if how.code is C.GONE_LOST:
        why = how.params["reason"]
        text = (sp or PLAIN).note(why)
    elif how.code is C.GONE_STALLED and how.params.get("deal"):
        text = "its part of the deal did not come, even after catching up with it"
    else:
        text = _HOW[how.code]
    moved = how.params.get("moved")
    return f"{text} at {moved}" if moved else str(text)


def _error(sp: Speaker, error: object) -> str:
    return sp.error(error) if isinstance(error, Error) else str(error)


def _who(p: Mapping[str, Any]) -> str:
    """``NAME (seat N)``; a seat the table does not have, or none."""
    if p.get("seat") is None:
        return "a player"
    if p.get("name") is None:
        return "an unknown player"
    return f"{p['name']} (seat {p['seat']})"


def _presence(code: LinkCode, line: str) -> Template:
    def say(sp: Speaker, p: Mapping[str, Any]) -> str:
        return line.format(who=_who(p), reason=reason(Note(code, p), sp))
    return say


def _fault(what: str) -> Template:
    def say(sp: Speaker, p: Mapping[str, Any]) -> str:
        seat = p.get("seat")
        who = "a player" if seat is None else sp.who(seat)
        return f"Fault ({who}): " + what.format(error=_error(sp, p.get("error")), to=p.get("to"))
    return say


def _names(seats: list[int], sp: Speaker) -> str:
    return " and ".join(sp.name(s) for s in seats)


def _rejoined(sp: Speaker, p: Mapping[str, Any]) -> str:
    """``taken``: the seat is taken over now (its hand open until the round ends: by
    the others in the absence, or by this node's own restart handing its keys over);
    ``played``: turns the computer played for it in the absence (None: not known);
    ``waited``: nobody could take it over (no escrow, or two people); ``resumed``: it
    took its own seat back from its own log (nothing was taken over); ``over``: the
    match ended meanwhile (nothing is left to play)."""
    taken, n, played = p["taken"], p["rounds"], p.get("played")
    if p.get("over"):
        return (f"Rejoined the table at seat {p['seat']}: the match is over ({n} "
                f"round{'s' if n != 1 else ''}, every one audited from the signed log).")
    when = ("from your next turn, your hand hidden as before" if p.get("resumed") else
            "from your next turn (your hand stays open to the others until this round "
            "ends)" if taken else "once the others deal you in")
    meanwhile = ("the computer played your seat meanwhile; " if played else
                 "nothing was played for you meanwhile: the game waited; "
                 if played == 0 and p.get("waited") else "")
    return (f"Rejoined the table at seat {p['seat']}; {meanwhile}you play again {when}. "
            + (f"{n} round{'s' if n != 1 else ''} played so far, every one audited from the "
               "signed log." if n else "No round has ended yet."))


def _while_away(sp: Speaker, p: Mapping[str, Any]) -> str:
    """``While you were away: Ann played 3 turns, Bob 1 and the computer 2 for you.``"""
    parts = [f"{sp.name(seat)} {n}" for seat, n in p["turns"]]
    if parts:
        first, n = p["turns"][0]
        parts[0] = f"{sp.name(first)} played {n} turn{'s' if n != 1 else ''}"
    mine = p["mine"]
    if mine:
        mine_s = f"{mine} turn{'s' if mine != 1 else ''}" if not parts else str(mine)
        parts.append(f"your seat {mine_s}" if p["fresh"] else
                     f"the computer {mine_s} for you" if parts else
                     f"the computer played {mine_s} for you")
    if len(parts) > 1:
        parts[-2:] = [f"{parts[-2]} and {parts[-1]}"]
    head = (f"Round {p['number']} so far, from the signed log" if p["fresh"]
            else "While you were away")
    return f"{head}: {', '.join(parts)}."


def _ended_elsewhere(sp: Speaker, p: Mapping[str, Any]) -> str:
    away = (f", and {' and '.join(p['away'])} could not be reached again in "
            f"{p['seconds']:g} s" if p["away"] else "")
    rounds = p["rounds"]
    kept = (f"; its log holds the {rounds} round{'s' if rounds != 1 else ''} before it"
            if rounds else "")
    audit = f" (p2p8s audit {p['log']})" if rounds and p.get("log") is not None else ""
    return (f"{' and '.join(p['names'])} finished playing and left{away}: the end of "
            f"round {p['number']} never reached this computer, and nobody is left to "
            f"give it{kept}{audit}")


def _stranded(sp: Speaker, p: Mapping[str, Any]) -> str:
    two = p["two"]
    who = ("Your program restarted and lost your cards" if p["me"]
           else f"{p['name']}'s program restarted and lost their cards")
    why = ("with two people nobody holds a share of them" if two
           else "nobody holds a share of them yet")
    kept = "Both logs are kept" if two else "Every log is kept"
    audit = f" (p2p8s audit {p['log']})" if p.get("log") is not None else ""
    return f"{who} of this round; {why}, so this match cannot go on. {kept}{audit}."


def _rebuild_failed(sp: Speaker, p: Mapping[str, Any]) -> str:
    said = [f"{f.name}'s log: "
            + (_error(sp, f.error) if f.error is not None else _table_fault(sp, f.fault))
            for f in p["failures"]]
    return "could not rebuild the table from the log: " + "; ".join(said)


def _table_fault(sp: Speaker, fault: object) -> str:
    """A table's fault (a :class:`~p2p8s.table.events.Fault`) in words."""
    from p2p8s.cli.words.table import said

    return said(fault, sp)


def _broke(sp: Speaker, p: Mapping[str, Any]) -> str:
    named = Speaker(names=p.get("names", sp.names), me=sp.me, look=sp.look)
    fault = _table_fault(named, p["reason"])
    return f"the table stopped: {_who(p)} broke the rules ({fault}); the log is in {p.get('log')}"


def _invalid(tail: str) -> Template:
    def say(sp: Speaker, p: Mapping[str, Any]) -> str:
        return f"{_who(p)} sent invalid data{tail}: {_error(sp, p['error'])}"
    return say


TEMPLATES: dict[Enum, Template] = {
    ScreenLine.TO_PLAY: "{seat:name}'s turn…",
    ScreenLine.WHILE_AWAY: _while_away,
    ScreenLine.MATCH_WAS_OVER: "Back at the table: the match ended while you were away. "
                               "The result, from the signed log:",
    C.LEFT_TAKEN_OVER: "{seat:name} left the table: the computer plays their seat.",
    C.WAITING_FOR_OTHERS: "Waiting for the others to come back — Ctrl-C / quit to leave",
    C.WAITING_FOR: "Waiting for {seat:name} to come back — Ctrl-C / quit to leave",
    C.COME_BACK: "If {seat:name}'s program stopped, they come back by running: {command}",
    C.MISADDRESSED: _fault("a game message addressed to seat {to}"),
    C.PEER_FAULT: _fault("{error}"),
    C.FROZEN: "This computer did not run for {seconds:.0f} s (asleep?): catching up with "
              "the table…",
    C.ASLEEP_WAITING: lambda sp, p: (
        f"Waiting for {_names(p['seats'], sp)} to connect again, to learn whether the "
        "others played your seat meanwhile…"),
    C.CAUGHT_UP: "Caught up with the table: play goes on.",
    C.ASLEEP_GAVE_UP: lambda sp, p: (
        f"{_names(p['seats'], sp)} did not connect again within {p['seconds']:g} s (the "
        "table may have ended meanwhile): going on as after a lost connection."),
    C.REBUILD_TAKEN: "Your seat was taken over while the connection was down, and "
                     "{seat:name} never got your last moves: rebuilding the table from the "
                     "others' signed log.",
    # (``seat``: the node that said so, not necessarily the one sending the seat's moves)
    C.REBUILD_ASLEEP: "This computer did not run for a while and your seat was taken over "
                      "meanwhile: rebuilding the table from the others' signed log.",
    C.REBUILD_HELD: "Your last moves were held back while your seat may have been taken "
                    "over, and every player is reached again: rebuilding the table from "
                    "the others' signed log.",
    C.REBUILD_OVER: "The match ended while you were away: taking the result from "
                    "{seat:name}'s signed log…",
    C.REBUILD_GAP: "A message from {node:name} never reached this computer, and the "
                   "turn waits for it: rebuilding the table from {seat:name}'s signed log.",
    C.REBUILD_LACK: "A message from {node:name} never reached this computer, and the "
                    "round waits for it: rebuilding the table from {seat:name}'s signed "
                    "log.",
    C.GOT_LOG: "Got the log of the table from {seat:name} ({frames} signed frames, every "
               "signature checked).",
    C.LOG_GOES_ON: "The log of the table goes on in {path}.",
    C.OWN_LOG_UNREAD: lambda sp, p: (
        ("No log of your own of this match is here" if p["error"] is None else
         "Your own log of this match does not read (" + _error(sp, p["error"]) + ")")
        + ", so this program does not know all it sent: your seat is taken over (hand "
          "open) for the rest of this round."),
    C.REJOINED: _rejoined,
    C.YOU_LEFT: "You left the table; the computer plays your seat.",
    C.INPUT_ENDED: "Your input ended: the computer ({bot}) plays your seat from now on.",
    C.STILL_CATCHING_UP: "Still catching up with the table after this computer did not "
                         "run — wait a moment (quit to leave).",
    C.REFUSED: lambda sp, p: (lambda s: s[:1].upper() + s[1:])(_error(sp, p["error"])),
    C.TURN_STALLED: lambda sp, p: (
        (f"{sp.name(p['seat'])}'s part of the deal does not come" if p.get("deal") else
         f"{sp.name(p['seat'])}'s turn does not move")
        + f": connecting to {sp.name(p['node'])} again to catch up…"),
    C.NOBODY_REACHABLE: lambda sp, p: (
        "Cannot reach anyone at the table: still trying ("
        + ("mDNS and the last known addresses" if p.get("mdns") else
           "the last known addresses")
        + (") to get the log of the table — Ctrl-C to leave" if p.get("restoring") else
           ") — Ctrl-C / quit to leave")),
    C.TELLING_RESULT: lambda sp, p: (
        f"Waiting up to {p['seconds']:g} s for {_names(p['seats'], sp)} to come back, to "
        "tell them how the match ended (Ctrl-C to leave now)."),
    C.GONE_LEFT: _presence(C.GONE_LEFT, "{who} left the table."),
    C.GONE_STALLED: _presence(C.GONE_STALLED, "Gave up on {who} ({reason}): the computer "
                                              "plays their seat."),
    C.GONE_FINISHED: _presence(C.GONE_FINISHED, "{who} left the table ({reason})."),
    C.GONE_LOST: _presence(C.GONE_LOST, "Lost the connection to {who}: {reason}."),
    C.BACK: _presence(C.BACK, "{who} is back ({reason})."),
    C.BACK_RESYNCED: _presence(C.BACK_RESYNCED, "{who} is back ({reason})."),
    C.BACK_RESTARTED: _presence(C.BACK_RESTARTED, "{who} is back ({reason})."),
    C.DONE_ROUNDS: "Leaving the table: played the {n} round{n:s} asked for.",
    C.DONE_MATCH_OVER: "Leaving the table: the match is over.",
    C.DONE_LEFT: "",
    C.PEERS_FINISHED: lambda sp, p: (
        f"{' and '.join(p['names'])} left after the rounds they asked for; the match "
        "cannot go on without them"),
    C.EVERYONE_LEFT: lambda sp, p: (
        f"{_who(p)} left the table; the match cannot go on without them"),
    C.STRANDED: _stranded,
    C.NO_LOG: "no player of the table sent its log in time; the table cannot be rebuilt",
    C.ENDED_ELSEWHERE: _ended_elsewhere,
    C.BROKE_RULES: _broke,
    C.INVALID_DATA: _invalid(""),
    C.DISCONNECTED: _invalid(" and was disconnected"),
    C.REBUILD_FAILED: _rebuild_failed,
    SyncCode.BAD_SYNC: payload("a bad sync payload"),
    SyncCode.BAD_LOG_PART: payload("a bad log part"),
    SyncCode.LOG_PARTS_DIFFER: "log parts of different lengths",
    SyncCode.BAD_RELAY: payload("malformed relay"),
    SyncCode.BAD_ACK: payload("a bad ack"),
    SyncCode.BAD_WHERE: payload("a bad where"),
    SyncCode.RELAYED_BAD_FRAME: lambda sp, p: (
        f"relayed a frame that does not verify: {_error(sp, p['error'])}"),
    SyncCode.RELAYED_NOT_BROADCAST: "relayed a frame that is not a crypto broadcast signed "
                                    "by seat {signer}",
    RosterCode.NO_HOST: "the roster has no host (seat {seat})",
}


#: Notes that tell of a fault (a frontend shows them as it shows the table's faults).
FAULTS = frozenset({C.MISADDRESSED, C.PEER_FAULT})


def presence_line(sp: Speaker, seat: int, name: str, how: Note) -> str:
    """The line said when seat ``seat``'s node (``name``) left or came back (``how``)."""
    return sp.say(how.code, seat=seat, name=name, **how.params)
