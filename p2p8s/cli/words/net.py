"""The words of the network edge: the wire format (:mod:`p2p8s.wire`), table codes and
links (:mod:`p2p8s.codes`), nodes, the lobby and mDNS (:mod:`p2p8s.net`), and the lines
of ``p2p8s tables``/``host``/``join``/``audit`` (:class:`Line`).

A peer never sends words: a ``refuse`` or ``bye`` carries a code
(:class:`~p2p8s.wire.Refusal`, :class:`~p2p8s.wire.Farewell`) that is said here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from p2p8s.cli.words import PLAIN, Speaker, Template
from p2p8s.cli.words.phrases import number
from p2p8s.cli.words.rules import describe_changes, describe_rules
from p2p8s.codes import InviteProblem
from p2p8s.errors import Code
from p2p8s.net.channel import SessionCode
from p2p8s.net.errors import CardCode, ConnectFailure, LobbyCode, NetCode, Reason
from p2p8s.wire import Farewell, Refusal, Schema, WireCode

if TYPE_CHECKING:  # loading the words must not load zeroconf
    from p2p8s.net.discovery import TableCard

Say = Callable[[Speaker, Mapping[str, Any]], str]


class Line(Code):
    """The sentences of the network commands themselves (params follow the name)."""

    ADDRESS_CHANGED = "address-changed"  # addresses
    NO_MDNS_IN_PLAY = "no-mdns-in-play"  # error (the library's words)
    COME_BACK = "come-back"  # code, where
    COME_BACK_LINK = "come-back-link"  # code, where
    TABLE_OF = "table-of"  # host, rules
    HOUSE_RULES = "house-rules"  # preset, changes (the house rules on top of the preset)
    SEATS = "seats"  # size, taken, free
    SEAT = "seat"  # seat, name, fingerprint
    SAT_DOWN = "sat-down"  # name, fingerprint, seat, you
    LEFT_SEAT = "left-seat"  # name, seat, reason
    SEAT_KEPT = "seat-kept"  # name, seat, reason, grace_s (host: a joiner's link dropped)
    BACK_AT_SEAT = "back-at-seat"  # name, seat (host: that joiner is back)
    RECONNECTING = "reconnecting"  # reason, grace_s, dots (joiner: the host's link dropped)
    RECONNECTED = "reconnected"  # seat (joiner: back at the table)
    DEALING = "dealing"  # people, computers, dots
    NAME_RULE = "name-rule"  # limit
    LEFT_TABLE = "left-table"
    STOPPED_LOOKING = "stopped-looking"  # Ctrl-C before any table was joined
    STOPPED = "stopped"  # Ctrl-C before a command took over
    INVITE_MISSING = "invite-missing"  # join without CODE (click's usage error)
    CODE_MISSING = "code-missing"  # text (an address without its code; MalformedInput)
    NO_TABLES = "no-tables"  # timeout_s
    TABLES_FOUND = "tables-found"  # n
    CARD_OPEN = "card-open"  # card
    SAME_ID = "same-id"  # n (open adverts of one table id: all but one are not it)
    TABLE_IN_PLAY = "table-in-play"  # cards (one per node of the table, by seat)
    ASK_FOR_CODE = "ask-for-code"
    TABLE_OPEN = "table-open"  # rules, seats
    ESCROW = "escrow"  # escrow (bool: the table escrows its keys), seats (the trade-off)
    ESCROW_DEALT = "escrow-dealt"  # people (the roster at the deal: the trade-off now)
    YOUR_KEY = "your-key"  # fingerprint
    TABLE_CODE = "table-code"  # code
    RUN_JOIN = "run-join"  # code
    RUN_JOIN_AT = "run-join-at"  # code, where
    RUN_JOIN_LINK = "run-join-link"  # code, where (no mDNS: the address is needed)
    LINK = "link"  # link
    NO_MDNS_HOST = "no-mdns-host"  # error
    WAITING = "waiting"
    HOST_SEAT = "host-seat"  # name
    INPUT_ENDED = "input-ended"
    NOT_A_LOBBY_WORD = "not-a-lobby-word"  # word
    JOINER_WAITING = "joiner-waiting"  # a joiner seated in the lobby: what it can do
    JOINER_HELP = "joiner-help"
    NOT_A_JOINER_WORD = "not-a-joiner-word"  # word
    TABLE_CLOSED = "table-closed"
    NO_MDNS_PLAY_CARD = "no-mdns-play-card"  # error
    LOOKING = "looking"  # code, dots
    TRYING_LAST = "trying-last"  # addresses: where the table was the last time
    TRYING_AT_ONCE = "trying-at-once"  # n (adverts dialled at once), dots
    NOT_AT_LAST = "not-at-last"  # code, timeout_s, addresses (a LocalError)
    MATCH_ENDED_HERE = "match-ended-here"  # code, log (a LocalError)
    FOUND = "found"  # tables (per table id, each advert's addresses)
    NO_TABLE_ANSWERED = "no-table-answered"  # code, tables (tried), answered (a LocalError)
    BUSY_RETRY = "busy-retry"  # wait_s
    STILL_TRYING = "still-trying"  # attempts, seconds (a run of retries, said now and then)
    STILL_RETURNING = "still-returning"  # code, retry_s, minutes: a table sat at, not reached
    ALREADY_HERE = "already-here"  # fingerprint (a LocalError)
    #: pid (None: unknown), path — this identity's lock at this table is held (issue #14)
    ALREADY_HERE_LOCAL = "already-here-local"
    SIT_DOWN = "sit-down"
    DID_NOT_SIT = "did-not-sit"
    REJOINING = "rejoining"  # seat, names, dots
    LOG_FRAMES = "log-frames"  # file, frames, duplicates, torn (byte offset or None), void
    KEPT_BY = "kept-by"  # name, seat
    LOG_DAMAGED = "log-damaged"  # why (said), at (byte offset or None), frames (read) or None


def reason(speaker: Speaker, why: Reason) -> str:
    """A :class:`~p2p8s.net.node.Reason` (why a connection ended) in words."""
    return speaker.note(why)


def lost_reason(why: Reason) -> str:
    """:func:`reason` for somebody who is not at a table."""
    return reason(PLAIN, why)


def _with(template: str, /, **change: Callable[[Speaker, Mapping[str, Any]], Any]) -> Say:
    """``template`` with some params replaced by ``change[name](speaker, params)`` first."""

    def say(speaker: Speaker, params: Mapping[str, Any]) -> str:
        return speaker.format(template, **{**params, **{k: f(speaker, params)
                                                        for k, f in change.items()}})

    return say


def _quoted(text: str, *names: str) -> Say:
    """``text`` with the params ``names`` quoted as Python writes a string (``'x'``)."""
    return _with(text, **{n: (lambda sp, p, n=n: repr(p[n])) for n in names})


def _typed(limit: int = 24) -> Callable[[Speaker, Mapping[str, Any]], str]:
    """What a person typed, quoted and cut to ``limit`` characters (a pasted page is
    not echoed back): ``'7KQ4MX'``, ``'AAAA…' (30 characters)``."""

    def shown(speaker: Speaker, params: Mapping[str, Any]) -> str:
        text = str(params["text"])
        if len(text) <= limit:
            return repr(text)
        return speaker.format("{cut}…' ({n} characters)", cut=repr(text[:limit])[:-1],
                              n=len(text))

    return shown


def _peer(text: str) -> Say:
    """``text`` after the peer it speaks of: ``NAME (ADDRESS, seat N): `` for a
    connection's player, ``ADDRESS (seat N): `` for an address (seat when known)."""

    def say(speaker: Speaker, params: Mapping[str, Any]) -> str:
        seat = params.get("seat")
        if "name" in params:
            who = speaker.format("{name} ({address})" if seat is None
                                 else "{name} ({address}, seat {seat})", **params)
        else:
            who = speaker.format("{peer}" if seat is None else "{peer} (seat {seat})",
                                 **params)
        return who + speaker.format(text, **params)

    return say


