"""The sans-IO handshake and sealed channel (p2p8s.net.handshake, p2p8s.net.channel):
known answers (protocol/vectors/wire_handshake.json), both ends agree, a wrong code fails
with one guess, and hypothesis fuzz of every decoder (no crash, a clear SessionError)."""

from __future__ import annotations

import doctest
import hashlib
import json
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p8s.net import admission, channel
from p2p8s.net.admission import Admission, Limits, Verdict
from p2p8s.net.channel import Opener, Sealer, SessionCode, SessionError
from p2p8s.net.handshake import (
    MAX_RETRY_S,
    Done,
    Failed,
    Handshake,
    HandshakeEvent,
    Heard,
    Send,
    Side,
    busy_record,
    hinted_key,
)
from p2p8s.wire import public_key_bytes

VECTORS = Path(__file__).parents[2] / "protocol" / "vectors" / "wire_handshake.json"
TID = bytes.fromhex("5a1e0c7d2b9f4e01")
D_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
A_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32, 64)))


def _entropy(seed: bytes):  # type: ignore[no-untyped-def]
    """Deterministic SPAKE2 randomness for the vectors (never in a node)."""
    def take(n: int) -> bytes:
        return hashlib.shake_256(seed).digest(n)
    return take


def run(d_code: str = "7KQ4MX", a_code: str = "7KQ4MX", *, deterministic: bool = False
        ) -> tuple[list[bytes], list[HandshakeEvent], list[HandshakeEvent]]:
    """Both ends to the end; the records on the wire (in order) and each end's events."""
    kw_d = {"entropy": _entropy(b"d")} if deterministic else {}
    kw_a = {"entropy": _entropy(b"a")} if deterministic else {}
    d = Handshake(side=Side.DIALLER, code=d_code, identity=D_KEY, table=None, peer="a",
                  **kw_d)
    a = Handshake(side=Side.ACCEPTOR, code=a_code, identity=A_KEY, table=TID, peer="d",
                  **kw_a)
    wire, to_d, to_a = [], [d.start()], []
    wire.append(to_d[0])
    to_a, to_d = [to_d[0]], [a.start()]
    wire.append(to_d[0])
    seen_d: list[HandshakeEvent] = []
    seen_a: list[HandshakeEvent] = []
    for _ in range(4):
        ev_a = [e for data in to_a for e in a.receive_data(data)]
        ev_d = [e for data in to_d for e in d.receive_data(data)]
        seen_a += ev_a
        seen_d += ev_d
        to_d = [e.data for e in ev_a if isinstance(e, Send)]
        to_a = [e.data for e in ev_d if isinstance(e, Send)]
        wire += to_a + to_d
    return wire, seen_d, seen_a


def test_doctests() -> None:
    assert doctest.testmod(channel).failed == 0
    assert doctest.testmod(admission).failed == 0


def test_both_ends_confirm_the_same_session_bound_to_both_keys() -> None:
    _, seen_d, seen_a = run()
    [done_d] = [e for e in seen_d if isinstance(e, Done)]
    [done_a] = [e for e in seen_a if isinstance(e, Done)]
    assert done_d.session.table == done_a.session.table == TID
    assert done_d.session.transcript == done_a.session.transcript
    assert done_d.session.peer_key == A_KEY.public_key().public_bytes_raw()
    assert done_a.session.peer_key == D_KEY.public_key().public_bytes_raw()
    sealed = done_d.session.sealer.seal(b"frame")
    assert done_a.session.opener.receive_data(sealed) == [b"frame"]


