"""``p2p8s join CODE`` without mDNS (issue #11): the addresses kept from the last time.

A node in play keeps where each seat listened (``p2p8s.store.lastseen``). Bob's program
is killed mid-match at a table whose host does not advertise itself (no multicast); run
again with the code alone, ``join`` finds no table by mDNS, says so, tries the addresses
it kept, is let back in and plays the match to its end.
"""

from __future__ import annotations

import doctest
import re
import signal
from pathlib import Path

import pytest
from net.procs import Proc

from p2p8s.store import lastseen
from p2p8s.store.lastseen import (
    ended_at,
    last_addresses,
    load_where,
    mark_ended,
    save_where,
    where_path,
)

from .lan import join_args, log_files, two_and_a_kill


def test_doctests() -> None:
    assert doctest.testmod(lastseen).failed == 0


def test_the_last_addresses_round_trip_and_a_damaged_file_is_no_hint(tmp_path: Path) -> None:
    table = bytes(range(16))
    save_where(table, {1: [("10.0.0.2", 4243)], 0: [("10.0.0.9", 4242), ("10.0.0.1", 4242)],
                       2: []}, directory=tmp_path)
    assert load_where(table, directory=tmp_path) == {
        0: [("10.0.0.9", 4242), ("10.0.0.1", 4242)], 1: [("10.0.0.2", 4243)]}
    assert last_addresses(table, directory=tmp_path) == [
        ("10.0.0.9", 4242), ("10.0.0.1", 4242), ("10.0.0.2", 4243)]  # the host's first
    where_path(table, directory=tmp_path).write_text('{"seats": {"0": [["x"]]}}')
    assert load_where(table, directory=tmp_path) == {}
    assert last_addresses(bytes(16), directory=tmp_path) == []


def test_a_player_coming_back_dials_every_seat_of_its_table_at_once() -> None:
    """One group a seat (raced, :func:`~p2p8s.net.racing.connect_first`), the host's
    first, after a typed address and the tables heard; no address twice: a host asleep
    (its handshakes time out, 15 s an address) does not hold up the way back in through
    another node (newcomer QA: a rejoin said nothing for a minute)."""
    from p2p8s.cli.net_cmd import where_groups
    from p2p8s.net.discovery import Candidate

    kept = {2: [("10.0.0.3", 4244)], 0: [("10.0.0.1", 4242), ("10.0.0.9", 4242)],
            1: [("10.0.0.2", 4243), ("10.0.0.1", 4242)]}
    assert where_groups([], kept) == [[("10.0.0.1", 4242), ("10.0.0.9", 4242)],
                                      [("10.0.0.2", 4243)], [("10.0.0.3", 4244)]]
    heard = [Candidate(table_id="ab", where=(("10.0.0.7", 5000), ("10.0.0.2", 4243)))]
    assert where_groups(heard, kept, direct=("10.0.0.9", 4242)) == [
        [("10.0.0.9", 4242)], [("10.0.0.7", 5000), ("10.0.0.2", 4243)],
        [("10.0.0.1", 4242)], [("10.0.0.3", 4244)]]
    assert where_groups(heard, {}) == [[("10.0.0.7", 5000), ("10.0.0.2", 4243)]]


def test_a_match_seen_to_its_end_is_marked_and_the_addresses_stay(tmp_path: Path) -> None:
    table = bytes(range(16))
    assert ended_at(table, directory=tmp_path) is False  # no file
    save_where(table, {0: [("10.0.0.1", 4242)]}, directory=tmp_path)
    assert ended_at(table, directory=tmp_path) is False
    mark_ended(table, tmp_path / "t.p2p8slog", directory=tmp_path)
    assert ended_at(table, directory=tmp_path) == tmp_path / "t.p2p8slog"
    assert load_where(table, directory=tmp_path) == {0: [("10.0.0.1", 4242)]}
    mark_ended(table, None, directory=tmp_path)  # no log written (--no-log)
    assert ended_at(table, directory=tmp_path) is True
    where_path(table, directory=tmp_path).write_text('{"seats": {}, "ended": 3}')
    assert ended_at(table, directory=tmp_path) is False  # damaged: only a hint