def _reason_param(name: str = "reason") -> Callable[[Speaker, Mapping[str, Any]], str]:
    return lambda sp, p: reason(sp, p[name])


def _full(speaker: Speaker, params: Mapping[str, Any]) -> str:
    if params.get("seats") is None:
        return speaker.format("the table is full")
    return speaker.format("the table is full ({seats} seats)", seats=params["seats"])


def _closed_here(speaker: Speaker, params: Mapping[str, Any]) -> str:
    return speaker.format("closed: {why}", why=speaker.say(params["why"], **params))


def _cannot_reach(speaker: Speaker, params: Mapping[str, Any]) -> str:
    return speaker.format("cannot reach {where}: {why}", where=params["where"],
                          why=speaker.say(params["failure"], **params))


def _none_reached(speaker: Speaker, params: Mapping[str, Any]) -> str:
    failures = params["failures"]
    if not failures:
        return speaker.format("no address to try")
    return "; ".join(speaker.error(f) for f in failures)


def _host_left(speaker: Speaker, params: Mapping[str, Any]) -> str:
    text = speaker.format("the host left, so the table is closed")
    why: Reason = params["reason"]
    return text if why.code is Farewell.LEFT else f"{text} ({reason(speaker, why)})"


def _names(speaker: Speaker, params: Mapping[str, Any]) -> str:
    return ", ".join(params["names"])


