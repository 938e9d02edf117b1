"""Shared helpers of the table tests: run a net to a quiet point, find a moment."""

from __future__ import annotations

from collections.abc import Callable

from p2p8s import wire
from p2p8s.cli.table_view import applied_line
from p2p8s.cli.words import Speaker
from p2p8s.cli.words import table as words
from p2p8s.crypto.rand import seeded
from p2p8s.table import Table
from p2p8s.table import events as tev
from p2p8s.table.harness import TableNet


def quiet(net: TableNet) -> None:
    """Deliver everything in flight (nobody acts, the clock stands)."""
    net.deliver_all()


def until(net: TableNet, pred: Callable[[], bool], max_steps: int = 100_000) -> None:
    """Step the net (acting and timers included) until ``pred()`` holds."""
    for _ in range(max_steps):
        if pred():
            return
        if not net.step():
            break
    assert pred(), "the moment never came"


def drop_on_turn(net: TableNet, gone: int, steps: int) -> None:
    """Start ``net``; once ``gone``'s node is on turn its network drops (both sides told)
    and the others play ``steps`` steps on: its seat is taken over."""
    net.start()
    until(net, lambda: net.nodes[gone].my_turn)
    net.cut_off(gone)
    for _ in range(steps):
        net.step()
    assert gone in net.nodes[0].taken_over


def on_turn(net: TableNet) -> int:
    """The seat on turn (as every node agrees) at a quiet point."""
    turns = {n.round.turn for n in net.nodes.values() if n.round is not None}
    assert len(turns) == 1
    return turns.pop()


def node_of_turn(net: TableNet) -> Table:
    """The node whose seat is on turn."""
    return net.nodes[on_turn(net)]


def said(event: object, net: TableNet | None = None, seat: int | None = None) -> str:
    """The words of a table event (an Info, a Fault, a RoundOver's audit) as the node of
    ``seat`` says them to its person (names from ``net``'s config)."""
    names = net.config.names if net is not None else ()
    return words.said(event, Speaker(names=names, me=seat))


def texts(net: TableNet, seat: int, kind: type[object] = tev.Info) -> list[str]:
    """The words of ``seat``'s events of ``kind`` (Info and its kinds by default)."""
    return [said(e, net, seat) for e in net.events[seat] if isinstance(e, kind)]


def applied_text(event: tev.Applied, net: TableNet, seat: int) -> str:
    """The sentence of an applied action as the node of ``seat`` narrates it."""
    return applied_line(event, Speaker(net.config.names, seat), net.config.rules)


def signed_payloads(net: TableNet, seat: int) -> list[bytes]:
    """The game payloads ``seat``'s node signed, in order (its log holds what it sent)."""
    key = net.config.seats[seat].key
    payloads = []
    for frame in net.frames[seat]:
        got = wire.decode_body(frame[wire.PREFIX_LENGTH:])
        if got.key == key and isinstance(got.message.body, wire.Game):
            payloads.append(got.message.body.payload)
    return payloads


def with_secrets(net: TableNet, seed: bytes, secret: Callable[[int], bytes]) -> TableNet:
    """``net`` with every node built anew deriving its round secrets from ``secret(seat)``
    (its table secret)."""
    for s in net.humans:
        net.nodes[s] = Table(net.config, me=s, rand=seeded(seed + b"/rand/" + bytes([s])),
                             seed=seed + bytes([s]), sign=net.signers.get(s),
                             key_secret=secret(s))
    return net


def put_back(net: TableNet, seat: int, node: Table) -> Table:
    """Put ``node`` (restored) in the place of ``seat``'s crashed node, reconnected; its
    first output goes out."""
    assert node.failed is None
    net.replace(seat, node)
    net.reconnect(seat)
    net._post(seat, node.handle_timer(net.now))
    return node


def same_end(net: TableNet) -> None:
    """No fault; every node finished the match with the same transcript and totals."""
    assert net.faults() == {}
    nodes = [net.nodes[s] for s in net.humans]
    for node in nodes:
        assert node.finished
        assert node.transcript == nodes[0].transcript
        assert node.match.totals == nodes[0].match.totals