def test_a_wrong_code_fails_on_both_ends_as_one_guess() -> None:
    """The acceptor answers nothing keyed by the code before the dialler's ``auth``
    opened: a wrong code is one failed guess there, and the dialler gets no record to
    test it against (the close tells it)."""
    wire, seen_d, seen_a = run(d_code="000000")
    assert [e.error.code for e in seen_a if isinstance(e, Failed)] == ["pake-failed"]
    assert len(wire) == 3  # two hellos and the dialler's auth, nothing after
    assert not any(isinstance(e, Done) for e in seen_d + seen_a)
    # the acceptor closes: that close is the dialler's answer
    d = Handshake(side=Side.DIALLER, code="000000", identity=D_KEY, table=None, peer="a")
    d.start()
    d.receive_data(wire[1])
    assert [e.error.code for e in d.receive_eof() if isinstance(e, Failed)] == [
        "pake-failed"]


def test_the_dialler_proves_the_code_first_so_a_cut_before_that_is_no_guess() -> None:
    """Step by step: the acceptor's hello is all it sends until the dialler's auth
    opens; cut there, no guess is counted; a right auth is answered by the acceptor's
    auth and confirm at once."""
    d = Handshake(side=Side.DIALLER, code="7KQ4MX", identity=D_KEY, table=None, peer="a")
    a = Handshake(side=Side.ACCEPTOR, code="7KQ4MX", identity=A_KEY, table=TID, peer="d")
    d_hello = d.start()
    a.start()
    assert [type(e) for e in a.receive_data(d_hello)] == [Heard]  # no auth yet
    assert a.receive_eof()[0].error.code is SessionCode.CUT_SHORT  # type: ignore[union-attr]
    assert not a.guessed and not a.sent_auth
    a = Handshake(side=Side.ACCEPTOR, code="7KQ4MX", identity=A_KEY, table=TID, peer="d")
    a.receive_data(d_hello)
    heard, auth = d.receive_data(a.start())
    assert isinstance(heard, Heard) and isinstance(auth, Send) and d.sent_auth
    answer = a.receive_data(auth.data)
    assert [type(e) for e in answer] == [Send, Send] and not a.guessed and a.sent_auth


def test_known_answer_transcript_and_sealed_frame() -> None:
    vectors = json.loads(VECTORS.read_text())
    wire, seen_d, _ = run(deterministic=True)
    assert [w.hex() for w in wire] == vectors["records"]
    [done] = [e for e in seen_d if isinstance(e, Done)]
    assert done.session.transcript.hex() == vectors["transcript"]
    assert done.session.sealer.seal(bytes.fromhex(vectors["frame"])).hex() == vectors["sealed"]


def test_a_changed_or_replayed_record_does_not_open() -> None:
    sealer, opener = Sealer(bytes(32)), Opener(bytes(32), peer="x")
    one = sealer.seal(b"one")
    assert opener.receive_data(one) == [b"one"]
    try:
        opener.receive_data(one)  # the counter moved on: a replay does not open
    except SessionError as exc:
        assert exc.code == "unsealed"
    else:
        raise AssertionError("a replayed record opened")


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_fuzz_the_hello_decoder(data: bytes) -> None:
    shake = Handshake(side=Side.ACCEPTOR, code="7KQ4MX", identity=A_KEY, table=TID, peer="x")
    shake.start()
    for event in shake.receive_data(data) + shake.receive_eof():
        assert not isinstance(event, Done)
        if isinstance(event, Failed):
            assert isinstance(event.error, SessionError) and event.error.params["peer"] == "x"


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 5), st.binary(max_size=200), st.integers(0, 3))
def test_fuzz_the_records_after_an_honest_hello(at: int, junk: bytes, cut: int) -> None:
    """An honest transcript cut and spliced with junk: never a crash, never a Done unless
    the records were intact."""
    wire, _, _ = run()
    from_d = [wire[0], *wire[2:][::2]]
    a = Handshake(side=Side.ACCEPTOR, code="7KQ4MX", identity=A_KEY, table=TID, peer="x")
    a.start()
    data = b"".join(from_d)
    spliced = data[:at * 10] + junk + data[at * 10 + cut:]
    events = a.receive_data(spliced) + a.receive_eof()
    assert all(isinstance(e, (Send, Done, Failed)) or e.__class__.__name__ == "Heard"
               for e in events)
    for event in events:
        if isinstance(event, Failed):
            assert isinstance(event.error, SessionError)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_fuzz_the_opener(data: bytes) -> None:
    opener = Opener(bytes(32), peer="x")
    try:
        assert opener.receive_data(data) == []
        opener.receive_eof()
    except SessionError as exc:
        assert exc.params["peer"] == "x"


