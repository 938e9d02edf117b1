"""Errors said as a person reads them: through the words catalogue (p2p8s.cli.words)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator

import pytest

from p2p8s.cli.words import PLAIN
from p2p8s.errors import Error


@contextlib.contextmanager
def raises_saying(kind: type[Error], pattern: str) -> Iterator[pytest.ExceptionInfo[Error]]:
    """``pytest.raises(kind, match=pattern)``, with ``pattern`` searched in the words the
    error is said in (``str(error)`` is a developer form)."""
    with pytest.raises(kind) as info:
        yield info
    said = PLAIN.error(info.value)
    assert re.search(pattern, said), f"{pattern!r} not in {said!r}"
