"""The asyncio runner in one process: nodes on 127.0.0.1 with real sockets and real tables.

Short turn timers show the timer path (the warning, then the computer playing for a
person who does not answer); a crashed node shows how a lost player ends the match.
"""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from net.test_mesh import table as dealt_table

from p2p8s.bots.registry import get_bot
from p2p8s.cli.table_view import AUDIT_OK, TableScreen
from p2p8s.cli.terminal import Terminal
from p2p8s.cli.words import PLAIN, Speaker
from p2p8s.cli.words.runner import reason as how_said
from p2p8s.cli.words.table import said
from p2p8s.crypto.messages import PlayCards, decode
from p2p8s.net.lobby import Mesh
from p2p8s.net.runner import EOF_MARK, Options, PeerLost, Result, TableFailed, play_table
from p2p8s.rules import Ruleset
from p2p8s.store.tablelog import read_log, secret_path
from p2p8s.table import Table, TableConfig
from p2p8s.table import events as tev
from p2p8s.table.actions import CRYPTO
from p2p8s.table.linkout import LinkCode, Note
from p2p8s.table.logverify import verify


class Recorder:
    """A frontend that keeps everything it is told (notes and reasons in words)."""

    def __init__(self) -> None:
        self.events: list[object] = []
        self.seen: list[tuple[int, str, bool, str]] = []
        self.warned: list[float] = []
        self.turns = 0
        self.why: Note | None = None
        self.names: tuple[str, ...] = ()

    def started(self, table: Table, config: TableConfig, **_: object) -> None:
        self.names = config.names

    def said(self, note: Note) -> str:
        return Speaker(names=self.names).say(note.code, **note.params)

    def show(self, table: Table, events: Sequence[object], now: float) -> None:
        self.events.extend(events)

    def presence(self, seat: int, name: str, *, connected: bool, reason: Note) -> None:
        self.seen.append((seat, f"{name} (seat {seat})", connected, how_said(reason)))

    def turn(self, table: Table, now: float) -> None:
        self.turns += 1

    def warn(self, table: Table, seconds_left: float) -> None:
        self.warned.append(seconds_left)

    def typed(self, table: Table, line: str, now: float) -> None:
        return None

    def finished(self, table: Table, why: Note) -> None:
        self.why = why

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


async def _play(meshes: list[Mesh], frontends: list[Any], options: list[Options]
                ) -> list[Result | BaseException]:
    async with asyncio.timeout(60):
        return await asyncio.gather(*(play_table(m, f, options=o)
                                      for m, f, o in zip(meshes, frontends, options,
                                                         strict=True)),
                                    return_exceptions=True)


async def test_a_person_who_does_not_answer_is_warned_then_the_computer_plays(
        tmp_path: Path) -> None:
    out = io.StringIO()
    screen = TableScreen(Terminal(out=out, inp=io.StringIO(), pace_s=0), me=1)
    host = Recorder()
    async with dealt_table(2) as (_nodes, meshes, _views):
        results = await _play(meshes, [host, screen], [
            Options(auto=get_bot("karl"), rounds=1, log_dir=tmp_path / "0",
                    turn_timeout_s=0.4, warn_s=0.3),
            Options(rounds=1, log_dir=tmp_path / "1", turn_timeout_s=0.4, warn_s=0.3)])
    assert all(isinstance(r, Result) and r.rounds == 1 for r in results), results
    text = out.getvalue()
    assert "Everyone is connected (2 people); the game begins." in text
    assert "s left]: " in text  # the prompt shows the seconds left
    assert re.search(r"\n\d seconds left . then the computer plays this turn for you\.\n",
                     text), text
    assert "\nThe computer played for you (your 0.4 s ran out)" in text  # a sentence
    assert AUDIT_OK.replace("✓", "ok") in text  # StringIO: an ASCII terminal
    assert re.search(r"Leaving the table: (played the 1 round asked for|the match is over)\.",
                     text)
    assert len(host.of(tev.RoundOver)) == 1
    # Both logs hold the header and the frames, and end on the same transcript.
    logs = [read_log(next((tmp_path / str(i)).glob("*.p2p8slog"))) for i in (0, 1)]
    assert [log.header["me"] for log in logs] == [0, 1]
    assert logs[0].marks[0]["transcript"] == logs[1].marks[0]["transcript"]
    assert logs[0].marks[0]["totals"] == logs[1].marks[0]["totals"]


