"""``p2p8s audit`` never crashes on a log a node can write, or on a damaged one (#11).

Real logs are made once with the table harness (signed wire frames, as a runner logs
them) and then cut at every frame boundary and at random bytes, reordered, thinned,
doubled, extended with junk, emptied. Every case ends without a traceback and with the
exit status of its kind: 0 for what audits ok, 1 only for a round that fails its audit
(the seat named), 2 for a file that is unreadable or damaged (where, in one line).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p8s import wire
from p2p8s.cli.main import cli
from p2p8s.store.tablelog import FRAME, HEADER, MAGIC, TableLogWriter
from p2p8s.table import events as tev
from p2p8s.table.actions import CRYPTO, LEAVE, OWNKEY
from p2p8s.table.harness import TableNet, make_config, make_keys
from p2p8s.table.logverify import verify

FUZZ = settings(max_examples=30, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])


@dataclass(frozen=True, slots=True)
class Fixture:
    """A node's log: its header and frames (bodies, as a runner logs them) and the
    number of rounds it audits as complete."""

    header: dict[str, object]
    frames: tuple[bytes, ...]
    complete: int

    def __repr__(self) -> str:
        return f"Fixture({len(self.frames)} frames, {self.complete} complete rounds)"


def _header(net: TableNet, seat: int) -> dict[str, object]:
    return {"format": 1, "table": net.config.table.hex(), "seed": "00", "me": seat}


def _bodies(frames: list[bytes]) -> tuple[bytes, ...]:
    return tuple(f[wire.PREFIX_LENGTH:] for f in frames)


def _complete(frames: tuple[bytes, ...]) -> int:
    report = verify(frames)
    assert report.ok, report
    return sum(r.complete for r in report.rounds)


def _played(players: int, target: int, seed: bytes, seat: int) -> Fixture:
    """``seat``'s log of a whole match played on the harness."""
    keys = make_keys(players)
    net = TableNet(make_config(players, keys=keys, target=target), seed=seed, keys=keys)
    net.start()
    net.run()
    frames = _bodies(net.frames[seat])
    return Fixture(_header(net, seat), frames, _complete(frames))


@pytest.fixture(scope="module")
def match() -> Fixture:
    """Seat 0's log of a whole two-round match of three."""
    return _played(3, 60, b"log5", 0)


@pytest.fixture(scope="module")
def short() -> Fixture:
    """Seat 1's log of a one-round match of two (small: cut at every frame)."""
    return _played(2, 1, b"fx", 1)


@pytest.fixture(scope="module")
def takeover() -> Fixture:
    """Seat 0's log of a one-round match of three with two takeovers: Cem's node is
    lost (its key rebuilt from the escrow shares, its messages cut), then Bea leaves
    (``ownkey`` and ``leave``: Ann plays both seats to the end)."""
    keys = make_keys(3)
    net = TableNet(make_config(3, keys=keys, target=1), seed=b"tk", keys=keys)
    net.start()
    for _ in range(60):
        net.step()
    net.crash(2)
    for _ in range(40):
        net.step()
    net.leave(1)
    net.run()
    assert net.faults() == {}
    assert [e.seat for e in net.of(0, tev.SeatTakenOver)] == [2, 1]
    frames = _bodies(net.frames[0])
    return Fixture(_header(net, 0), frames, _complete(frames))


def _write(path: Path, header: dict[str, object], frames: list[bytes] | tuple[bytes, ...],
           tail: bytes = b"") -> Path:
    """The file as a node writes it, copies of frames kept (the writer skips them)."""
    def record(kind: int, data: bytes) -> bytes:
        return (len(data) + 1).to_bytes(4, "big") + bytes([kind]) + data

    path.write_bytes(MAGIC + record(HEADER, json.dumps(header).encode())
                     + b"".join(record(FRAME, f) for f in frames) + tail)
    return path


@dataclass(frozen=True, slots=True)
class Audit:
    code: int
    out: str
    err: str


def _audit(path: Path) -> Audit:
    result = CliRunner().invoke(cli, ["audit", str(path)])
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        result.output)
    assert "Traceback" not in result.output
    assert result.exit_code in (0, 1, 2), result.output
    if result.exit_code == 2:  # one clear line saying what and where
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith(("p2p8s: ", "damaged log")), lines
    if result.exit_code == 1:
        assert "FAILED — " in result.output and "(seat " in result.output, result.output
    return Audit(result.exit_code, result.stdout, result.stderr)


def _oks(out: str) -> int:
    return out.count(": audit ok; points")


# ------------------------------------------------------------------ the known cases


