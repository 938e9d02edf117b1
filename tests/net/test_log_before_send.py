"""Every frame this node sends is in its table log (handed to the OS) before it goes to
any socket (protocol/table.md "Coming back"): a node killed between the two has logged
what it may have sent, never sent what it has not logged. A kill between the two cannot
be timed in a test, so the order is checked: a log writer that records when it is
called relative to the sends."""

from __future__ import annotations

from types import SimpleNamespace

from p2p8s.net.runner import Result, _Run
from p2p8s.table import linkout as lo


class _Calls:
    def __init__(self) -> None:
        self.order: list[tuple[str, bytes]] = []


class _Mesh:
    """Signs and sends as a Mesh does, recording each step."""

    def __init__(self, calls: _Calls) -> None:
        self.calls = calls
        self.seq = 0
        self.node = SimpleNamespace(send=None)

    def frame(self, to: int | None, payload: bytes, *, prev: bytes = b"") -> tuple[bytes, bytes]:
        self.seq += 1
        return bytes([self.seq]) * 32, b"\0\0\0\0" + payload

    def send_out(self, to: int | None, frame: bytes) -> None:
        self.calls.order.append(("sent", frame[4:]))


class _Log:
    def __init__(self, calls: _Calls) -> None:
        self.calls = calls

    def append(self, frame: bytes) -> bool:
        self.calls.order.append(("logged", frame))
        return True


def test_each_posted_frame_is_logged_before_it_is_sent() -> None:
    calls = _Calls()
    run = object.__new__(_Run)
    run.mesh = _Mesh(calls)  # type: ignore[assignment]
    run.log = _Log(calls)  # type: ignore[assignment]
    run.frames, run.prev, run.result = [], b"", Result()
    run.link = SimpleNamespace(failure=None)  # type: ignore[assignment]
    run.execute([lo.Post(to=None, payload=b"\x01one"), lo.Post(to=2, payload=b"\x01two")])
    assert calls.order == [("logged", b"\x01one"), ("sent", b"\x01one"),
                           ("logged", b"\x01two"), ("sent", b"\x01two")]
    assert run.frames == [b"\x01one", b"\x01two"] and run.result.sent == 2
    assert run.prev == bytes([2]) * 32  # the chain goes on from the last frame