async def _until(predicate: Any, timeout_s: float = 20.0) -> None:
    async with asyncio.timeout(timeout_s):
        while not predicate():
            await asyncio.sleep(0.01)


@pytest.mark.parametrize("over", [False, True])  # the match ends with the round, or not
@pytest.mark.parametrize("gone", [2, 0])
async def test_a_crashed_node_is_taken_over_and_the_others_finish(tmp_path: Path,
                                                                  gone: int, over: bool) -> None:
    """A joiner (or the host, with its computer seat) crashes mid-round: the others take
    its seats over through the escrow and finish the round; every log audits ok. Whether
    that round ends the match or is the last one asked for (``rounds=1``), they first
    wait ``linger_s`` for the crashed node to come back and be given what it missed."""
    fronts = [Recorder() for _ in range(4)]
    rules = Ruleset().with_changes(target=1 if over else 10_000)
    async with dealt_table(3, size=4, rules=rules) as (nodes, meshes, _views):
        options = [Options(auto=get_bot("max"), auto_delay_s=0.02, rounds=1, redial=False,
                           log_dir=tmp_path / str(i), linger_s=1.0) for i in range(3)]
        tasks = [asyncio.ensure_future(play_table(m, f, options=o))
                 for m, f, o in zip(meshes, fronts[:3], options, strict=True)]
        await _until(lambda: all(f.of(tev.Applied) for f in fronts[:3]))
        tasks[gone].cancel()
        nodes[gone].abort()  # a crash: no bye, no leave
        live = [i for i in range(3) if i != gone]
        async with asyncio.timeout(40):
            results = await asyncio.gather(*(tasks[i] for i in live), return_exceptions=True)
        with pytest.raises(asyncio.CancelledError):
            await tasks[gone]
    assert all(isinstance(r, Result) and r.rounds == 1 and r.match_over is over
               for r in results), results
    for i in live:
        assert fronts[i].seen[0][:3] == (gone, f"P{gone} (seat {gone})", False)
        taken = {e.seat for e in fronts[i].of(tev.SeatTakenOver)}
        assert taken == ({0, 3} if gone == 0 else {gone}), fronts[i].events
        assert fronts[i].of(tev.RoundOver)[0].audit_ok
        told = [n.params for n in fronts[i].of(Note) if n.code is LinkCode.TELLING_RESULT]
        # after the rounds asked for as after the end of the match (a node away when
        # the others finish the last round asked must not be left waiting for good)
        assert told == [{"seats": [gone], "seconds": 1.0}]
    logs = [read_log(next((tmp_path / str(i)).glob("*.p2p8slog"))) for i in live]
    assert logs[0].marks[0]["transcript"] == logs[1].marks[0]["transcript"]
    for log in logs:
        assert verify(log.frames).ok


