"""Real mDNS between network namespaces: join by code, and ``p2p8s tables`` (root only)."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from .netns import Lan, unavailable
from .procs import Proc

REASON = unavailable()
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")


@pytest.fixture(scope="module")
def lan() -> Iterator[Lan]:
    with Lan(4) as made:
        yield made


def _namespaces() -> str:
    return subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout


def test_the_lan_is_set_up_and_always_cleaned_up() -> None:
    with pytest.raises(RuntimeError, match="boom"), Lan(2) as lan:
        names = [*lan.names, lan.switch]
        assert all(name in _namespaces() for name in names)
        shown = subprocess.run([*lan.prefix(1), "ip", "-4", "addr", "show", "eth0"],
                               capture_output=True, text=True).stdout
        assert f"{lan.addresses[1]}/24" in shown and "MULTICAST" in shown
        raise RuntimeError("boom")
    assert not any(name in _namespaces() for name in names)


def test_a_failed_setup_is_cleaned_up(monkeypatch: pytest.MonkeyPatch) -> None:
    lan = Lan(2)
    real = lan._create

    def half(self: Lan = lan) -> None:
        monkeypatch.setattr(lan, "names", [*lan.names[:1], "bad/name"])
        real()

    monkeypatch.setattr(lan, "_create", half)
    with pytest.raises(RuntimeError), lan:
        pass
    assert lan.switch not in _namespaces()


def test_join_by_code_over_mdns_and_play_a_round(lan: Lan, procs: list[Proc],
                                                  tmp_path: Path) -> None:
    host = Proc(["host", "--name", "Ann", "--seats", "3", "--auto", "karl", "--rounds", "1"],
                home=tmp_path / "ann", prefix=lan.prefix(0))
    procs.append(host)
    code = host.expect(r"^Table code: (\w{6})$").group(1)
    # The fallback names the LAN address, not loopback.
    host.expect(rf"run: p2p8s join {code}@{lan.addresses[0]}:\d+$")
    host.expect(r"Type deal")
    joiners = []
    for i, name in ((1, "Bob"), (2, "Cat")):
        joiner = Proc(["join", code.lower(), "--name", name, "--yes", "--timeout", "10",
                       "--auto", "vera", "--rounds", "1"],
                      home=tmp_path / name, prefix=lan.prefix(i))
        procs.append(joiner)
        # the card's names are nobody's word until a node proves the code: none shown
        joiner.expect(rf"^Found a table at {lan.addresses[0]}:\d+; trying it for this "
                      "code$", timeout_s=12)
        joiner.expect(r"^Ann's table: table rules, multi-play, draw limit 3, target 100$")
        host.expect(rf"^{name} \[key .*\] sat down at seat {i}$")
        joiners.append(joiner)
    host.send("deal")
    for proc in (host, *joiners):
        proc.expect(r"^Everyone is connected \(3 people\); the game begins\.$", timeout_s=15)
        assert proc.wait(60) == 0, proc.output
        assert "audit: every card checked ✓" in proc.output, proc.output
        assert re.search(r"Leaving the table: (played the 1 round asked for|the match is "
                         r"over)\.", proc.output), proc.output
    tables = [p.output[p.output.index("Match table"):] for p in (host, *joiners)]
    assert tables[0].split("audit")[0] == tables[1].split("audit")[0] == \
        tables[2].split("audit")[0]


def test_tables_lists_two_tables(lan: Lan, procs: list[Proc], tmp_path: Path) -> None:
    hosts = [Proc(["host", "--name", name, *extra], home=tmp_path / name, prefix=lan.prefix(i))
             for i, (name, extra) in enumerate((("Ann", ["--classic"]),
                                                ("Dan", ["--seats", "6"])))]
    procs.extend(hosts)
    for host in hosts:
        host.expect(r"Type deal")
    # Browse until both cards are seen (each browse is a fresh process listening 3 s).
    for _attempt in range(3):
        tables = Proc(["tables", "--timeout", "3"], home=tmp_path / "viewer",
                      prefix=lan.prefix(3))
        procs.append(tables)
        assert tables.wait(15) == 0
        if "2 tables on the local network " in tables.output:
            break
    out = tables.output
    assert "2 tables on the local network (names and keys as they announce themselves: " \
           "nobody checks an advert):" in out, out
    assert '"Ann\'s table" (as it announces itself)  1/4 seated, 3 free  classic' in out, out
    assert f"at {lan.addresses[0]}:" in out and f"at {lan.addresses[1]}:" in out, out
    assert '"Dan\'s table" (as it announces itself)  1/6 seated, 5 free  table rules' \
           in out, out
    assert "127.0.0.1" not in out