def test_an_honest_log_audits_ok(tmp_path: Path, match: Fixture) -> None:
    got = _audit(_write(tmp_path / "x.p2p8slog", match.header, match.frames))
    assert got.code == 0 and "verdict: ok" in got.out
    assert _oks(got.out) == match.complete == 2
    assert f"{len(match.frames)} signed frames" in got.out


def test_a_truncated_last_frame_is_reported_and_the_complete_rounds_audit(
        tmp_path: Path, match: Fixture) -> None:
    path = _write(tmp_path / "x.p2p8slog", match.header, match.frames)
    size = path.stat().st_size
    path.write_bytes(path.read_bytes()[:-10])  # killed while writing the last frame
    got = _audit(path)
    last = size - (len(match.frames[-1]) + 5)
    assert got.code == 0, got
    assert f"the last record, at byte {last}, was cut short" in got.out
    assert f"{len(match.frames) - 1} signed frames" in got.out
    # the last frame (a key reveal) was the one that ended round 2
    assert _oks(got.out) == 1 and "round 2: incomplete" in got.out
    assert "verdict: ok" in got.out


def test_junk_after_the_log_is_named_and_what_comes_before_is_audited(
        tmp_path: Path, match: Fixture) -> None:
    path = _write(tmp_path / "x.p2p8slog", match.header, match.frames)
    end = path.stat().st_size
    path.write_bytes(path.read_bytes() + b"\xff\xff\xff\xffgarbage")
    got = _audit(path)
    assert got.code == 2 and _oks(got.out) == 2
    assert got.err.strip() == (
        f"damaged log at byte {end}: {path}: record at byte {end} has an impossible length "
        f"4294967295; only the {len(match.frames)} frames before it are audited")


def test_duplicated_frames_are_counted_once(tmp_path: Path, match: Fixture) -> None:
    frames = list(match.frames)
    doubled = frames[:100] + frames[50:100] + frames[100:] + frames[-3:]
    got = _audit(_write(tmp_path / "x.p2p8slog", match.header, doubled))
    assert got.code == 0 and _oks(got.out) == 2
    assert f"{len(frames)} signed frames (and 53 duplicates, counted once)" in got.out
    assert f"  {len(frames)} frames" in got.out


def test_a_frame_that_does_not_verify_is_damage_not_a_verdict(
        tmp_path: Path, match: Fixture) -> None:
    frames = list(match.frames)
    i = len(frames) - 40
    seat = wire.decode_body(frames[i]).message.seat
    frames[i] = frames[i][:60] + bytes([frames[i][60] ^ 1]) + frames[i][61:]
    path = _write(tmp_path / "x.p2p8slog", match.header, frames)
    got = _audit(path)
    assert got.code == 2, got
    offset = len(MAGIC) + 5 + len(json.dumps(match.header)) + sum(
        len(f) + 5 for f in frames[:i])
    assert got.err.startswith(f"damaged log at byte {offset}: frame {i} does not verify")
    names = ["Ann", "Bea", "Cem"]
    assert f"it claims to be from {names[seat or 0]} (seat {seat})" in got.out
    assert _oks(got.out) == 1  # round 1 was complete before it


def test_a_missing_frame_is_named_and_nobody_is_blamed(tmp_path: Path, match: Fixture) -> None:
    """A gap in a sender's messages is no cheat: the log cannot be audited past it."""
    frames = list(match.frames)
    del frames[200]  # Cem's message 37 of round 2
    got = _audit(_write(tmp_path / "x.p2p8slog", match.header, frames))
    assert got.code == 2 and _oks(got.out) == 1 and "FAILED" not in got.out
    assert got.err.strip() == ("damaged log: the log lacks message 37 of Cem in round 2: it "
                               "cannot be audited past that point")
    assert "verdict: damaged log (no seat at fault in what could be read)" in got.out


def test_frames_moved_across_a_round_end_audit_ok(tmp_path: Path, match: Fixture) -> None:
    """Frames out of a node's order (here a round-1 reveal and a round-2 play swapped) are
    put back in an order a node could have received them."""
    frames = list(match.frames)
    frames[85], frames[109] = frames[109], frames[85]
    got = _audit(_write(tmp_path / "x.p2p8slog", match.header, frames))
    assert got.code == 0 and _oks(got.out) == 2 and "verdict: ok" in got.out


@pytest.mark.parametrize(("data", "says"), [
    (b"", "is not a p2p8s table log"),
    (b"GIF89a" + bytes(200), "is not a p2p8s table log"),
    (MAGIC, "has no header record"),
    (MAGIC[:-3], "is not a p2p8s table log"),
])
def test_files_that_are_no_log_exit_2(tmp_path: Path, data: bytes, says: str) -> None:
    path = tmp_path / "x.p2p8slog"
    path.write_bytes(data)
    got = _audit(path)
    assert got.code == 2 and says in got.err and got.out == ""


