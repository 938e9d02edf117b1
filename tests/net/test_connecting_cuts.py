"""Connection-level faults a newcomer met (issue #14), over real sockets on loopback: a
handshake cut before the joiner proved the code is no failed guess (Ctrl-C, a Wi-Fi
drop), while wrong ``auth`` records are; an honest joiner whose address holds many
connections is told the table is busy and gets in, never that its code is wrong; and a
copy of a seated identity does not take a live seat over."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p8s.cli.words import PLAIN
from p2p8s.errors import Note
from p2p8s.net.admission import Limits
from p2p8s.net.channel import SessionCode
from p2p8s.net.handshake import HELLO_LENGTH, Failed, Handshake, Heard, Send, Side
from p2p8s.net.node import ASK_OLD_S, JoinRefused, Node, Unreachable
from p2p8s.wire import PREFIX_LENGTH, Refusal, Role

CODE = "7KQ4MX"
TID = bytes.fromhex("5a1e0c7d2b9f4e01")
#: A rate that never turns these attempts away: only failed guesses slow them.
FAST = Limits(rate=1000.0, burst=1000.0)


def _host(limits: Limits = FAST) -> Node:
    return Node(identity=Ed25519PrivateKey.generate(), name="Ann", code=CODE, table=TID,
                host="127.0.0.1", limits=limits)


async def _attempt(port: int, *, code: str, cut_after_hello: bool) -> list[object]:
    """One dial: the hello, the node's hello back; then either a cut (before this side's
    ``auth`` is sent) or this side's ``auth`` and reading to the end. The events."""
    shake = Handshake(side=Side.DIALLER, code=code, identity=Ed25519PrivateKey.generate(),
                      table=None, peer="ann")
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(shake.start())
    seen: list[object] = []
    try:
        async with asyncio.timeout(3):
            with contextlib.suppress(ConnectionResetError):
                while data := await reader.read(
                        1 if not seen else 65536):  # byte by byte up to the hello
                    events = shake.receive_data(data)
                    seen += events
                    if any(isinstance(e, Failed) for e in events):
                        return seen
                    if any(isinstance(e, Heard) for e in events) and cut_after_hello:
                        return seen
                    writer.write(b"".join(e.data for e in events if isinstance(e, Send)))
            seen += shake.receive_eof()
            return seen
    finally:
        writer.transport.abort()
        await asyncio.sleep(0.02)  # the node counts a guess when its handshake ends


async def test_ten_cuts_after_the_hosts_spake2_message_are_no_failed_guesses() -> None:
    """Ten attempts cut after the node's hello (nothing keyed by the code sent yet): no
    back-off, no notice; then six wrong ``auth`` records: the sixth attempt is slowed."""
    async with _host() as ann:
        ann.seat = 0
        notes: list[Note] = []
        ann.on_notice = notes.append
        for _ in range(10):
            events = await _attempt(ann.port, code=CODE, cut_after_hello=True)
            assert any(isinstance(e, Heard) for e in events)  # the node answered: no slow-down
        assert notes == [] and ann._door.admission._sources["127.0.0.1"].failures == 0
        ends = [await _attempt(ann.port, code="000000", cut_after_hello=False)
                for _ in range(6)]
        assert all(isinstance(e[-1], Failed) and e[-1].error.code is SessionCode.WRONG_CODE
                   for e in ends[:5])  # the node closed without a record keyed by the code
        [busy] = [e for e in ends[5] if isinstance(e, Failed)]
        assert busy.error.code is SessionCode.BUSY  # the sixth: slowed (5 free failures)
        assert [n.params["failures"] for n in notes] == [5]
        assert PLAIN.note(notes[0]).startswith("5 wrong codes from 127.0.0.1 — slowed down")


async def test_an_honest_join_cut_after_its_auth_is_no_failed_guess() -> None:
    """A joiner with the right code whose connection drops once its ``auth`` is out
    (before it reads the node's answer): it proved the code, so nothing is counted."""
    async with _host() as ann:
        ann.seat = 0
        for _ in range(7):
            shake = Handshake(side=Side.DIALLER, code=CODE,
                              identity=Ed25519PrivateKey.generate(), table=None, peer="a")
            reader, writer = await asyncio.open_connection("127.0.0.1", ann.port)
            writer.write(shake.start())
            events = shake.receive_data(await reader.readexactly(PREFIX_LENGTH
                                                                 + HELLO_LENGTH))
            writer.write(b"".join(e.data for e in events if isinstance(e, Send)))
            await writer.drain()
            writer.transport.abort()  # Ctrl-C
            await asyncio.sleep(0.05)
        assert ann._door.admission._sources["127.0.0.1"].failures == 0


