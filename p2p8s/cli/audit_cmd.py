"""``p2p8s audit FILE``: re-verify the rounds of a node's signed table log
(:mod:`p2p8s.store.tablelog`) offline, with :func:`p2p8s.table.logverify.verify`."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from p2p8s.cli.lines import say
from p2p8s.cli.words import PLAIN, Speaker
from p2p8s.cli.words.net import Line


@click.command("audit")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
def audit_cmd(file: Path) -> None:
    """Re-verify a table log offline: every signature, every move, every round's audit.

    FILE is a node's log ('p2p8s host' and 'p2p8s join' print where it is written).
    Prints each round as ok or the cheater named, and the scores. A log cut short by a
    crash (its last record torn) is audited up to the cut; a damaged file (junk, a
    frame that does not verify, a missing message) is audited up to the damage, which
    is named with its byte offset.

    Exit status: 0 when everything read checks out, 1 when a round fails its audit (the
    seat at fault is named), 2 when the file is not a readable table log or is damaged.
    """
    from p2p8s.cli.words.table import report_lines, said
    from p2p8s.store.tablelog import CorruptLog, read_log
    from p2p8s.table.logverify import verify

    try:
        log = read_log(file, salvage=True)
    except CorruptLog as exc:
        click.echo(f"p2p8s: {PLAIN.error(exc)}", err=True)
        sys.exit(2)
    report = verify(log.frames)
    say(Line.LOG_FRAMES, file=file, frames=report.frames, duplicates=report.duplicates,
         torn=log.end if log.torn else None, void=len(log.void))
    seat = log.header.get("me")
    if isinstance(seat, int) and report.config is not None and 0 <= seat < len(
            report.config.names):  # the header is not signed: named only as its claim
        say(Line.KEPT_BY, name=report.config.names[seat], seat=seat)
    for line in report_lines(report):
        click.echo(f"  {line}")
    if not report.ok and (not report.damaged or not all(r.ok for r in report.rounds)):
        sys.exit(1)
    if report.damaged:
        assert report.fault is not None
        index = report.fault.params.get("index")
        at = log.offsets[index] if isinstance(index, int) and index < len(log.offsets) else None
        why = said(report.fault, Speaker(names=report.config.names if report.config else ()))
        say(Line.LOG_DAMAGED, err=True, at=at, why=why,
             frames=index if isinstance(index, int) else None)
        sys.exit(2)
    if log.damage is not None:
        say(Line.LOG_DAMAGED, err=True, at=log.damage.params.get("at"),
             why=PLAIN.error(log.damage), frames=len(log.frames))
        sys.exit(2)



COMMANDS = [audit_cmd]