def test_admission_limits_per_address_and_reserves_slots() -> None:
    gate = Admission(Limits(per_source=2, queue=1, total=2, reserved=1, rate=100,
                            burst=100))
    assert [gate.arrive("10.0.0.1", now=0) for _ in range(4)] == [
        Verdict.ADMIT, Verdict.ADMIT, Verdict.WAIT, Verdict.BUSY]
    assert gate.arrive("10.0.0.2", now=0) is Verdict.RESERVED  # the overall cap is full
    assert gate.arrive("10.0.0.3", now=0) is Verdict.FULL
    gate.leave("10.0.0.1", Verdict.ADMIT, confirmed=False)
    assert gate.arrive("10.0.0.3", now=0) is Verdict.ADMIT
    # the waiting one: its address has a free slot now, the node none (reserved taken)
    assert gate.retry("10.0.0.1", now=0) is Verdict.FULL


def test_admission_lets_a_burst_from_one_address_wait_for_its_slots() -> None:
    gate = Admission(Limits(per_source=1, queue=1, rate=100, burst=100))
    assert [gate.arrive("10.0.0.1", now=0) for _ in range(3)] == [
        Verdict.ADMIT, Verdict.WAIT, Verdict.BUSY]
    assert gate.retry("10.0.0.1", now=0) is Verdict.WAIT  # its slot is still taken
    assert gate.arrive("10.0.0.1", now=0) is Verdict.BUSY
    gate.leave("10.0.0.1", Verdict.ADMIT, confirmed=True)
    assert gate.retry("10.0.0.1", now=0) is Verdict.ADMIT
    assert gate.arrive("10.0.0.1", now=0) is Verdict.WAIT
    gate.give_up("10.0.0.1")  # its deadline passed
    assert gate.arrive("10.0.0.1", now=0) is Verdict.WAIT


def test_admission_counts_only_attempts_that_did_not_prove_the_code() -> None:
    """Several honest nodes behind one address (a NAT, one machine with several seats)
    reconnect as often as they like: a confirmed handshake gives its token back and
    forgives a failure; unconfirmed attempts use the bucket up."""
    gate = Admission(Limits(per_source=4, rate=4.0, burst=8.0))
    for _ in range(100):  # 100 confirmed handshakes in the same instant
        assert gate.arrive("10.0.0.1", now=0.0) is Verdict.ADMIT
        gate.leave("10.0.0.1", Verdict.ADMIT, confirmed=True)
    for _ in range(8):
        assert gate.arrive("10.0.0.2", now=0.0) is Verdict.ADMIT
        gate.leave("10.0.0.2", Verdict.ADMIT, confirmed=False)
    assert gate.arrive("10.0.0.2", now=0.0) is Verdict.TOO_FAST
    assert gate.arrive("10.0.0.2", now=0.25) is Verdict.ADMIT  # 4 a second
    # a timed-out attempt of a flaky honest link, then a good one: no back-off builds up
    for _ in range(20):
        assert gate.failed("10.0.0.1", now=1.0) is None
        assert gate.arrive("10.0.0.1", now=1.0) is Verdict.ADMIT
        gate.leave("10.0.0.1", Verdict.ADMIT, confirmed=True)
    assert [gate.failed("10.0.0.1", now=1.0) is None for _ in range(5)] == [
        True, True, True, True, False]


