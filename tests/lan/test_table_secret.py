"""The per-table secret file (round keys of a restarted node): created once, 0600,
returned as-is afterwards; a damaged file is refused with a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest
from net.said import raises_saying

from p2p8s.store.tablelog import CorruptSecret, forget_secret, secret_path, table_secret


def test_the_secret_is_created_once_private_and_kept(tmp_path: Path) -> None:
    first = table_secret(b"\x01" * 16, 2, tmp_path / "tables")
    path = secret_path(b"\x01" * 16, 2, directory=tmp_path / "tables")
    assert len(first) == 32 and path.read_bytes() == first
    assert path.stat().st_mode & 0o777 == 0o600
    assert table_secret(b"\x01" * 16, 2, tmp_path / "tables") == first
    assert table_secret(b"\x01" * 16, 1, tmp_path / "tables") != first  # per seat
    assert table_secret(b"\x02" * 16, 2, tmp_path / "tables") != first  # per table
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("data", [b"", b"short", bytes(33)])
def test_a_damaged_secret_is_refused(tmp_path: Path, data: bytes) -> None:
    path = secret_path(b"\x03" * 16, 0, directory=tmp_path)
    path.write_bytes(data)
    with raises_saying(CorruptSecret, "is not a table secret"):
        table_secret(b"\x03" * 16, 0, tmp_path)
    assert path.read_bytes() == data  # left for the person to look at


def test_a_finished_match_forgets_its_secret_and_the_next_gets_a_fresh_one(
        tmp_path: Path) -> None:
    first = table_secret(b"\x04" * 16, 1, tmp_path)
    assert forget_secret(b"\x04" * 16, 1, tmp_path)
    assert not secret_path(b"\x04" * 16, 1, directory=tmp_path).exists()
    assert not forget_secret(b"\x04" * 16, 1, tmp_path)  # nothing left to delete
    assert table_secret(b"\x04" * 16, 1, tmp_path) != first  # same code, new match