def test_a_header_only_log_has_nothing_to_audit(tmp_path: Path, match: Fixture) -> None:
    got = _audit(_write(tmp_path / "x.p2p8slog", match.header, []))
    assert got.code == 2 and "the log holds no table setup" in got.err


def test_the_help_is_plain_text() -> None:
    out = CliRunner().invoke(cli, ["audit", "--help"]).output
    assert "``" not in out and ":mod:" not in out
    assert "Exit status: 0" in out


# ------------------------------------------------------------------ logs nodes write


def test_the_last_of_players_who_quit_in_turn_audits_as_an_ended_round(
        tmp_path: Path) -> None:
    """Everyone leaves in turn: on the last leaver's log every seat's key is recovered
    (the mental-poker session has no proxy left): the round ends there, unfinished."""
    keys = make_keys(3)
    net = TableNet(make_config(3, keys=keys, target=100), seed=b"quitall", keys=keys)
    net.start()
    for leaver in (1, 2, 0):
        for _ in range(20):
            net.step()
        net.leave(leaver)
        net.deliver_all()
    for seat in net.humans:
        got = _audit(_write(tmp_path / f"{seat}.p2p8slog", _header(net, seat),
                            _bodies(net.frames[seat])))
        assert got.code == 0, got
        assert "round 1: incomplete (the log stops inside it)" in got.out


def test_a_rejoined_node_continues_its_file_and_old_copies_still_audit(
        tmp_path: Path) -> None:
    from p2p8s.crypto.rand import seeded
    from p2p8s.table import Table
    from p2p8s.table.actions import RESYNC, encode_records
    from p2p8s.table.logverify import records_from_frames

    keys = make_keys(3)
    net = TableNet(make_config(3, target=60, keys=keys), seed=b"frames", keys=keys)
    net.start()
    for _ in range(150):
        net.step()
    before = _bodies(net.frames[2])
    net.crash(2)
    for _ in range(60):
        net.step()
    answer = _bodies(net.frames[0])  # the log it is rebuilt from
    node = Table.restore(net.config, me=2, rand=seeded(b"again"),
                         records=records_from_frames(net.config, answer, me=2))
    other = _bodies(net.frames[1])  # a further answer: its frames are logged too
    node.receive(1, bytes([RESYNC]) + encode_records(
        records_from_frames(net.config, other, me=2)), net.now)
    mark = len(net.frames[2])
    net.replace(2, node)
    net.reconnect(2)
    net.run()
    after = _bodies(net.frames[2][mark:])
    header = _header(net, 2)
    path = tmp_path / "seat2.p2p8slog"
    with TableLogWriter.create(path, header) as log:
        for f in before:
            log.append(f)
    with TableLogWriter.resume(path, header) as log:  # what the runner does on rejoin
        log.mark({"rejoined": True})
        added = sum(log.append(f) for f in answer + other + after)
    assert added < len(answer) + len(other) + len(after)
    assert log.frames == len(set(before + answer + other + after))
    got = _audit(path)
    assert got.code == 0 and "verdict: ok" in got.out, got
    assert _oks(got.out) == len(net.nodes[0].match.results)
    old = _audit(_write(tmp_path / "seat2-2.p2p8slog", header, answer + other + after))
    assert old.code == 0 and _oks(old.out) == _oks(got.out)


# ------------------------------------------------------------------ fuzzing


def test_a_log_cut_at_every_frame_boundary_audits_what_is_complete(
        tmp_path: Path, short: Fixture) -> None:
    path = _write(tmp_path / "x.p2p8slog", short.header, short.frames)
    data = path.read_bytes()
    start = len(data) - sum(len(f) + 5 for f in short.frames)
    cuts = [start]
    for f in short.frames:
        cuts.append(cuts[-1] + len(f) + 5)
    for n, cut in enumerate(cuts):
        path.write_bytes(data[:cut])
        got = _audit(path)
        setup = n > 0 and verify(short.frames[:n]).config is not None
        assert got.code == (0 if setup else 2), (n, got)
        assert "cut short" not in got.out
    assert _oks(got.out) == short.complete


@FUZZ
@given(cut=st.integers(min_value=0))
def test_a_log_cut_at_any_byte_never_fails_a_round(
        tmp_path: Path, match: Fixture, cut: int) -> None:
    path = tmp_path / "x.p2p8slog"
    data = _write(path, match.header, match.frames).read_bytes()
    path.write_bytes(data[:cut % (len(data) + 1)])
    got = _audit(path)
    assert got.code in (0, 2)
    assert "FAILED" not in got.out