def _not_a_map(speaker: Speaker, params: Mapping[str, Any]) -> str:
    what = {"message": "the message", "body": "the body"}.get(params["what"],
                                                              params["what"])
    return speaker.format("{what} must be a map", what=what)


def _bad_rules(speaker: Speaker, params: Mapping[str, Any]) -> str:
    if params.get("cause") is None:
        return speaker.format("bad rules ({error})", error=params.get("error"))
    return speaker.format("bad rules: {cause}", cause=params["cause"])


def _not_a_card(speaker: Speaker, params: Mapping[str, Any]) -> str:
    if params.get("cause") is None:
        return speaker.format("not a p2p8s table card ({error})", error=params.get("error"))
    return speaker.format("not a p2p8s table card: {cause}", cause=params["cause"])


def _bad_characters(speaker: Speaker, params: Mapping[str, Any]) -> str:
    bad = params["bad"]
    shown = ", ".join(repr(ch) for ch in bad[:8]) + (", …" if len(bad) > 8 else "")
    return speaker.format("a table code uses only digits and letters other than U, not "
                          "{shown} (got {text})", shown=shown, text=_typed()(speaker, params))


def _where(card: TableCard) -> str:
    where = ", ".join(f"[{a}]:{card.port}" if ":" in a else f"{a}:{card.port}"
                      for a in card.addresses)
    return where or "?"


def _card_rules(speaker: Speaker, card: TableCard) -> str:
    """The card's rules, with the house rules changed from the preset in brackets."""
    rules = describe_rules(card.rules, speaker)
    changes = describe_changes(card.rules, speaker, players=card.seats)
    return speaker.format("{rules} (changed from {preset}: {changes})", rules=rules,
                          preset=card.rules.name, changes=changes) if changes else rules


#: What a name must not hold to be shown: a name that reads like a command line.
_COMMAND_LIKE = re.compile(r"p2p8s|\bjoin\b|@|://|\$|`", re.I)


def announced(speaker: Speaker, name: str, *, table: bool = False) -> str:
    """A name heard in an advert (unsigned: anyone may send any), shown as a claim: in
    double quotes (one inside becomes ``'``, anything unprintable ``?``), ``table``:
    as the name of a table (``"Ann's table"``); a name that reads like a command (it
    names p2p8s or join, or holds ``@``, ``://``, ``$`` or a backquote) is not shown.
    """
    text = "".join(ch if ch.isprintable() else "?" for ch in name).replace('"', "'")
    if _COMMAND_LIKE.search(text):
        return speaker.format("a table whose name reads like a command (not shown)"
                              if table else "a name that reads like a command (not shown)")
    return speaker.format('"{name}\'s table"' if table else '"{name}"', name=text)


def claimed_table(speaker: Speaker, name: str) -> str:
    """The table an advert names, as a claim: ``"Ann's table" (as it announces
    itself)``, or ``a table whose name reads like a command (not shown)``
    (:func:`announced`)."""
    shown = announced(speaker, name, table=True)
    if _COMMAND_LIKE.search(name):
        return shown
    return speaker.format("{table} (as it announces itself)", table=shown)


def _claimed_key(speaker: Speaker, fingerprint: str) -> str:
    return speaker.format("claims key {fingerprint}", fingerprint=fingerprint) \
        if fingerprint else speaker.format("no key given")


def _card(text: str) -> Say:
    def say(speaker: Speaker, params: Mapping[str, Any]) -> str:
        card: TableCard = params["card"]
        return speaker.format(text, table=claimed_table(speaker, card.host_name),
                              seat=card.seat, taken=card.seats - card.free,
                              seats=card.seats, free=card.free,
                              rules=_card_rules(speaker, card),
                              key=_claimed_key(speaker, card.fingerprint),
                              id=card.table_id,
                              where=_where(card))

    return say


def _in_play(speaker: Speaker, params: Mapping[str, Any]) -> str:
    cards: Sequence[TableCard] = params["cards"]
    first = cards[0]
    owner = first.owner or next((c.host_name for c in cards if c.seat == 0), None)
    who = ", ".join(speaker.format("{name} (seat {seat})", name=announced(
        speaker, c.host_name), seat=c.seat) for c in cards)
    where = "; ".join(speaker.format("{name} at {where}", name=announced(
        speaker, c.host_name), where=_where(c)) for c in cards)
    text = "  {owner} in play" if owner else "  a table in play"
    return speaker.format(text + " ({who})  {rules}  id {id}  nodes: {where}",
                          owner=announced(speaker, owner, table=True) if owner else None,
                          who=who, rules=describe_rules(first.rules),
                          id=first.table_id, where=where)


