"""The table log file: records, a torn tail after a crash, refusals, file names."""

from __future__ import annotations

from pathlib import Path

import pytest
from net.said import raises_saying

from p2p8s.store.tablelog import (
    MAGIC,
    SUFFIX,
    CorruptLog,
    TableLogWriter,
    find_logs,
    going_on,
    log_path,
    parse_log,
    read_log,
)


def _write(path: Path, frames: list[bytes]) -> None:
    with TableLogWriter.create(path, {"table": "ab", "me": 1}) as log:
        for f in frames:
            log.append(f)
        log.mark({"round_over": 1})


def test_records_come_back_in_order(tmp_path: Path) -> None:
    path = tmp_path / "t" / f"x{SUFFIX}"
    _write(path, [b"one", b"", b"three" * 1000])
    log = read_log(path)
    assert log.header == {"table": "ab", "me": 1}
    assert log.frames == (b"one", b"", b"three" * 1000)
    assert log.marks == ({"round_over": 1},) and not log.torn
    with pytest.raises(FileExistsError):  # a log is never reused or overwritten
        TableLogWriter.create(path, {})


def test_a_torn_last_record_is_left_out_and_reported(tmp_path: Path) -> None:
    path = tmp_path / f"x{SUFFIX}"
    _write(path, [b"one", b"two"])
    data = path.read_bytes()
    cut = data[:-3]  # a crash in the middle of the last record
    log = parse_log(cut)
    assert log.torn and log.frames == (b"one", b"two") and log.marks == ()
    mark = len(b'{"round_over": 1}') + 5
    assert not parse_log(data[:-mark]).torn  # cut between records: nothing lost
    assert parse_log(data[:-mark + 2]).torn  # cut inside a length prefix


@pytest.mark.parametrize(("data", "message"), [
    (b"", "is not a p2p8s table log"),
    (b"GIF89a....", "is not a p2p8s table log"),
    (MAGIC, "has no header record"),
    (MAGIC + b"\x00\x00\x00\x00", "impossible length 0"),
    (MAGIC + b"\x00\x00\x00\x03\x01{]", "header record is not valid JSON"),
    (MAGIC + b"\x00\x00\x00\x03\x01[]", "not a JSON object"),
    (MAGIC + b"\x00\x00\x00\x02\x02x", "unexpected record of kind 2"),
])
def test_unreadable_files_are_refused(data: bytes, message: str) -> None:
    with raises_saying(CorruptLog, message):
        parse_log(data, name="f")


def test_a_missing_file_is_unreadable(tmp_path: Path) -> None:
    with raises_saying(CorruptLog, "cannot read"):
        read_log(tmp_path / "nope")


def test_file_names_carry_the_date_table_and_seat(tmp_path: Path) -> None:
    first = log_path(bytes.fromhex("0011223344556677"), 3, when=0, directory=tmp_path)
    assert first.name == f"1970-01-01-0011223344556677-seat3{SUFFIX}"
    first.write_bytes(b"")
    second = log_path(bytes.fromhex("0011223344556677"), 3, when=0, directory=tmp_path)
    assert second.name == f"1970-01-01-0011223344556677-seat3-2{SUFFIX}"


def test_a_frame_is_written_once(tmp_path: Path) -> None:
    path = tmp_path / f"x{SUFFIX}"
    with TableLogWriter.create(path, {"table": "ab"}) as log:
        assert log.append(b"one") and log.append(b"two")
        assert not log.append(b"one")  # a resent or relayed copy
        assert log.frames == 2
    assert read_log(path).frames == (b"one", b"two")


def test_a_rejoined_node_continues_its_file_after_cutting_a_torn_tail(tmp_path: Path) -> None:
    header = {"table": "ab", "seed": "cd", "me": 1, "started": "then"}
    with TableLogWriter.create(tmp_path / f"y{SUFFIX}", header) as log:
        log.append(b"one")
        log.append(b"two")
    path = tmp_path / f"y{SUFFIX}"
    path.write_bytes(path.read_bytes() + b"\x00\x00\x00\x09\x02tor")  # killed mid-write
    assert read_log(path).torn
    with TableLogWriter.resume(path, {**header, "started": "now"}) as log:
        assert log.frames == 2
        log.mark({"rejoined": True})
        added = [log.append(f) for f in (b"two", b"three", b"one", b"four")]
    assert added == [False, True, False, True]
    back = read_log(path)
    assert back.frames == (b"one", b"two", b"three", b"four") and not back.torn
    assert back.header == header and back.marks == ({"rejoined": True},)


def test_the_log_of_another_match_is_not_continued(tmp_path: Path) -> None:
    path = tmp_path / f"x{SUFFIX}"
    _write(path, [b"one"])
    with raises_saying(CorruptLog, "the log of another table, seat or match"):
        TableLogWriter.resume(path, {"table": "ab", "me": 1, "seed": "other"})
    assert read_log(path).frames == (b"one",)