@pytest.mark.wall_clock
def test_join_of_a_table_whose_match_this_node_saw_end_says_so_at_once(
        procs: list[Proc], tmp_path: Path) -> None:
    """Newcomer QA: ``join CODE`` again after the match ended and everyone left said
    "your seat is kept; still looking … for up to 10 minutes"; this node's own log
    holds the result."""
    from p2p8s.cli.net_cmd import where_key

    home, code = tmp_path / "bob", "ABCDEF"
    tables = home / "data" / "p2p8s" / "tables"
    save_where(where_key(code), {0: [("127.0.0.1", 9)]}, directory=tables)
    mark_ended(where_key(code), tables / "bob.p2p8slog", directory=tables)
    join = Proc(["join", code, "--name", "Bob", "--yes", "--timeout", "1"], home=home)
    procs.append(join)
    assert join.wait(20) == 1, join.output
    assert re.search(r"the match at table ABCDEF is over: you played it to its end \(its "
                     r"result is in your log: p2p8s audit \S+bob\.p2p8slog\)", join.output,
                     re.I), join.output
    assert "still looking" not in join.output and "Traceback" not in join.output


@pytest.mark.wall_clock
def test_join_by_code_alone_without_mdns_tries_the_addresses_of_the_last_time(
        procs: list[Proc], tmp_path: Path) -> None:
    table = two_and_a_kill(procs, tmp_path)
    ann = table.procs[0]
    again = Proc([*join_args(table.code, 1, 3), "--timeout", "1"], home=table.homes[1])
    procs.append(again)
    again.expect(r"^No answer by mDNS; trying where the table was the last time: .*"
                 r"127\.0\.0\.1:\d+", timeout_s=20)
    again.expect(r"your key holds seat 1: rejoining", timeout_s=20)
    for proc in (ann, again):
        assert proc.wait(120) == 0, proc.output
        assert "Traceback" not in proc.output, proc.output
    assert len(log_files(table.homes[1])) == 1  # one file per table and match: it went on


@pytest.mark.wall_clock
def test_join_by_code_alone_says_where_it_tried(procs: list[Proc], tmp_path: Path) -> None:
    home = tmp_path / "bob"
    code = "ABCDEF"
    from p2p8s.cli.net_cmd import where_key

    save_where(where_key(code), {0: [("127.0.0.1", 9)]},  # the discard port: nobody listens
               directory=home / "data" / "p2p8s" / "tables")
    join = Proc(["join", code, "--name", "Bob", "--yes", "--timeout", "1"], home=home,
                prefix=("env", "P2P8S_RETURN_S=3"))
    procs.append(join)
    assert join.wait(30) != 0
    # a table it sat at: it kept looking (for 3 s here), then says where it tried
    assert re.search(r"Cannot reach table ABCDEF from here now .*still looking, by mDNS "
                     r"and where the table was, every 3 s for up to 0\.1 minutes",
                     join.output), join.output
    assert "nor at its addresses of the last time (127.0.0.1:9)" in join.output, join.output


@pytest.mark.wall_clock
def test_a_player_back_while_the_table_is_out_of_reach_keeps_looking_until_it_answers(
        procs: list[Proc], tmp_path: Path) -> None:
    """Bob's program is killed and run again while Ann's computer does not answer (her
    process stopped: a laptop asleep, a Wi-Fi that is down). ``join`` does not give up:
    it says so and keeps looking until Ann answers, then rejoins (issue #11)."""
    from p2p8s.cli.net_cmd import where_key

    table = two_and_a_kill(procs, tmp_path, rounds=1)
    ann = table.procs[0]
    # only Ann's address is kept (her port once: each try of a silent address costs the
    # handshake's attempts, 3 x 5 s)
    tables = table.homes[1] / "data" / "p2p8s" / "tables"
    kept = load_where(where_key(table.code), directory=tables)
    save_where(where_key(table.code), {0: kept[0][:1]}, directory=tables)
    ann.signal(signal.SIGSTOP)
    try:
        again = Proc([*join_args(table.code, 1, 1), "--timeout", "1"], home=table.homes[1])
        procs.append(again)
        again.expect(r"^Cannot reach table \w+ from here now", timeout_s=60)
    finally:
        ann.signal(signal.SIGCONT)
    again.expect(r"your key holds seat 1: rejoining", timeout_s=30)
    for proc in (ann, again):
        assert proc.wait(120) == 0, proc.output
        assert "Traceback" not in proc.output, proc.output
    assert len(log_files(table.homes[1])) == 1
