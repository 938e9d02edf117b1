"""``p2p8s doctor``: when machines cannot find each other, check this one's network and
say in plain words what failed and what to try (:mod:`p2p8s.net.doctor` runs the
checks; :mod:`p2p8s.cli.words.doctor` says them)."""

from __future__ import annotations

import asyncio
import contextlib

import click

from p2p8s.cli.terminal import Terminal
from p2p8s.cli.words import PLAIN
from p2p8s.cli.words.doctor import DoctorLine, mark, status_mark
from p2p8s.codes import format_address, normalize_code, parse_address, parse_invite
from p2p8s.errors import MalformedInput
from p2p8s.net.doctor import Report, Section, Status
from p2p8s.net.doctor_probes import diagnose


def _target(text: str | None) -> tuple[str, int] | None:
    """``(host, port)`` of ``HOST:PORT``, ``CODE@HOST:PORT`` or a ``p2p8s://`` link;
    raises MalformedInput (exit 2) when it is none of them (a table code alone: it says
    where nothing is, so the words ask for the address)."""
    if text is None:
        return None
    if "@" not in text and ":" not in text:
        code: str | None = None
        with contextlib.suppress(MalformedInput):
            code = normalize_code(text)
        if code is not None:
            raise MalformedInput(DoctorLine.CODE_ONLY, code=code)
    if "@" not in text:
        return parse_address(text)
    invite = parse_invite(text)
    assert invite.host is not None and invite.port is not None  # "@" comes with both
    return invite.host, invite.port


def _writes(term: Terminal, glyphs: str) -> bool:
    """Whether the terminal's encoding has ``glyphs``."""
    try:
        glyphs.encode(getattr(term.out, "encoding", None) or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def show(report: Report, term: Terminal, *, listen_s: float,
         target: tuple[str, int] | None) -> None:
    """Print ``report``: each section with its findings, the causes to try, the verdict."""
    ascii = term.look.ascii or not _writes(term, "✓✗·")
    section: Section | None = None
    for finding in report.findings:
        if finding.section is not section:
            section = finding.section
            term.say("", PLAIN.say(section, listen_s=listen_s,
                                   where=format_address(*target) if target else ""))
        term.say(f"  {mark(finding, ascii=ascii)} "
                 f"{PLAIN.say(finding.code, **finding.params)}")
    if report.causes:
        term.say("", PLAIN.say(DoctorLine.WHAT_TO_TRY))
        for cause in report.causes:
            term.say(f"  - {PLAIN.say(cause)}")
    if report.failed:
        term.say("", PLAIN.say(DoctorLine.FAILED, n=report.failed))
    elif report.warned:
        term.say("", PLAIN.say(DoctorLine.NOTES, n=report.warned,
                               mark=status_mark(Status.WARN, ascii=ascii)))
    else:
        term.say("", PLAIN.say(DoctorLine.ALL_PASSED))


@click.command("doctor")
@click.argument("target", required=False, metavar="[HOST:PORT | CODE@HOST:PORT]")
@click.option("--listen-seconds", "listen_s", type=click.FloatRange(0.5, 60), default=3.0,
              show_default=True, help="Seconds to listen for tables by mDNS.")
@click.option("--ascii", "ascii_", is_flag=True, help="Marks and dots in plain ASCII.")
def doctor_cmd(target: str | None, listen_s: float, ascii_: bool) -> None:
    """Check why machines cannot find each other, and say what to try.

    Looks at this machine's interfaces and addresses, the multicast route, the mDNS
    group and an mDNS self-test, and lists the tables it hears; given the address on the
    host's screen (HOST:PORT, or the whole CODE@HOST:PORT), it tries a TCP connection
    there. Then it names the likely causes, each with what to do.

    Exit status: 0 when every check passed, 1 when one failed, 2 for a malformed address.
    """
    where = _target(target)
    term = Terminal(ascii=ascii_)
    term.say(PLAIN.say(DoctorLine.INTRO, listen_s=listen_s,
                       dots="..." if term.look.ascii else "…"))
    report = asyncio.run(diagnose(listen_s=listen_s, target=where))
    show(report, term, listen_s=listen_s, target=where)
    if report.failed:
        raise SystemExit(1)


COMMANDS = [doctor_cmd]