def test_the_logs_of_a_table_and_seat_are_found_whatever_their_date(tmp_path: Path) -> None:
    table = bytes.fromhex("0011223344556677")
    first = log_path(table, 3, when=0, directory=tmp_path)
    first.write_bytes(b"")
    later = log_path(table, 3, when=86400 * 400, directory=tmp_path)
    later.write_bytes(b"")
    log_path(table, 2, when=0, directory=tmp_path).write_bytes(b"")
    assert set(find_logs(table, 3, directory=tmp_path)) == {first, later}
    assert find_logs(table, 4, directory=tmp_path) == []


def test_salvage_returns_what_comes_before_damage_and_says_where(tmp_path: Path) -> None:
    path = tmp_path / f"x{SUFFIX}"
    _write(path, [b"one", b"two"])
    data = path.read_bytes()
    log = parse_log(data + b"\x00\x00\x00\x02\x09x" + b"more", salvage=True)
    assert log.frames == (b"one", b"two") and log.end == len(data)
    assert log.damage is not None and log.damage.params["at"] == len(data)
    assert log.offsets[1] - log.offsets[0] == len(b"one") + 5
    with raises_saying(CorruptLog, f"unexpected record of kind 9 at byte {len(data)}"):
        parse_log(data + b"\x00\x00\x00\x02\x09x")
    with raises_saying(CorruptLog, "is not a p2p8s table log"):  # nothing to salvage
        parse_log(b"junk", salvage=True)


def test_a_rebuilt_mark_keeps_the_void_frames_out_of_the_table(tmp_path: Path) -> None:
    """A node rebuilt from a peer's log continues its file: the frames of its void table
    stay in it, named by a ``rebuilt`` mark, but are not the table's frames; the same
    bytes coming again after the mark count as the table's (written once more)."""
    path = tmp_path / f"x{SUFFIX}"
    header = {"table": "ab", "seed": "00", "me": 1}
    with TableLogWriter.create(path, header) as log:
        for f in (b"a", b"mine", b"b", b"theirs"):
            log.append(f)
    with TableLogWriter.resume(path, header) as log:
        log.void([b"mine", b"theirs", b"never held"], {"rejoined": True})
        assert log.frames == 2
        for f in (b"a", b"b", b"c", b"theirs"):  # the log it was rebuilt from
            log.append(f)
    got = read_log(path)
    assert got.frames == (b"a", b"b", b"c", b"theirs") and got.void == (b"mine", b"theirs")
    assert len(got.offsets) == len(got.frames)
    assert parse_log(path.read_bytes()[:got.offsets[2]]).frames == (b"a", b"b")
    [mark] = got.marks
    assert mark["rebuilt"] is True and mark["rejoined"] is True and len(mark["void"]) == 2
    with TableLogWriter.resume(path, header) as log:  # resumed again: nothing twice
        assert log.frames == 4 and not log.append(b"theirs") and not log.append(b"c")


def test_a_rebuilt_mark_with_junk_ids_voids_only_what_it_names(tmp_path: Path) -> None:
    path = tmp_path / f"x{SUFFIX}"
    with TableLogWriter.create(path, {"table": "ab"}) as log:
        log.append(b"a")
        log.mark({"rebuilt": True, "void": ["zz", 7, "00" * 32]})
        log.mark({"rebuilt": "yes", "void": [b"a".hex()]})  # not a rebuilt mark
        log.void([], {"rejoined": True})  # nothing void: the note alone
    got = read_log(path)
    assert got.frames == (b"a",) and got.void == ()
    assert got.marks[-1] == {"rejoined": True}


def test_a_log_going_on_with_a_table_taken_in_another_order_takes_that_order(
        tmp_path: Path) -> None:
    """A rebuilt node's table took the frames in the order of the log it was rebuilt
    from; its own file held some of them in another order (the soak: Dan's share
    revealed before Bob's message 18 in Dan's file, after it in Ann's log — the audit of
    Dan's file then held message 18 for a recovery and said the log lacks it). The file
    goes on in the table's order: the frames out of it are named ``moved`` and written
    again, so the audit replays what the live node did."""
    path = tmp_path / f"x{SUFFIX}"
    header = {"table": "ab", "seed": "00", "me": 1}
    held = [b"a", b"share", b"mine", b"m18"]
    with TableLogWriter.create(path, header) as log:
        for f in held:
            log.append(f)
    frames = [b"a", b"m18", b"share", b"b"]  # the log the table was rebuilt from
    void, moved = going_on(held, frames)
    assert void == [b"mine"] and moved == [b"share", b"m18"]
    with TableLogWriter.resume(path, header) as log:
        log.void(void, {"rejoined": True}, moved=moved)
        assert log.frames == 1
        assert [log.append(f) for f in frames] == [False, True, True, True]
        log.append(b"c")  # played on
    got = read_log(path)
    assert got.frames == (b"a", b"m18", b"share", b"b", b"c") and got.void == (b"mine",)
    assert len(got.offsets) == len(got.frames)
    [mark] = got.marks
    assert len(mark["moved"]) == 2 and len(mark["void"]) == 1
    with TableLogWriter.resume(path, header) as log:  # resumed again: nothing twice
        assert log.frames == 5 and not log.append(b"share")
    # in the table's order already (the usual case): nothing moves
    assert going_on([b"a", b"x", b"b"], [b"a", b"b", b"c"]) == ([b"x"], [])
    assert going_on([], [b"a"]) == ([], [])