def _table_at(speaker: Speaker, adverts: Sequence[str]) -> str:
    """One table id's adverts: ``A`` or ``A or B (2 adverts of one table id)``."""
    if len(adverts) == 1:
        return adverts[0]
    return speaker.format("{where} ({n} adverts of one table id)",
                          where=" or ".join(adverts), n=len(adverts))


def _found(speaker: Speaker, params: Mapping[str, Any]) -> str:
    tables: Sequence[Sequence[str]] = params["tables"]
    where = "; ".join(_table_at(speaker, t) for t in tables)
    if len(tables) == 1:
        return speaker.format("Found a table at {where}; trying it for this code",
                              where=where)
    return speaker.format("Found {n} tables, at {where}; trying each for this code",
                          n=len(tables), where=where)


def _no_table_answered(speaker: Speaker, params: Mapping[str, Any]) -> str:
    tables: Sequence[Sequence[str]] = params["tables"]
    lines = [speaker.format("no table here answered to code {code}; tried {n} table{n:s}, "
                            "none proved this code (a wrong code, or the table is not "
                            "among them):", code=params["code"], n=len(tables))]
    lines += [speaker.format("  - {where}", where=_table_at(speaker, t)) for t in tables]
    lines.append(speaker.format("  Check the code with the host, or type the line its "
                                "screen shows: p2p8s join {code}@HOST:PORT", **params))
    if not params.get("answered"):  # found by mDNS, yet no connection got through
        lines.append(speaker.format("  To see why the table cannot be reached, run: "
                                    "p2p8s doctor HOST:PORT"))
    return "\n".join(lines)


def _dealing(speaker: Speaker, params: Mapping[str, Any]) -> str:
    people, computers = params["people"], params["computers"]
    cast = speaker.format("{n} person" if people == 1 else "{n} people", n=people)
    if computers:
        cast += speaker.format(" and {n} computer player{n:s}", n=computers)
    return speaker.format("Dealing for {cast}; connecting the table{dots}", cast=cast,
                          dots=params["dots"])


def _escrow(speaker: Speaker, params: Mapping[str, Any]) -> str:
    """The table card's line on the escrow's trade-off (protocol/table.md "Dropped
    nodes"), said by people, since computer seats hold no share: with three or more
    people the others serve a dropped player's draws without seeing that hand and open
    it for the computer only when that player must act, and all the other people
    together could open it; with two people (or the escrow switched off) a drop-out
    pauses the game. ``seats`` bounds the people (two seats: two people at most)."""
    if not params["escrow"]:
        return "Escrow off: if someone drops out, the game pauses until they are back."
    if params["seats"] < 3:
        return "With two at the table, if one drops out the game pauses until they are back."
    return ("With three or more people: if someone's connection drops, the others go on "
            "without seeing that hand, and open it for the computer only when that player "
            "must act; all the other people together could open a hand. With two people, "
            "a drop-out pauses the game.")


def _escrow_dealt(speaker: Speaker, params: Mapping[str, Any]) -> str:
    """The trade-off for the people actually dealt in (an escrow table of two people or
    more): one holder per other person, all of them needed."""
    people = params["people"]
    if people < 3:
        return "With two people, a drop-out pauses the game until they are back."
    together = "both" if people == 3 else f"all {number(people - 1)}"
    return (f"If someone's connection drops, the {number(people - 1)} others go on without "
            f"seeing that hand; {together} together could open it.")


_WIRE: dict[WireCode, Template] = {
    WireCode.FRAME_SIZE: _peer(": frame of {size} bytes is outside {low}..{high}"),
    WireCode.FRAME_LENGTH: _peer(": frame length {length} is outside {low}..{high}"),
    WireCode.VERSION: _peer(": speaks p2p8s protocol version {theirs}, this program speaks "
                            "{ours}; both players need the same p2p8s release"),
    WireCode.OTHER_KEY: _peer(": signed with a different identity key than the "
                              "connection's"),
    WireCode.BAD_SIGNATURE: _peer(": bad signature"),
    WireCode.MALFORMED: _peer(": malformed message: {cause}"),
    WireCode.CLAIMS_SEAT: _peer(": claims seat {claimed}"),
    WireCode.CUT_SHORT: _peer(": closed the connection in the middle of a message"),
    WireCode.TOO_LARGE: "message too large to send ({size} bytes, limit {limit})",
}