@pytest.mark.wall_clock
async def test_a_joiner_behind_a_crowded_address_is_told_busy_then_gets_in() -> None:
    """Twenty idle connections from the joiner's own address (more than its handshake
    slots, its queue and the turn-aways kept at once): the joiner is told the table is
    busy (fixed words, a wait) — never a wrong code — and gets in once they are gone."""
    async with _host(Limits()) as ann, \
            Node(identity=Ed25519PrivateKey.generate(), name="Bob", code=CODE, table=None,
                 host="127.0.0.1") as bob:
        ann.seat = 0
        held = [await asyncio.open_connection("127.0.0.1", ann.port) for _ in range(20)]
        loop = asyncio.get_running_loop()
        start, said = loop.time(), []
        try:
            while True:
                try:
                    conn = await bob.connect("127.0.0.1", ann.port, role=Role.JOIN,
                                             timeout_s=5.0)
                    break
                except Unreachable as exc:
                    said.append(PLAIN.error(exc))
                    assert exc.code is SessionCode.BUSY, said
                    assert loop.time() - start < 20, said
                    await asyncio.sleep(exc.params["retry_s"])
        finally:
            for _, writer in held:
                writer.transport.abort()
        assert conn.key == ann.key
        assert said and not [s for s in said if "did not prove" in s or "code" in s], said
        print(f"\ncrowded address: told busy {len(said)}×, in after "
              f"{loop.time() - start:.1f} s")


# --- a copied identity on another machine (bug 1b) ---------------------------------------

def _in_play(ann: Node, *keys: bytes) -> None:
    """Ann after the deal: seat 0, the others seated in order, new connections may
    replace old ones."""
    ann.seat = 0
    ann.seats = {ann.key: 0, **{k: i + 1 for i, k in enumerate(keys)}}
    ann.replace_old = True


async def test_a_copy_of_a_seated_identity_does_not_take_a_live_seat_over() -> None:
    """After the deal a second node with Bob's key dials Ann while Bob's connection is
    live: Ann pings the old one, it answers, the copy is refused ``duplicate`` — Bob's
    connection stays, on both ends."""
    key = Ed25519PrivateKey.generate()
    async with _host() as ann, \
            Node(identity=key, name="Bob", code=CODE, table=None, host="127.0.0.1",
                 heartbeat_s=1.0) as bob, \
            Node(identity=key, name="Bob", code=CODE, table=None, host="127.0.0.1") as copy:
        first = await bob.connect("127.0.0.1", ann.port, role=Role.JOIN, timeout_s=3.0)
        _in_play(ann, bob.key)
        old = ann.peers[bob.key]
        loop = asyncio.get_running_loop()
        start = loop.time()
        with pytest.raises(JoinRefused) as info:
            await copy.connect("127.0.0.1", ann.port, role=Role.PEER, timeout_s=5.0)
        assert info.value.refusal is Refusal.DUPLICATE
        assert ann.peers[bob.key] is old and not old.closed
        assert bob.peers[ann.key] is first and not first.closed
        print(f"\ncopy refused after {loop.time() - start:.2f} s (the old one answered)")


async def test_a_restarted_node_replaces_its_silent_old_connection() -> None:
    """The old connection of Bob's key went silent without a close (the machine
    restarted): the ping gets no answer, so Bob's new connection replaces it."""
    from .test_hostile import Rogue

    key = Ed25519PrivateKey.generate()
    async with _host() as ann, \
            Node(identity=key, name="Bob", code=CODE, table=None, host="127.0.0.1") as bob:
        rogue = await Rogue(identity=key, table=TID).open(ann.port)
        await rogue.handshake(role=Role.JOIN)  # then silent, the socket left open
        await asyncio.sleep(0.1)
        _in_play(ann, bob.key)
        old = ann.peers[bob.key]
        loop = asyncio.get_running_loop()
        start = loop.time()
        conn = await bob.connect("127.0.0.1", ann.port, role=Role.PEER, timeout_s=5.0)
        took = loop.time() - start
        assert conn.key == ann.key and old.closed and ann.peers[bob.key] is not old
        assert took >= ASK_OLD_S - 0.05, took  # it waited for the ping first
        rogue.abort()
