"""Lines fitted to a terminal (p2p8s.cli.lines): the wrapping examples, and piped output
left as it is."""

from __future__ import annotations

import doctest
import io

from p2p8s.cli import lines


def test_doctests() -> None:
    result = doctest.testmod(lines)
    assert result.failed == 0 and result.attempted > 0


def test_a_pipe_has_no_width() -> None:
    assert lines.stream_width(io.StringIO()) is None
    assert lines.fit("a b c " * 30, lines.stream_width(io.StringIO())) == "a b c " * 30