_SCHEMA: dict[Schema, Template] = {
    Schema.UNDECODABLE: "undecodable payload ({error})",
    Schema.EXTENSION: "msgpack extension types are not allowed",
    Schema.FIELDS: "the message fields are not k, t, a, n, p, b",
    Schema.NOT_A_MAP: _not_a_map,
    Schema.UNKNOWN_KIND: _quoted("unknown message kind {kind}", "kind"),
    Schema.MISSING_FIELD: _quoted("missing field {field}", "field"),
    Schema.NOT_WHOLE: _quoted("field {field} must be a whole number", "field"),
    Schema.WRONG_TYPE: _quoted("field {field} has the wrong type", "field"),
    Schema.OUT_OF_RANGE: _quoted("field {field} out of range ({value})", "field"),
    Schema.BYTE_LENGTH: _with("field {field} must be {lengths} bytes",
                              field=lambda sp, p: repr(p["field"]),
                              lengths=lambda sp, p: " or ".join(map(str, p["lengths"]))),
    Schema.TEXT: _quoted("field {field} must be 1 to {limit} printable characters", "field"),
    Schema.UNKNOWN_CODE: _quoted("unknown {field} {value}", "value"),
    Schema.BAD_RULES: _bad_rules,
    Schema.TOO_MANY_SEATS: "more seats taken than the table has",
    Schema.BAD_ADDRESSES: "bad address list",
    Schema.SEAT_TWICE: "a seat or key appears twice in the roster",
}

_REFUSALS: dict[Refusal, Template] = {
    Refusal.FULL: _full,
    Refusal.SEATED: "this player is already seated",
    Refusal.CLOSED: "the host has dealt; the lobby is closed",
    Refusal.IN_PLAY: "the game has started at this table",
    Refusal.IN_LOBBY: "this table is still in its lobby",
    Refusal.NOT_SEATED: "not seated at this table",
    Refusal.DUPLICATE: "your key is already connected to this table (another terminal, or "
                       "an old connection not timed out yet)",
}

_FAREWELLS: dict[Farewell, Template] = {
    Farewell.LEFT: "left the table",
    Farewell.DONE: "finished playing",
    Farewell.CHANGED_MIND: "changed their mind",
}

_NODE: dict[NetCode, Template] = {
    NetCode.CONNECTION_CLOSED: "connection closed",
    NetCode.NO_HEARTBEAT: "no heartbeat for {timeout_s:g} s",
    NetCode.STOPPED_READING: _peer(" stopped reading: more than {limit_mib} MiB waited "
                                   "unsent"),
    NetCode.CONNECTION_ERROR: "connection error: {error}",
    NetCode.BAD_DATA: "{error}",
    NetCode.CLOSED_HERE: _closed_here,
    NetCode.CANNOT_REACH: _cannot_reach,
    NetCode.HANDSHAKE_TIMEOUT: "{where} did not answer the handshake in time",
    NetCode.NONE_REACHED: _none_reached,
    NetCode.NOT_A_TABLE: "{peer} is not a p2p8s table (it answered with something else)",
    NetCode.PORT_IN_USE: "port {port} is already in use; pick another --port (or 0 for any "
                         "free port)",
    NetCode.CANNOT_LISTEN: "cannot listen on port {port}: {error}",
    NetCode.ALREADY_CONNECTED: "{peer} is already connected",
    NetCode.CLOSED_IN_HANDSHAKE: _peer(": closed the connection during the handshake"),
    NetCode.BEFORE_HELLO: _peer(": sent {kind} before hello"),
    NetCode.SEQUENCE: _peer(": sequence number {seq} after {last}"),
    NetCode.OTHER_TABLE: _peer(": message for another table"),
}

def _slowed(speaker: Speaker, params: Mapping[str, Any]) -> str:
    return speaker.format("{failures} wrong codes from {peer} — slowed down (no attempt "
                          "from there for {wait_s:g} s)", **params)


def _busy(speaker: Speaker, params: Mapping[str, Any]) -> str:
    if params.get("answered", True) is False:  # closed before a byte of its hello
        return speaker.format("the table at {where} did not answer (it may be busy, or "
                              "out of connections)", **params)
    return speaker.format("the table at {where} is busy or slowing down new attempts "
                          "from this address", **params)


