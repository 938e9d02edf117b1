"""A peer whose address changed is found again through mDNS (issue #6; root only).

A 3-person ``--auto`` table of real processes in network namespaces. Mid-round the
host's namespace (seat 0, the lowest seat: the others dial it) gets a new address; its
old one is gone, so the roster's address fails. The host's in-play mDNS card follows the
change, the higher seats look seat 0 up by mDNS, reconnect, and the match finishes with
every log auditing ok. (The look-up waits past a cached answer that still names the old
address, and runs beside the dial to the dead old address: the reconnection takes a few
seconds after the loss is noticed, not a minute.)
"""

from __future__ import annotations

import asyncio
import re
import subprocess
from pathlib import Path

import pytest
from lan.lan import log_files

from p2p8s.net.discovery import follow_addresses

from .netns import Lan, unavailable
from .procs import Proc

REASON = unavailable()
needs_netns = pytest.mark.skipif(REASON is not None, reason=REASON or "")


class FakeAdvertiser:
    """Records re-addressing; the first attempt fails (multicast trouble)."""

    def __init__(self) -> None:
        self.addresses = ["10.0.0.1"]
        self.calls: list[list[str]] = []

    async def async_readdress(self, addresses: list[str]) -> None:
        self.calls.append(addresses)
        if len(self.calls) == 1:
            raise OSError("no route")
        self.addresses = addresses


async def test_the_advertisement_follows_address_changes_and_retries_failures() -> None:
    seen = iter([["10.0.0.1"], ["10.0.0.7"], ["10.0.0.7"], ["10.0.0.7"]])
    fake = FakeAdvertiser()
    changed: list[list[str]] = []
    task = asyncio.ensure_future(follow_addresses(
        fake, poll_s=0.001, addresses=lambda: next(seen, ["10.0.0.7"]),  # type: ignore[arg-type]
        changed=changed.append))
    try:
        async with asyncio.timeout(5):
            while not changed:
                await asyncio.sleep(0.001)
    finally:
        task.cancel()
    assert fake.calls == [["10.0.0.7"], ["10.0.0.7"]]  # failed once, tried again
    assert changed == [["10.0.0.7"]] and fake.addresses == ["10.0.0.7"]


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)




@needs_netns
@pytest.mark.wall_clock
def test_a_host_whose_address_changed_is_found_again_by_mdns(
        procs: list[Proc], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("P2P8S_PACE_S", "0.15")  # a round lasts while the address moves
    with Lan(3) as lan:
        homes = [tmp_path / name for name in ("ann", "bob", "cat")]
        ann = Proc(["host", "--name", "Ann", "--seats", "3", "--auto", "karl",
                    "--rounds", "1"], home=homes[0], prefix=lan.prefix(0))
        procs.append(ann)
        code = ann.expect(r"^Table code: (\w{6})$").group(1)
        port = ann.expect(rf"run: p2p8s join {code}@{lan.addresses[0]}:(\d+)$").group(1)
        ann.expect(r"Type deal")
        joiners = []
        for i, name in ((1, "Bob"), (2, "Cat")):
            joiner = Proc(["join", f"{code}@{lan.addresses[0]}:{port}", "--name", name,
                           "--yes", "--auto", "vera", "--rounds", "1"],
                          home=homes[i], prefix=lan.prefix(i))
            procs.append(joiner)
            ann.expect(rf"^{name} \[key .*\] sat down at seat {i}$", timeout_s=15)
            joiners.append(joiner)
        ann.send("deal")
        everyone = [ann, *joiners]
        for proc in everyone:
            proc.expect(r"^Round 1: ", timeout_s=20)
        # The host moves: its old address is gone, a new one comes.
        old = lan.addresses[0]
        new = old.rsplit(".", 1)[0] + ".200"
        ns = lan.names[0]
        _ip("-n", ns, "addr", "del", f"{old}/24", "dev", "eth0")
        _ip("-n", ns, "addr", "add", f"{new}/24", "dev", "eth0")
        subprocess.run(["ip", "-n", ns, "route", "replace", "224.0.0.0/4", "dev", "eth0"],
                       capture_output=True)
        ann.expect(rf"This computer's address changed: now advertised at {re.escape(new)}",
                   timeout_s=10)
        for joiner in joiners:  # no heartbeat from the old address ...
            joiner.expect(r"^Lost the connection to Ann \(seat 0\)", timeout_s=15)
        for joiner in joiners:  # ... found again at the new one (only mDNS knows it)
            joiner.expect(rf"^Ann \(seat 0\) is back \(reconnected(; it gets the log)? at "
                          rf"{re.escape(new)}:{port}\)\.$", timeout_s=60)
        for proc in everyone:
            assert proc.wait(40) == 0, proc.output
            assert "Traceback" not in proc.output, proc.output
        for home in homes:
            for path in log_files(home):
                audit = Proc(["audit", str(path)], home=tmp_path / "auditor")
                procs.append(audit)
                assert audit.wait(60) == 0, audit.output
                assert "verdict: ok" in audit.output, audit.output
