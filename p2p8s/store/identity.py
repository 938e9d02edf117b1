"""This user's long-lived identity key (Ed25519, RFC 8032).

One key per user, kept in ``<user data dir>/identity.pem`` (platformdirs; on Linux
``$XDG_DATA_HOME/p2p8s/identity.pem``) as unencrypted PKCS#8 PEM, mode 0600, written
atomically by :func:`p2p8s.store.paths.atomic_write`. Peers know a player by this key;
the lobby shows its fingerprint (:func:`p2p8s.codes.fingerprint`) so people can compare.
"""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    load_pem_private_key,
)

from p2p8s.codes import fingerprint
from p2p8s.errors import LocalError
from p2p8s.store.paths import StoreCode, atomic_write, data_dir, os_failure
from p2p8s.wire import public_key_bytes

FILE_NAME = "identity.pem"


def identity_path() -> Path:
    """Where the identity key lives (not created)."""
    return data_dir() / FILE_NAME


def load_or_create_identity(path: Path | None = None) -> Ed25519PrivateKey:
    """The identity key at ``path`` (default :func:`identity_path`), created on first use.

    A new key is written with mode 0600. Raises :class:`~p2p8s.errors.LocalError` if the
    file exists but holds no Ed25519 key, or cannot be written.
    """
    path = path or identity_path()
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        pem = Ed25519PrivateKey.generate().private_bytes(Encoding.PEM, PrivateFormat.PKCS8,
                                                         NoEncryption())
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            atomic_write(path, pem.decode("ascii"))
            os.chmod(path, 0o600)
        except OSError as exc:
            raise LocalError(StoreCode.IDENTITY_UNWRITABLE, path=path,
                             problem=os_failure(exc)) from None
        return load_or_create_identity(path)  # what is on disk wins a creation race
    except OSError as exc:
        raise LocalError(StoreCode.IDENTITY_UNREADABLE, path=path,
                         problem=os_failure(exc)) from None
    try:
        loaded: object = load_pem_private_key(data, password=None)
    except (ValueError, TypeError):
        loaded = None
    if not isinstance(loaded, Ed25519PrivateKey):
        raise LocalError(StoreCode.NOT_AN_IDENTITY, path=path)
    return loaded


def identity_fingerprint(key: Ed25519PrivateKey) -> str:
    """The fingerprint text of ``key``'s public half, e.g. ``XAD1-Y64K-SWDR-4CW1``."""
    return fingerprint(public_key_bytes(key))