_SESSION: dict[SessionCode, Template] = {
    SessionCode.RECORD_LENGTH: _peer(": sealed record of {length} bytes (expected "
                                     "{low}..{high})"),
    SessionCode.UNSEALED: _peer(": a sealed record does not open (changed on the way, or "
                                "forged)"),
    SessionCode.CUT_SHORT: _peer(": closed the connection in the middle of a record"),
    # fixed words: the version byte came before the code was proved (no peer's number)
    SessionCode.VERSION: "{peer} speaks another version of the p2p8s protocol, or is not "
                         "p2p8s (this program speaks {ours})",
    SessionCode.BAD_HELLO: _peer(": not a valid handshake hello"),
    SessionCode.BAD_AUTH: _peer(": its identity signature over the handshake fails"),
    SessionCode.BAD_CONFIRM: _peer(": its key confirmation fails"),
    SessionCode.OTHER_TABLE: _peer(": it is another table"),
    SessionCode.ITSELF: _peer(": that is this node itself"),
    SessionCode.WRONG_CODE: _peer(": it does not know this table's code"),
    SessionCode.SLOWED: _slowed,
    # fixed words: the busy record is unsigned, only its wait (at most 30 s) is taken
    SessionCode.BUSY: _busy,
    # fixed words: nothing a node that did not prove the code sent is ever shown
    SessionCode.NOT_THERE: "could not join there ({where}): it did not prove this table "
                           "code (a wrong code, or not this table)",
}

_CONNECT: dict[ConnectFailure, Template] = {
    ConnectFailure.REFUSED: "nothing listens there (the program may have stopped, or the "
                            "port is wrong)",
    ConnectFailure.TIMED_OUT: "no answer (timed out)",
    ConnectFailure.UNKNOWN_HOST: "that host name is not known on this network",
    ConnectFailure.NO_ROUTE: "no route to that machine (it may be off, asleep or on another "
                             "network)",
    ConnectFailure.HOST_DOWN: "that machine is down or not on this network",
    ConnectFailure.NETWORK_UNREACHABLE: "that network cannot be reached from this machine",
    ConnectFailure.NETWORK_DOWN: "this machine's network is down",
    ConnectFailure.ADDRESS_UNAVAILABLE: "that address cannot be used from this machine",
    ConnectFailure.RESET: "the connection was cut as it opened",
    ConnectFailure.NOT_PERMITTED: "this machine does not allow the connection (a firewall?)",
    ConnectFailure.OTHER: "the connection failed ({error})",
}

_LOBBY: dict[LobbyCode, Template] = {
    LobbyCode.ALREADY_DEALT: "the host has already dealt",
    LobbyCode.ALL_SEATS_TAKEN: "all {seats} seats are taken",
    LobbyCode.ALREADY_SEATED: "this player is already seated",
    LobbyCode.NO_ANSWER: "the table did not answer; the host may have dealt already",
    LobbyCode.CLOSED_BEFORE_SEATED: "the lobby closed before you sat down (the host dealt, "
                                    "or left); ask the host for a new table",
    LobbyCode.TABLE_REFUSED: _with("the table refused: {reason}", reason=_reason_param()),
    LobbyCode.UNREADABLE: _with("the table sent something this program could not read: "
                                "{reason}", reason=_reason_param()),
    LobbyCode.HOST_LEFT: _host_left,
    LobbyCode.OTHER_ROSTER: "{name} (seat {seat}) saw a different roster",
    LobbyCode.MESH_TIMEOUT: _with("could not connect to {names} in time", names=_names),
    LobbyCode.LEFT_BEFORE_START: _with("{name} (seat {seat}) left before the game started: "
                                       "{reason}", reason=_reason_param()),
    LobbyCode.NOT_BACK: "no connection for {grace_s:g} s",
    LobbyCode.AWAY_AT_DEAL: "not back when the host dealt",
}

_INVITES: dict[InviteProblem, Template] = {
    InviteProblem.EMPTY: "the table code is empty; it has {length} characters, like 7KQ4MX",
    InviteProblem.CHARACTERS: _bad_characters,
    InviteProblem.LENGTH: _with("a table code has {expected} characters, {text} has {length}",
                                text=_typed()),
    InviteProblem.LINK: _with("a p2p8s:// link looks like p2p8s://CODE@HOST:PORT, not {text}",
                              text=_typed()),
    InviteProblem.IPV6_FORM: _quoted("an IPv6 address is written [ADDRESS]:PORT, in "
                                     "{original}", "original"),
    InviteProblem.NOT_IPV6: _quoted("{host} is not an IPv6 address (in {original})", "host",
                                    "original"),
    InviteProblem.NEEDS_PORT: _with("the address needs a port, like {address}:4242 (in "
                                    "{original})",
                                    address=lambda sp, p: p["address"] or "HOST",
                                    original=lambda sp, p: repr(p["original"])),
    InviteProblem.NEEDS_HOST: _with("the address needs a host before the port, like "
                                    "192.168.1.20:{port} (in {original})",
                                    original=lambda sp, p: repr(p["original"])),
    InviteProblem.IPV6_BRACKETS: "write an IPv6 address in brackets, like [{host}]:{port}",
    InviteProblem.COLONS: _quoted("an address is HOST:PORT with one colon, like "
                                  "192.168.1.20:4242; {address} has more (in {original})",
                                  "address", "original"),
    InviteProblem.BAD_HOST: _quoted("{host} is not a host name or IPv4 address", "host"),
    InviteProblem.BAD_PORT: _quoted("the port must be a number from 1 to 65535, not {port}",
                                    "port"),
}