async def test_a_cheating_node_is_named_and_the_table_stops(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Seat 2's node shows a card it does not hold (a signed, well-formed lie): the other
    nodes name it, stop, and keep the log that proves it."""
    fronts = [Recorder() for _ in range(3)]
    async with dealt_table(3) as (_nodes, meshes, _views):
        honest_post = Mesh.post

        def lying_post(self: Mesh, to: int | None, payload: bytes, *, prev: bytes = b""
                       ) -> tuple[bytes, bytes]:
            if self.seat == 2 and payload[:1] == bytes([CRYPTO]):
                msg = decode(payload[1:])
                if isinstance(msg, PlayCards):
                    e, i, k = msg.items[0]
                    msg = replace(msg, items=((e, i, (k + 1) % 52), *msg.items[1:]))
                    payload = bytes([CRYPTO]) + msg.encode()
            return honest_post(self, to, payload, prev=prev)

        monkeypatch.setattr(Mesh, "post", lying_post)
        results = await _play(meshes, fronts, [
            Options(auto=get_bot("karl"), log_dir=tmp_path / str(i)) for i in range(3)])
    for i in (0, 1):
        assert isinstance(results[i], TableFailed), results[i]
        assert "P2 (seat 2) broke the rules" in PLAIN.error(results[i])
        faults = fronts[i].of(tev.Fault)
        assert faults and faults[0].seat == 2
    # The honest nodes' logs hold the signed lie: the offline audit names seat 2 too.
    log = read_log(next((tmp_path / "0").glob("*.p2p8slog")))
    report = verify(log.frames)
    assert not report.ok and report.fault is not None and report.fault.seat == 2


async def test_when_the_input_ends_the_computer_plays_on(tmp_path: Path) -> None:
    lines: asyncio.Queue[str] = asyncio.Queue()
    lines.put_nowait(EOF_MARK)
    fronts = [Recorder(), Recorder()]
    async with dealt_table(2) as (_nodes, meshes, _views):
        async with asyncio.timeout(30):  # far less than one 30 s turn timer per turn
            results = await asyncio.gather(
                play_table(meshes[0], fronts[0], options=Options(
                    auto=get_bot("karl"), rounds=1, write_log=False)),
                play_table(meshes[1], fronts[1], options=Options(rounds=1, write_log=False),
                           lines=lines))
    assert [r.rounds for r in results] == [1, 1]
    infos = _texts(fronts[1])
    assert any("Your input ended: the computer (Max) plays your seat" in t for t in infos)
    assert fronts[1].turns == 0


async def test_a_newcomer_refused_after_the_deal_does_not_stop_the_match(
        tmp_path: Path) -> None:
    """A node with the right code knocks after the deal, at the host's port and at a
    joiner's: it is refused, its leaving is ignored, and the match goes on."""
    from net.test_mesh import TID, _node, _yes

    from p2p8s.errors import Error
    from p2p8s.net.lobby import join_lobby

    fronts = [Recorder() for _ in range(3)]
    async with dealt_table(3) as (nodes, meshes, _views):
        tasks = [asyncio.ensure_future(play_table(m, f, options=Options(
            auto=get_bot("max"), rounds=1, auto_delay_s=0.02, write_log=False)))
            for m, f in zip(meshes, fronts, strict=True)]
        async with asyncio.timeout(20):
            while not all(f.of(tev.Applied) for f in fronts):
                await asyncio.sleep(0.01)
        for target in (nodes[0], nodes[1]):
            async with _node("Late", tid=TID) as late:
                with pytest.raises(Error, match="refused"):
                    async with asyncio.timeout(10):
                        await join_lobby(late, [("127.0.0.1", target.port)], view=Recorder(),
                                         confirm=_yes, mesh_timeout_s=5)
        async with asyncio.timeout(60):
            results = await asyncio.gather(*tasks, return_exceptions=True)
    assert all(isinstance(r, Result) and r.rounds == 1 for r in results), results
    for front in fronts:
        assert all(0 <= seat < 3 for seat, *_ in front.seen), front.seen


async def test_a_node_that_played_its_rounds_ends_the_match_for_the_others(
        tmp_path: Path) -> None:
    """Seat 1 asked for one round; the others play on: they stop, naming it, no hang."""
    fronts = [Recorder() for _ in range(3)]
    rules = Ruleset().with_changes(target=10_000)  # the match cannot end in one round
    async with dealt_table(3, rules=rules) as (_nodes, meshes, _views):
        results = await _play(meshes, fronts, [
            Options(auto=get_bot("max"), rounds=1 if i == 1 else None, write_log=False)
            for i in range(3)])
    assert isinstance(results[1], Result) and results[1].rounds == 1, results[1]
    for i in (0, 2):
        assert isinstance(results[i], PeerLost), results[i]
        assert PLAIN.error(results[i]) == ("P1 left after the rounds they asked for; the "
                                           "match cannot go on without them")
        assert results[i].seat == 1


class Quitter(Recorder):
    """A recorder whose person types ``quit``."""

    def typed(self, table: Table, line: str, now: float) -> Any:
        from p2p8s.net.runner import Leave

        return Leave() if line.strip() == "quit" else None


def _drop(node: Any) -> None:
    """A network drop: every connection of ``node`` is reset; both processes live on."""
    for conn in list(node.peers.values()):
        conn.writer.transport.abort()


def _texts(front: Recorder) -> list[str]:
    """The table's Info texts and the runner's notes, in words."""
    return [said(e, Speaker(names=front.names)) if isinstance(e, tev.Info) else front.said(e)
            for e in front.events if isinstance(e, tev.Info | Note)]


async def test_a_player_who_quits_is_taken_over_and_the_others_go_on(tmp_path: Path) -> None:
    fronts: list[Recorder] = [Recorder(), Quitter(), Recorder()]
    lines: asyncio.Queue[str] = asyncio.Queue()
    async with dealt_table(3) as (_nodes, meshes, _views):
        options = [Options(auto=None if i == 1 else get_bot("max"), auto_delay_s=0.02,
                           rounds=1, log_dir=tmp_path / str(i), turn_timeout_s=1.0)
                   for i in range(3)]
        tasks = [asyncio.ensure_future(play_table(m, f, options=o,
                                                  lines=lines if i == 1 else None))
                 for i, (m, f, o) in enumerate(zip(meshes, fronts, options, strict=True))]
        await _until(lambda: all(f.of(tev.Applied) for f in fronts))
        secret = secret_path(meshes[1].node.table, 1, directory=tmp_path / "1")
        assert secret.exists()  # its round keys derive from it while it plays
        lines.put_nowait("quit")
        async with asyncio.timeout(40):
            results = await asyncio.gather(*tasks, return_exceptions=True)
    assert all(isinstance(r, Result) for r in results), results
    assert "You left the table; the computer plays your seat." in _texts(fronts[1])
    # it gave its keys up with its leave: its secret is deleted, not left on the disk
    assert not secret.exists() and not list((tmp_path / "1").glob("*.key"))
    for i in (0, 2):
        assert results[i].rounds == 1  # type: ignore[union-attr]
        assert "P1 left the table: the computer plays their seat." in _texts(fronts[i])
        assert {e.seat for e in fronts[i].of(tev.SeatTakenOver)} == {1}
        assert verify(read_log(next((tmp_path / str(i)).glob("*.p2p8slog"))).frames).ok
        assert not [s for s in fronts[i].seen if s[0] == 1 and s[3] != "left the table"]


async def test_ctrl_c_leaves_like_quit_and_deletes_the_secret(tmp_path: Path) -> None:
    """Ctrl-C (the run cancelled) hands the keys over as ``quit`` does: the others take
    the seat over, and the leaver's table secret is deleted."""
    fronts = [Recorder() for _ in range(3)]
    async with dealt_table(3) as (_nodes, meshes, _views):
        tasks = [asyncio.ensure_future(play_table(m, f, options=Options(
                     auto=get_bot("max"), auto_delay_s=0.02, rounds=1,
                     log_dir=tmp_path / str(i))))
                 for i, (m, f) in enumerate(zip(meshes, fronts, strict=True))]
        await _until(lambda: all(f.of(tev.Applied) for f in fronts))
        secret = secret_path(meshes[1].node.table, 1, directory=tmp_path / "1")
        assert secret.exists()
        tasks[1].cancel()
        async with asyncio.timeout(40):
            results = await asyncio.gather(*tasks, return_exceptions=True)
    assert isinstance(results[1], asyncio.CancelledError), results[1]
    assert not secret.exists()
    for i in (0, 2):
        assert isinstance(results[i], Result), results[i]
        assert "P1 left the table: the computer plays their seat." in _texts(fronts[i])


async def test_with_two_people_a_quit_leaves_the_other_playing_the_computer(
        tmp_path: Path) -> None:
    """The quitter gives up its round keys with its ``leave``: with no escrow (two
    people) the other still plays on, the computer playing the quitter's open hand."""
    fronts: list[Recorder] = [Recorder(), Quitter()]
    lines: asyncio.Queue[str] = asyncio.Queue()
    # The match must outlast the 2 rounds asked for: at the friends' default target
    # (100) one round with two players ends the match about one time in 17 (a hand of
    # two 8s is 100 points), and the node stops after 1 round, the match over.
    rules = Ruleset().with_changes(target=10_000)
    async with dealt_table(2, rules=rules) as (_nodes, meshes, _views):
        tasks = [asyncio.ensure_future(play_table(meshes[0], fronts[0], options=Options(
                     auto=get_bot("max"), auto_delay_s=0.02, write_log=False, rounds=2,
                     turn_timeout_s=1.0))),
                 asyncio.ensure_future(play_table(meshes[1], fronts[1], options=Options(
                     write_log=False, turn_timeout_s=1.0), lines=lines))]
        await _until(lambda: all(f.of(tev.Applied) for f in fronts))
        lines.put_nowait("quit")
        async with asyncio.timeout(30):
            results = await asyncio.gather(*tasks, return_exceptions=True)
    assert isinstance(results[1], Result), results[1]
    assert isinstance(results[0], Result) and results[0].rounds == 2, results[0]
    taken = fronts[0].of(tev.SeatTakenOver)
    assert taken and taken[0].seat == 1
    assert not any(e.paused for e in fronts[0].of(tev.SeatAway))
    assert any("P1 left the table: the computer plays their seat." in t
               for t in _texts(fronts[0]))


async def test_a_network_drop_reconnects_resends_and_every_node_ends_identical(
        tmp_path: Path) -> None:
    """Seat 2's connections are reset mid-round (both processes live on): it dials the
    lower seats again, the runners exchange ``sync`` and resend what the other missed
    (of what it had not acknowledged), and every node ends with the same transcript;
    every log audits ok."""
    fronts = [Recorder() for _ in range(3)]
    rules = Ruleset().with_changes(target=10_000)
    async with dealt_table(3, rules=rules) as (nodes, meshes, _views):
        options = [Options(auto=get_bot("max"), auto_delay_s=0.01, rounds=2,
                           log_dir=tmp_path / str(i)) for i in range(3)]
        tasks = [asyncio.ensure_future(play_table(m, f, options=o))
                 for m, f, o in zip(meshes, fronts, options, strict=True)]
        honest = nodes[2].connect_any

        async def slow(*args: Any, **kwargs: Any) -> Any:  # the others play on meanwhile
            await asyncio.sleep(0.7)
            return await honest(*args, **kwargs)

        nodes[2].connect_any = slow  # type: ignore[method-assign]
        await _until(lambda: all(len(f.of(tev.Applied)) >= 3 for f in fronts))
        _drop(nodes[2])
        await _until(lambda: any(s[2] for s in fronts[0].seen))  # seat 2 is back
        async with asyncio.timeout(60):
            results = await asyncio.gather(*tasks, return_exceptions=True)
    assert all(isinstance(r, Result) and r.rounds == 2 for r in results), results
    assert sum(r.extra.get("resent", 0) for r in results) > 0  # type: ignore[union-attr]
    for r in results:  # every node acknowledged what it got (protocol/table.md, "Acks")
        assert r.extra.get("ack_trimmed", 0) > 0 and "ack_future" not in r.extra, r.extra  # type: ignore[union-attr]
    for front in fronts:
        assert [s[2] for s in front.seen][:1] == [False]
        assert any(s[2] and s[3] == "reconnected" for s in front.seen), front.seen
    logs = [read_log(next((tmp_path / str(i)).glob("*.p2p8slog"))) for i in range(3)]
    marks = [[(m["transcript"], m["totals"]) for m in log.marks] for log in logs]
    assert marks[0] == marks[1] == marks[2] and len(marks[0]) == 2
    for log in logs:
        assert verify(log.frames).ok


async def test_with_two_people_a_lost_peer_pauses_the_game_until_it_is_back(
        tmp_path: Path) -> None:
    fronts = [Recorder(), Recorder()]
    from p2p8s.net.errors import NetCode
    from p2p8s.net.node import Unreachable

    async with dealt_table(2) as (nodes, meshes, _views):
        blocked = asyncio.Event()
        honest = nodes[1].connect_any

        async def cut_off(*args: Any, **kwargs: Any) -> Any:  # the network is down ...
            if not blocked.is_set():
                raise Unreachable(NetCode.NONE_REACHED, failures=())
            return await honest(*args, **kwargs)

        nodes[1].connect_any = cut_off  # type: ignore[method-assign]
        tasks = [asyncio.ensure_future(play_table(m, f, options=Options(
            auto=get_bot("max"), auto_delay_s=0.01, rounds=1, log_dir=tmp_path / str(i))))
            for i, (m, f) in enumerate(zip(meshes, fronts, strict=True))]
        await _until(lambda: all(len(f.of(tev.Applied)) >= 2 for f in fronts))
        _drop(nodes[1])
        await _until(lambda: "Waiting for P1 to come back — Ctrl-C / quit to leave"
                     in _texts(fronts[0]))
        paused = len(fronts[0].of(tev.Applied))
        await asyncio.sleep(0.3)
        assert len(fronts[0].of(tev.Applied)) == paused  # nothing moves meanwhile
        blocked.set()  # ... and up again
        async with asyncio.timeout(40):
            results = await asyncio.gather(*tasks, return_exceptions=True)
    assert all(isinstance(r, Result) and r.rounds == 1 for r in results), results
    assert fronts[0].of(tev.SeatBack)[-1].seat == 1
    logs = [read_log(next((tmp_path / str(i)).glob("*.p2p8slog"))) for i in range(2)]
    assert logs[0].marks[0]["transcript"] == logs[1].marks[0]["transcript"]
    assert all(verify(log.frames).ok for log in logs)