def _edited(data: st.DataObject, frames: tuple[bytes, ...], edits: int) -> list[bytes]:
    """``frames`` after 1..``edits`` random swaps, moves, drops and copies of frames."""
    out = list(frames)
    n = len(out)
    for _ in range(data.draw(st.integers(1, edits), label="edits")):
        i = data.draw(st.integers(0, n - 1), label="at")
        j = data.draw(st.integers(0, n - 1), label="to")
        edit = data.draw(st.sampled_from(["swap", "move", "drop", "copy"]), label="edit")
        if edit == "swap":
            out[i], out[j] = out[j], out[i]
        elif edit == "move":
            out.insert(j, out.pop(i))
        elif edit == "drop":
            del out[i]
            n -= 1
        else:
            out.insert(j, out[i])
            n += 1
    return out


@FUZZ
@given(data=st.data())
def test_reordered_dropped_and_doubled_frames_never_blame_a_seat(
        tmp_path: Path, match: Fixture, data: st.DataObject) -> None:
    frames = _edited(data, match.frames, 4)
    got = _audit(_write(tmp_path / "x.p2p8slog", match.header, frames))
    assert got.code in (0, 2), got
    assert "FAILED" not in got.out


@FUZZ
@given(junk=st.binary(min_size=1, max_size=300), keep=st.integers(min_value=0))
def test_junk_at_the_end_never_hides_the_complete_rounds(
        tmp_path: Path, match: Fixture, junk: bytes, keep: int) -> None:
    frames = match.frames[:keep % (len(match.frames) + 1)]
    complete = sum(r.complete for r in verify(frames).rounds) if frames else 0
    got = _audit(_write(tmp_path / "x.p2p8slog", match.header, frames, tail=junk))
    assert got.code in (0, 2), got
    if frames and verify(frames).config is not None:
        assert _oks(got.out) == complete


def _kind(frame: bytes) -> tuple[int, int | None]:
    """``(payload kind, signer's seat)`` of a logged frame."""
    msg = wire.decode_body(frame).message
    assert isinstance(msg.body, wire.Game)
    return msg.body.payload[0], msg.seat


def test_a_takeover_log_audits_ok(tmp_path: Path, takeover: Fixture) -> None:
    got = _audit(_write(tmp_path / "x.p2p8slog", takeover.header, takeover.frames))
    assert got.code == 0 and "verdict: ok" in got.out
    assert _oks(got.out) == takeover.complete == 1


@pytest.mark.parametrize("kind", [OWNKEY, LEAVE])
def test_a_handover_moved_before_the_leavers_moves_audits_ok(
        tmp_path: Path, takeover: Fixture, kind: int) -> None:
    """Bea's ``ownkey`` (or ``leave``) put before her moves (her link keeps them
    first): her moves are not moves for a seat taken over (#11: it blamed her)."""
    frames = list(takeover.frames)
    handover = next(i for i, f in enumerate(frames) if _kind(f) == (kind, 1))
    first = next(i for i, f in enumerate(frames) if _kind(f) == (CRYPTO, 1))
    frames.insert(first + 1, frames.pop(handover))
    got = _audit(_write(tmp_path / "x.p2p8slog", takeover.header, frames))
    assert got.code == 0 and "verdict: ok" in got.out, got
    assert _oks(got.out) == 1


def test_a_frame_moved_behind_its_seats_handover_audits_ok(
        tmp_path: Path, takeover: Fixture) -> None:
    """One of Bea's early frames swapped with one after her ``ownkey``: her seat's
    messages before the handover are hers, wherever they sit in the file."""
    frames = list(takeover.frames)
    handed = next(i for i, f in enumerate(frames) if _kind(f)[0] == OWNKEY)
    early = [i for i, f in enumerate(frames) if _kind(f) == (CRYPTO, 1)][3]
    frames[early], frames[handed + 3] = frames[handed + 3], frames[early]
    got = _audit(_write(tmp_path / "x.p2p8slog", takeover.header, frames))
    assert got.code == 0 and "verdict: ok" in got.out, got


@settings(FUZZ, max_examples=20)
@given(data=st.data())
def test_reordered_dropped_and_doubled_frames_of_a_takeover_never_blame_a_seat(
        tmp_path: Path, takeover: Fixture, data: st.DataObject) -> None:
    """Swaps, moves, drops and copies of frames of a log with an escrow recovery and
    a handover: in some order a node could have received them, nobody cheated."""
    frames = _edited(data, takeover.frames, 3)
    got = _audit(_write(tmp_path / "x.p2p8slog", takeover.header, frames))
    assert got.code in (0, 2), got
    assert "FAILED" not in got.out