_LINES: dict[Line, Template] = {
    Line.ADDRESS_CHANGED: _with("(This computer's address changed: now advertised at "
                                "{addresses}.)", addresses=lambda sp, p: ", ".join(
                                    p["addresses"])),
    Line.NO_MDNS_IN_PLAY: "(mDNS unavailable, this node is not advertised: {error})",
    Line.COME_BACK: "p2p8s join {code} (or p2p8s join {code}@{where})",
    Line.COME_BACK_LINK: "p2p8s join {code}@{where}",
    Line.TABLE_OF: "{host}'s table: {rules}",
    Line.HOUSE_RULES: "House rules changed from {preset}: {changes}",
    Line.SEATS: "Seats: {size} ({taken} taken, {free} free; computer players fill empty "
                "seats)",
    Line.SEAT: "  seat {seat}: {name} [key {fingerprint}]",
    Line.SAT_DOWN: lambda sp, p: sp.format(
        "{name} [key {fingerprint}] (you) sat down at seat {seat}" if p["you"]
        else "{name} [key {fingerprint}] sat down at seat {seat}", **p),
    Line.LEFT_SEAT: _with("{name} left seat {seat} ({reason})", reason=_reason_param()),
    Line.SEAT_KEPT: _with("{name}'s connection dropped ({reason}): keeping seat {seat} for "
                          "{grace_s:g} s.", reason=_reason_param()),
    Line.BACK_AT_SEAT: "{name} is back at seat {seat}.",
    Line.RECONNECTING: _with("Lost the connection to the host ({reason}); reconnecting for "
                             "up to {grace_s:g} s{dots}", reason=_reason_param()),
    Line.RECONNECTED: "Back at the table, at seat {seat}.",
    Line.DEALING: _dealing,
    Line.NAME_RULE: "a name is 1 to {limit} printable characters",
    Line.LEFT_TABLE: "Left the table.",
    Line.STOPPED_LOOKING: "Stopped before joining any table.",
    Line.STOPPED: "Stopped.",
    Line.INVITE_MISSING: "say which table: p2p8s join CODE, or the line on the host's "
                         "screen (CODE@HOST:PORT)",
    Line.CODE_MISSING: _with("the table code is missing in {text}: type the whole line on "
                             "the host's screen, CODE@HOST:PORT (like "
                             "7KQ4MX@192.168.1.20:4242)", text=_typed()),
    Line.NO_TABLES: "No tables found on the local network in {timeout_s:g} s.",
    Line.TABLES_FOUND: "{n} table{n:s} on the local network (names and keys as they "
                       "announce themselves: nobody checks an advert):",
    Line.TABLE_IN_PLAY: _in_play,
    Line.CARD_OPEN: _card("  {table}  {taken}/{seats} seated, "
                          "{free} free  {rules}  {key}  id {id}  at {where}"),
    Line.SAME_ID: "  (these {n} adverts claim one table id: at most one is that table, "
                  "and only the code tells which; join tries each)",
    Line.ASK_FOR_CODE: "Ask the host for the code, then run: p2p8s join CODE",
    Line.TABLE_OPEN: "Table open: {rules}; {seats} seats.",
    Line.ESCROW: _escrow,
    Line.ESCROW_DEALT: _escrow_dealt,
    Line.YOUR_KEY: "Your key: {fingerprint}",
    Line.TABLE_CODE: "Table code: {code}",
    Line.RUN_JOIN: "On the other computers, run: p2p8s join {code}",
    Line.RUN_JOIN_AT: "If they cannot find the table, run: p2p8s join {code}@{where}",
    Line.RUN_JOIN_LINK: "On the other computers, run: p2p8s join {code}@{where}",
    Line.LINK: "Link: {link}",
    Line.NO_MDNS_HOST: "(mDNS unavailable, the code alone will not find this table: "
                       "{error})",
    Line.WAITING: "Waiting for players. Type deal to start, quit to close the table.",
    Line.HOST_SEAT: "  seat 0: {name} (you)",
    Line.INPUT_ENDED: "input ended; closing the table",
    Line.NOT_A_LOBBY_WORD: _with("'{word}' is not a lobby command: type deal to start, quit "
                                 "to close the table.", word=lambda sp, p: p["word"] if len(
                                     p["word"]) <= 20 else p["word"][:20] + "…"),
    Line.JOINER_WAITING: "Waiting for the host to deal. Type quit to leave.",
    Line.JOINER_HELP: "In the lobby: quit (or q) leaves the table; the host deals when "
                      "everyone is there, then the game begins here.",
    Line.NOT_A_JOINER_WORD: _with("'{word}' is not a lobby command: the host deals; type "
                                  "quit to leave.", word=lambda sp, p: p["word"] if len(
                                      p["word"]) <= 20 else p["word"][:20] + "…"),
    Line.TABLE_CLOSED: "Table closed.",
    Line.NO_MDNS_PLAY_CARD: "(mDNS: could not advertise the table in play: {error})",
    Line.LOOKING: "Looking for table {code} on the local network{dots}",
    Line.TRYING_LAST: _with("No answer by mDNS; trying where the table was the last time: "
                            "{addresses}", addresses=lambda sp, p: ", ".join(p["addresses"])),
    Line.MATCH_ENDED_HERE: lambda sp, p: (
        f"the match at table {p['code']} is over: you played it to its end"
        + (f" (its result is in your log: p2p8s audit {p['log']})" if p.get("log") else "")
        + "; ask the host for the code of a new table"),
    Line.NOT_AT_LAST: _with("no table with code {code} answered by mDNS within {timeout_s:g} s "
                            "nor at its addresses of the last time ({addresses}); ask the host "
                            "for the fallback command (p2p8s join {code}@ADDRESS:PORT)",
                            addresses=lambda sp, p: ", ".join(p["addresses"])),
    Line.FOUND: _found,
    Line.TRYING_AT_ONCE: "Still trying the {n} places at once (the first that proves "
                       "the code is joined){dots}",
    Line.NO_TABLE_ANSWERED: _no_table_answered,
    Line.BUSY_RETRY: "The table is busy or slowing down new attempts from this address; "
                     "trying again in {wait_s} s.",
    Line.STILL_TRYING: "Still trying ({attempts} attempts in {seconds:.0f} s).",
    Line.STILL_RETURNING: "Cannot reach table {code} from here now (is this computer's "
                          "network down?): your seat is kept; still looking, by mDNS and "
                          "where the table was, every {retry_s:g} s for up to {minutes:g} "
                          "minutes — Ctrl-C to leave.",
    Line.ALREADY_HERE: "you are already at this table from another terminal (your key "
                       "{fingerprint} is connected there); play there, or leave it first",
    Line.ALREADY_HERE_LOCAL: lambda sp, p: sp.format(
        "you are already at this table from another terminal ("
        + ("p2p8s process {pid} on this machine" if p.get("pid") is not None
           else "another p2p8s on this machine") + " holds {path}); play there, or leave "
        "it first", **p),
    Line.SIT_DOWN: "Sit down at this table? [Y/n] ",
    Line.DID_NOT_SIT: "You did not sit down.",
    Line.REJOINING: _with("This table is in play and your key holds seat {seat}: rejoining "
                          "(connected to {names}); asking for the log{dots}", names=_names),
    Line.LOG_FRAMES: lambda sp, p: sp.format(
        "{file}: {frames} signed frames"
        + (" (and {duplicates} duplicate{duplicates:s}, counted once)" if p["duplicates"]
           else "")
        + ("; {void} more kept for the record, of a table this node rebuilt (void: "
           "not audited)" if p.get("void") else "")
        + ("; the last record, at byte {torn}, was cut short (the node stopped while "
           "writing it) and is left out" if p["torn"] is not None else ""), **p),
    Line.LOG_DAMAGED: lambda sp, p: sp.format(
        "damaged log" + (" at byte {at}" if p["at"] is not None else "")
        + ": {why}" + ("; only the {frames} frame{frames:s} before it are audited"
                       if p["frames"] is not None else ""), **p),
    Line.KEPT_BY: "  kept by the node of {name} (seat {seat}), as its unsigned header says; "
                  "everything below is checked from the signed frames",
}

TEMPLATES: dict[Any, Template] = {
    **_WIRE, **_SCHEMA, **_REFUSALS, **_FAREWELLS, **_NODE, **_SESSION, **_CONNECT, **_LOBBY,
    **_INVITES, **_LINES,
    CardCode.NOT_A_CARD: _not_a_card,
}
