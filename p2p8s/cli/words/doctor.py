"""The words of ``p2p8s doctor`` (:mod:`p2p8s.net.doctor`: sections, findings, causes)
and of ``p2p8s join`` when mDNS finds nothing or an address is typed (:class:`DoctorLine`).

Every sentence is short and plain and ends with what to do; the marks of a finding
(:func:`mark`) have an ASCII form.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from p2p8s.cli.words import Speaker, Template
from p2p8s.cli.words.net import Line, claimed_table
from p2p8s.cli.words.rules import describe_rules
from p2p8s.errors import Code
from p2p8s.net.doctor import Cause, DoctorCode, Finding, Heard, IfaceKind, Section, Status


class DoctorLine(Code):
    """The lines of the command around the findings, and of ``join`` (params after)."""

    INTRO = "doctor-intro"  # listen_s, dots
    WHAT_TO_TRY = "doctor-what-to-try"
    ALL_PASSED = "doctor-all-passed"
    NOTES = "doctor-notes"  # n (findings marked as notes), mark
    FAILED = "doctor-failed"  # n (checks failed)
    JOIN_NOTHING = "join-nothing-found"  # code, timeout_s (a LocalError)
    JOIN_DIRECT = "join-direct"  # where (HOST:PORT)
    CODE_ONLY = "doctor-code-only"  # code (a MalformedInput: no address to check)


_MARKS = {Status.OK: ("✓", "ok"), Status.WARN: ("!", "!!"), Status.FAIL: ("✗", "XX")}


def status_mark(status: Status, *, ascii: bool = False) -> str:
    """The mark of a status: ✓ ! ✗ (``ok`` ``!!`` ``XX`` in ASCII)."""
    glyph, plain = _MARKS[status]
    return plain if ascii else glyph


def mark(finding: Finding, *, ascii: bool = False) -> str:
    """The mark in front of a finding (:func:`status_mark`); a table heard is a detail
    of the line above it (``·``, ``-`` in ASCII)."""
    if finding.code is DoctorCode.TABLE:
        return "  -" if ascii else "  ·"
    return status_mark(finding.status, ascii=ascii)


_KINDS = {IfaceKind.LAN: "local network", IfaceKind.LINK_LOCAL:
          "link-local only: no address from the router",
          IfaceKind.VPN: "looks like a VPN", IfaceKind.VIRTUAL:
          "a virtual bridge for containers or virtual machines"}


def _list(names: Any) -> str:
    return ", ".join(str(n) for n in names)


def _iface(speaker: Speaker, p: Mapping[str, Any]) -> str:
    return speaker.format("{name}: {addresses} ({kind})", name=p["name"],
                          addresses=_list(p["addresses"]), kind=_KINDS[p["kind"]])


def _leaves_by(speaker: Speaker, p: Mapping[str, Any]) -> str:
    text = ("mDNS goes out by {name} ({address}): the others must be on that network."
            if p["name"] else "mDNS goes out from {address}: the others must be on that "
            "network.")
    return speaker.format(text, **p)


def _errno(text: str) -> Any:
    def say(speaker: Speaker, p: Mapping[str, Any]) -> str:
        tail = " ({error})." if p.get("error") else "."
        return speaker.format(text + tail, **p)

    return say


def _table(speaker: Speaker, p: Mapping[str, Any]) -> str:
    table: Heard = p["table"]
    text = ("{table}, in play with {seats} players: {rules}"
            if table.playing else
            "{table}: {seated}/{seats} seated, {rules}")
    return speaker.format(text, table=claimed_table(speaker, table.host),
                          seated=table.seated, seats=table.seats,
                          rules=describe_rules(table.rules, speaker))


_SECTIONS: dict[Any, Template] = {
    Section.INTERFACES: "Network interfaces",
    Section.MULTICAST: "Multicast and mDNS",
    Section.TABLES: "Tables heard in {listen_s:g} s",
    Section.REACH: "Reaching {where}",
}

_FINDINGS: dict[Any, Template] = {
    DoctorCode.IFACE: _iface,
    DoctorCode.NO_INTERFACES: "No network interface found at all.",
    DoctorCode.LOOPBACK_ONLY: "Only loopback (127.0.0.1): this machine is on no network.",
    DoctorCode.LINK_LOCAL_ONLY: lambda sp, p: sp.format(
        "Only link-local addresses on {names}: the router gave this machine no address.",
        names=_list(p["names"])),
    DoctorCode.VPN: lambda sp, p: sp.format(
        "A VPN is on ({names}): it may take traffic away from the local network.",
        names=_list(p["names"])),
    DoctorCode.SEVERAL: lambda sp, p: sp.format(
        "Several networks are in use ({names}): mDNS answers on each of them.",
        names=_list(p["names"])),
    DoctorCode.MDNS_LEAVES_BY: _leaves_by,
    DoctorCode.ROUTE_MULTICAST: "Multicast has a route: 224.0.0.0/4 by {name}.",
    DoctorCode.ROUTE_DEFAULT: "Multicast follows the default route, by {name}.",
    DoctorCode.ROUTE_SOCKET: "Multicast has a route (from {address}).",
    DoctorCode.NO_ROUTE: lambda sp, p: _errno(
        "No default route for multicast, yet mDNS was heard: zeroconf sends on each "
        "interface, nothing to fix" if p.get("heard") else
        "No route for multicast: mDNS cannot leave this machine")(sp, p),
    DoctorCode.GROUP_JOINED: "Joined the mDNS group 224.0.0.251, port 5353.",
    DoctorCode.GROUP_FAILED: lambda sp, p: sp.format(
        "The mDNS group 224.0.0.251 could not be joined on the default interface "
        "({error}), yet mDNS was heard: zeroconf joins on each interface, nothing to fix."
        if p.get("heard") else "Could not join the mDNS group 224.0.0.251 ({error}).", **p),
    DoctorCode.PORT_BUSY: "Port 5353 is held by another program alone ({error}); zeroconf "
                          "may still share it.",
    DoctorCode.SELF_SEEN: lambda sp, p: sp.format(
        "mDNS self-test: this machine heard its own test service "
        + ("in {seconds:.1f} s." if p["seconds"] >= 0.05 else "at once."), **p),
    DoctorCode.SELF_NOT_SEEN: "mDNS self-test: this machine did not hear its own test "
                              "service within {wait_s:g} s.",
    DoctorCode.SELF_ERROR: "mDNS self-test could not run ({error}).",
    DoctorCode.TABLES_HEARD: "{n} table{n:s} answered:",
    DoctorCode.TABLE: _table,
    # the words of ``p2p8s tables`` for the same claim, without their indent
    DoctorCode.SAME_ID: lambda sp, p: sp.say(Line.SAME_ID, n=p["n"]).strip(),
    DoctorCode.NO_TABLES: "No table answered (is someone hosting one right now?).",
    DoctorCode.LISTEN_ERROR: "Could not listen for tables ({error}).",
    DoctorCode.REACHED: "Connected: a program listens there, but it sent nothing, so "
                        "this cannot tell whether it is a p2p8s table.",
    DoctorCode.REACHED_TABLE: "Connected: a p2p8s table answers there (the code is "
                              "checked when you join).",
    DoctorCode.REACHED_BUSY: "Connected: a p2p8s table answers there, but it turned "
                             "this attempt away for now (busy, or slowing down this "
                             "address after wrong codes).",
    DoctorCode.NOT_P2P8S: "Connected, but the program on port {port} is not p2p8s.",
    DoctorCode.REFUSED: "Refused: the machine is there but nothing listens on port {port}.",
    DoctorCode.TIMED_OUT: "No answer within {timeout_s:g} s: something drops the "
                          "connection on the way.",
    DoctorCode.UNREACHABLE: _errno("No route to {host}: it is not on a network this "
                                   "machine reaches"),
    DoctorCode.UNKNOWN_HOST: "{host} is not a name this machine can look up.",
    DoctorCode.CONNECT_ERROR: "Could not connect ({error}).",
}

_CAUSES: dict[Any, Template] = {
    Cause.NOT_CONNECTED: "This machine is on no local network: connect it to the same "
                         "Wi-Fi or wired network as the others.",
    Cause.LOCAL_FIREWALL: "A firewall here may drop mDNS: allow UDP port 5353 (for "
                          "example sudo ufw allow 5353/udp).",
    Cause.WSL: "This is WSL, behind Windows' own network: set networkingMode=mirrored in "
               ".wslconfig and run wsl --shutdown, or run p2p8s in Windows.",
    Cause.CONTAINER: "This runs in a container without the host's network: start it with "
                     "--network host.",
    Cause.WINDOWS_PROFILE: "On Windows, a network marked Public hides this machine: make "
                           "it Private in Settings, and answer Allow when the firewall asks "
                           "about Python.",
    Cause.MACOS_PERMISSION: "On macOS, the terminal needs Local Network permission: turn "
                            "it on in System Settings > Privacy & Security > Local "
                            "Network, then restart the terminal.",
    Cause.VPN: "A VPN may carry the traffic away: turn it off, or allow local network "
               "access in its settings.",
    Cause.SEVERAL: "This machine is on several networks: make sure the others are on the "
                   "same one as you.",
    Cause.ISOLATION: "A guest Wi-Fi or client isolation keeps devices apart: use the main "
                     "network, or turn isolation off on the router.",
    Cause.NOTHING_LISTENS: "The table is closed or the port is wrong: ask the host for the "
                           "line its screen shows now.",
    Cause.HOST_FIREWALL: "The host's firewall may drop the connection: on the host, allow "
                         "Python through it.",
    Cause.OTHER_NETWORK: "The two machines are on different networks: join the same one.",
    Cause.CHECK_NAME: "The name may be mistyped: check it, or use the IP address "
                      "instead (the line on the host's screen shows it).",
    Cause.WRONG_PORT: "The port is wrong: ask the host for the line its screen shows now.",
    Cause.TYPE_ADDRESS: "Join without mDNS: ask the host for the line its screen shows and "
                        "type it here: p2p8s join CODE@HOST:PORT",
}

_LINES: dict[Any, Template] = {
    DoctorLine.INTRO: "Checking this machine's network ({listen_s:g} s of listening){dots}",
    DoctorLine.WHAT_TO_TRY: "What to try",
    DoctorLine.ALL_PASSED: "Every check passed.",
    DoctorLine.NOTES: "No check failed; {n} line{n:s} marked {mark} may explain trouble.",
    DoctorLine.FAILED: "{n} check{n:s} failed.",
    DoctorLine.JOIN_NOTHING: "no table with code {code} answered by mDNS within "
                             "{timeout_s:g} s.\n"
                             "  Ask the host for the line its screen shows and type it: "
                             "p2p8s join {code}@HOST:PORT\n"
                             "  To see why this network hides tables, run: p2p8s doctor",
    DoctorLine.JOIN_DIRECT: "Going straight to {where} (no mDNS look-up).",
    DoctorLine.CODE_ONLY: "{code} is a table code, not an address: give HOST:PORT or "
                          "CODE@HOST:PORT (the line on the host's screen), like "
                          "{code}@192.168.1.20:4242",
}

TEMPLATES: dict[Any, Template] = {**_SECTIONS, **_FINDINGS, **_CAUSES, **_LINES}
