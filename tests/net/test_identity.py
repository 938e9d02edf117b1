"""The identity key store: created once, 0600, reloaded, bad files refused."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from p2p8s.errors import LocalError
from p2p8s.store.identity import identity_fingerprint, identity_path, load_or_create_identity
from p2p8s.wire import public_key_bytes

from .said import raises_saying


def test_created_once_with_mode_0600_and_reloaded(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "identity.pem"
    key = load_or_create_identity(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = load_or_create_identity(path)
    assert public_key_bytes(again) == public_key_bytes(key)
    assert identity_fingerprint(again) == identity_fingerprint(key)
    assert [p.name for p in path.parent.iterdir()] == ["identity.pem"]  # no temp left


def test_default_path_is_in_the_user_data_dir(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert identity_path() == tmp_path / "p2p8s" / "identity.pem"
    load_or_create_identity()
    assert identity_path().exists()


def test_a_file_without_a_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "identity.pem"
    path.write_text("not a key")
    with raises_saying(LocalError, "does not hold an Ed25519 identity key"):
        load_or_create_identity(path)
