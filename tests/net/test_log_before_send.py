"""Every frame this node sends is in its table log (handed to the OS) before it goes to
any socket (protocol/table.md "Coming back"): a node killed between the two has logged
what it may have sent, never sent what it has not logged. A kill between the two cannot
be timed in a test, so the order is checked: a log writer that records when it is
called relative to the sends."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from p2p8s.net.catchup import key_secret
from p2p8s.net.lobby import Mesh
from p2p8s.net.runner import Result, _Run
from p2p8s.store.tablelog import table_secret
from p2p8s.table import linkout as lo
from p2p8s.wire import Game, message_hash


class _Node:
    """Signs and sends as a Node does (the frame is its bytes: a 4-byte length, the
    body), recording each send."""

    def __init__(self, order: list[tuple[str, bytes]]) -> None:
        self.order = order
        self.send = None  # (the runner's Send records: none here)

    def frame(self, body: Game, *, prev: bytes = b"") -> bytes:
        return b"\0\0\0\0" + body.payload

    def send_frame(self, conn: object, frame: bytes) -> None:
        self.order.append((f"sent to {conn}", frame[4:]))


class _Log:
    def __init__(self, order: list[tuple[str, bytes]]) -> None:
        self.order = order

    def append(self, frame: bytes) -> bool:
        self.order.append(("logged", frame))
        return True


def test_each_posted_frame_is_logged_before_it_is_sent() -> None:
    order: list[tuple[str, bytes]] = []
    mesh = Mesh(node=_Node(order), roster=None, seat=0,  # type: ignore[arg-type]
                peers={1: "B", 2: "C"}, digest=b"")  # type: ignore[dict-item]
    run = object.__new__(_Run)
    run.mesh, run.log = mesh, _Log(order)  # type: ignore[assignment]
    run.frames, run.prev, run.result = [], b"", Result()
    run.link = SimpleNamespace(failure=None)  # type: ignore[assignment]
    mesh.log = run._logged  # as the run wires it
    run.execute([lo.Post(to=None, payload=b"\x01one"), lo.Post(to=2, payload=b"\x01two")])
    assert order == [("logged", b"\x01one"), ("sent to B", b"\x01one"),
                     ("sent to C", b"\x01one"), ("logged", b"\x01two"),
                     ("sent to C", b"\x01two")]
    assert run.frames == [b"\x01one", b"\x01two"] and run.result.sent == 2
    assert run.prev == message_hash(b"\x01two")  # the chain goes on from the last frame


def test_a_new_match_never_takes_a_secret_left_over_from_an_earlier_one(
        tmp_path: Path) -> None:
    """A restarted node recomputes its nonces from its table secret, so a secret file
    left by an earlier match at the same code (its process died, the file stayed) must
    not serve the next one: with the same secret and a host replaying every byte, the
    round id — and so every round key — would repeat (issue #13)."""
    mesh = SimpleNamespace(node=SimpleNamespace(table=b"\x05" * 8), seat=1)
    left = table_secret(b"\x05" * 8, 1, tmp_path)  # the earlier match's
    fresh = key_secret(mesh, write_log=True, log_dir=tmp_path, fresh=True)  # type: ignore[arg-type]
    assert fresh is not None and fresh != left
    # a restart (or a rebuild) of this match keeps it: its keys derive from it
    assert key_secret(mesh, write_log=True, log_dir=tmp_path) == fresh  # type: ignore[arg-type]
    assert key_secret(mesh, write_log=False, log_dir=tmp_path) is None  # type: ignore[arg-type]
