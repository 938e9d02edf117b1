"""A fake advert on a real LAN of network namespaces (root only; issue 14): its name
reaches nobody's screen raw, and it does not hide the real table with the same id."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .netns import Lan, unavailable
from .procs import Proc

REASON = unavailable()
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")

#: The fake QA sent: clears the screen, turns red, shows a command to run.
EVIL = "Evil\x1b[2J\x1b[31mRED PHISH: run p2p8s join QZ7K2M@198.51.100.7:4242"
#: A fake advert of table ``argv[1]`` named ``argv[2]``, at port 4242, for ``argv[3]`` s,
#: with somebody else's fingerprint (anyone can copy it).
FAKE = """
import asyncio, sys
from p2p8s.net.discovery import Advertiser, TableCard, open_zeroconf, rules_from_txt
async def main():
    card = TableCard(version=3, table_id=sys.argv[1], host_name=sys.argv[2],
                     rules=rules_from_txt("table"), seats=5, free=4,
                     fingerprint="VF4V-CF6P-QCWQ-ZC3D")
    async with open_zeroconf() as aiozc, Advertiser(aiozc, card, port=4242):
        print("up", flush=True)
        await asyncio.sleep(float(sys.argv[3]))
asyncio.run(main())
"""


@pytest.fixture(scope="module")
def lan() -> Iterator[Lan]:
    with Lan(3) as made:
        yield made


def _listing(lan: Lan, i: int, procs: list[Proc], home: Path, *, until: str) -> str:
    """What ``p2p8s tables`` lists in namespace ``i``, once it holds ``until`` (each
    listing is a fresh process listening 3 s; at most 5 of them)."""
    out = ""
    for _attempt in range(5):
        tables = Proc(["tables", "--timeout", "3"], home=home, prefix=lan.prefix(i))
        procs.append(tables)
        assert tables.wait(15) == 0
        out = tables.output
        if until in out:
            break
    return out


def test_a_fake_advert_of_the_same_table_is_shown_as_a_claim_and_passed_over(
        lan: Lan, procs: list[Proc], tmp_path: Path) -> None:
    host = Proc(["host", "--name", "Ann", "--seats", "3"], home=tmp_path / "ann",
                prefix=lan.prefix(0))
    procs.append(host)
    code = host.expect(r"^Table code: (\w{6})$").group(1)
    host.expect(r"Type deal")
    out = _listing(lan, 1, procs, tmp_path / "eve", until=" id ")
    found = re.search(r" id ([0-9a-f]{16}) ", out)
    assert found is not None, out
    fake = subprocess.Popen([*lan.prefix(1), sys.executable, "-c", FAKE, found.group(1),
                             EVIL, "60"], stdout=subprocess.PIPE, text=True)
    try:
        assert fake.stdout is not None and fake.stdout.readline() == "up\n"
        out = _listing(lan, 2, procs, tmp_path / "bob", until=":4242")
        cards = "\n".join(out.splitlines()[1:-1])  # the cards, not the words around them
        assert "\x1b" not in out and "p2p8s" not in cards and "QZ7K2M" not in out, out
        assert "  a table whose name reads like a command (not shown)  1/5 seated" in out, out
        assert "claims key VF4V-CF6P-QCWQ-ZC3D" in out, out
        assert '"Ann\'s table" (as it announces itself)' in out, out
        assert "  (these 2 adverts claim one table id: at most one is that table, and only " \
               "the code tells which; join tries each)" in out, out
        joiner = Proc(["join", "--name", "Bob", "--yes", "--auto", code, "--timeout", "5"],
                      home=tmp_path / "bob", prefix=lan.prefix(2))
        procs.append(joiner)
        # each advert keeps its own addresses and port: no address with another's port
        line = joiner.expect(r"^Found a table at (.*); trying it for this code$").group(1)
        assert line.endswith(" (2 adverts of one table id)"), line
        adverts = sorted(line.removesuffix(" (2 adverts of one table id)").split(" or "))
        assert adverts[1] == f"{lan.addresses[1]}:4242", line
        assert re.fullmatch(rf"{re.escape(lan.addresses[0])}:\d+", adverts[0]), line
        host.expect(r"^Bob \[key .*\] sat down at seat 1$", timeout_s=30)
    finally:
        fake.kill()
        fake.wait()
