"""A restarted node reads its own log of the match (``catchup.own_frames``): the frames
of the newest file of this table and seat whose header names this match, a torn last
record left out (a crash mid-write: never sent); none, with a note saying why, when
there is no such file or it does not read."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from p2p8s.cli.words import PLAIN
from p2p8s.net.catchup import own_frames
from p2p8s.store.tablelog import TableLogWriter, log_path

TABLE = b"\x07" * 8
DIGEST = b"\x01" * 32


def _mesh(digest: bytes = DIGEST) -> SimpleNamespace:
    return SimpleNamespace(node=SimpleNamespace(table=TABLE), seat=1, digest=digest)


def _log(directory: Path, digest: bytes, frames: list[bytes]) -> Path:
    path = log_path(TABLE, 1, directory=directory)
    with TableLogWriter.create(path, {"format": 1, "table": TABLE.hex(), "me": 1,
                                      "seed": digest.hex()}) as log:
        for frame in frames:
            log.append(frame)
    return path


def test_its_own_log_of_this_match_is_read_and_a_torn_tail_left_out(tmp_path: Path) -> None:
    _log(tmp_path, b"\x02" * 32, [b"an earlier match"])
    path = _log(tmp_path, DIGEST, [b"frame one", b"frame two"])
    assert own_frames(_mesh(), tmp_path) == ([b"frame one", b"frame two"], None)  # type: ignore[arg-type]
    with path.open("ab") as f:
        f.write(b"\x00\x00\x01\x00torn")  # a crash in the middle of the next record
    assert own_frames(_mesh(), tmp_path) == ([b"frame one", b"frame two"], None)  # type: ignore[arg-type]


def test_without_its_own_log_a_note_says_why(tmp_path: Path) -> None:
    frames, why = own_frames(_mesh(), tmp_path)  # type: ignore[arg-type]
    assert frames is None and why is not None
    assert PLAIN.note(why).startswith("No log of your own of this match is here")
    bad = log_path(TABLE, 1, directory=tmp_path)
    bad.write_bytes(b"not a table log")
    frames, why = own_frames(_mesh(), tmp_path)  # type: ignore[arg-type]
    assert frames is None and why is not None
    assert PLAIN.note(why).startswith("Your own log of this match does not read (")