def test_admission_backs_off_exponentially_after_five_wrong_codes() -> None:
    gate = Admission()
    notes = [gate.failed("192.0.2.9", now=0.0) for _ in range(7)]
    assert notes[:4] == [None] * 4
    assert [n.params["wait_s"] for n in notes[4:] if n is not None] == [1.0, 2.0, 4.0]
    assert gate.arrive("192.0.2.9", now=3.9) is Verdict.SLOWED
    assert gate.arrive("192.0.2.9", now=4.1) is Verdict.ADMIT


def test_a_busy_record_says_the_wait_and_fails_the_dialler_in_fixed_words() -> None:
    assert busy_record(2.2) == bytes.fromhex("00000003" "06" "0003")  # rounded up
    d = Handshake(side=Side.DIALLER, code="7KQ4MX", identity=D_KEY, table=None, peer="a")
    d.start()
    [failed] = d.receive_data(busy_record(1.0)[:5]) + d.receive_data(busy_record(1.0)[5:])
    assert isinstance(failed, Failed) and failed.error.code is SessionCode.BUSY
    assert failed.error.params["retry_s"] == 1 and not d.guessed
    # an unsigned wait is taken only up to MAX_RETRY_S
    d = Handshake(side=Side.DIALLER, code="7KQ4MX", identity=D_KEY, table=None, peer="a")
    [failed] = d.receive_data(busy_record(65535))
    assert isinstance(failed, Failed) and failed.error.params["retry_s"] == MAX_RETRY_S
    # an acceptor never takes one
    a = Handshake(side=Side.ACCEPTOR, code="7KQ4MX", identity=A_KEY, table=TID, peer="d")
    [failed] = a.receive_data(busy_record(1.0))
    assert isinstance(failed, Failed) and failed.error.code is SessionCode.BAD_HELLO


def test_the_rejoin_hint_of_a_hello_names_the_key_before_any_answer() -> None:
    d = Handshake(side=Side.DIALLER, code="7KQ4MX", identity=D_KEY, table=None, peer="a",
                  hint_key=public_key_bytes(D_KEY))
    hello = d.start()
    mine, other = public_key_bytes(D_KEY), public_key_bytes(A_KEY)
    assert hinted_key(hello, [other, mine]) == mine
    assert hinted_key(hello, [other]) is None
    assert hinted_key(hello[:-1], [mine]) is None
    plain = Handshake(side=Side.DIALLER, code="7KQ4MX", identity=D_KEY, table=None,
                      peer="a").start()
    assert hinted_key(plain, [mine]) is None


def test_admission_a_known_keys_hint_passes_its_address_with_its_own_budget() -> None:
    gate = Admission(Limits(free_failures=1, backoff_s=4.0))
    assert gate.failed("10.0.0.1", now=0.0) is not None  # the address is slowed 4 s
    assert gate.arrive("10.0.0.1", now=1.0) is Verdict.SLOWED
    assert gate.retry_after("10.0.0.1", Verdict.SLOWED, now=1.0) == 3.0
    key = b"k" * 32
    assert gate.priority(key, now=1.0) is Verdict.PRIORITY
    assert gate.priority(key, now=1.0) is Verdict.BUSY  # one at a time per key
    gate.leave("10.0.0.1", Verdict.PRIORITY, confirmed=False, key=key)
    gate.failed("10.0.0.1", now=1.0, key=key)  # someone who knows the key guessed wrong
    gate.failed("10.0.0.1", now=1.0, key=key)
    assert gate.priority(key, now=1.5) is Verdict.SLOWED  # the key's own back-off
    assert gate.priority(key, now=9.5) is Verdict.PRIORITY
    gate.leave("10.0.0.1", Verdict.PRIORITY, confirmed=True, key=key)
    # a confirmed handshake cleared the address's failures and back-off
    assert gate.arrive("10.0.0.1", now=9.5) is Verdict.ADMIT
    assert gate.failed("10.0.0.1", now=9.5) is not None  # free_failures=1: slowed again
    assert gate.retry_after("10.0.0.2", Verdict.BUSY, now=9.5) == 1.0
