"""A throwaway LAN of Linux network namespaces for real mDNS tests (root only).

``Lan(n)`` makes ``n`` namespaces, each with one veth interface plugged into a bridge
that lives in its own "switch" namespace, so the host's own network is never touched.
Every node gets ``10.<a>.<b>.<i+1>/24`` with multicast on, a route for 224.0.0.0/4 and
``lo`` up. Names are unique per run (``p8s<pid><rand>-<i>``); everything is deleted on
exit, even when setup fails half way (deleting a namespace deletes its interfaces).

>>> # with Lan(3) as lan:
>>> #     subprocess.run([*lan.prefix(0), "ip", "addr"])
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
from types import TracebackType


def unavailable() -> str | None:
    """Why namespaces cannot be used here, or None if they can."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "network namespaces need root (CI runs as root)"
    if shutil.which("ip") is None:
        return "the ip command (iproute2) is not installed"
    probe = f"p8sprobe{secrets.token_hex(3)}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"ip netns is not usable here: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def _ip(*args: str) -> None:
    done = subprocess.run(["ip", *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {done.stderr.strip()}")


class Lan:
    """``n`` namespaces on one bridged 10.x/24 network; a context manager."""

    def __init__(self, n: int) -> None:
        tag = f"{os.getpid() % 10000}{secrets.token_hex(2)}"
        self.switch = f"p8s{tag}-sw"
        self.names = [f"p8s{tag}-{i}" for i in range(n)]
        a, b = 64 + os.getpid() % 128, secrets.randbelow(250) + 1
        self.addresses = [f"10.{a}.{b}.{i + 1}" for i in range(n)]
        self._made: list[str] = []

    def prefix(self, i: int) -> list[str]:
        """The command prefix that runs a program inside namespace ``i``."""
        return ["ip", "netns", "exec", self.names[i]]

    def __enter__(self) -> Lan:
        try:
            self._create()
        except BaseException:
            self.cleanup()
            raise
        return self

    def _create(self) -> None:
        _ip("netns", "add", self.switch)
        self._made.append(self.switch)
        _ip("-n", self.switch, "link", "add", "br0", "type", "bridge", "mcast_snooping", "0")
        _ip("-n", self.switch, "link", "set", "br0", "up")
        for i, (name, address) in enumerate(zip(self.names, self.addresses, strict=True)):
            _ip("netns", "add", name)
            self._made.append(name)
            _ip("link", "add", "eth0", "netns", name, "type", "veth",
                "peer", "name", f"port{i}", "netns", self.switch)
            _ip("-n", self.switch, "link", "set", f"port{i}", "master", "br0", "up")
            _ip("-n", name, "link", "set", "lo", "up")
            _ip("-n", name, "addr", "add", f"{address}/24", "dev", "eth0")
            _ip("-n", name, "link", "set", "eth0", "multicast", "on", "up")
            _ip("-n", name, "route", "add", "224.0.0.0/4", "dev", "eth0")

    def cleanup(self) -> None:
        """Delete every namespace made (and with them every interface)."""
        for name in reversed(self._made):
            subprocess.run(["ip", "netns", "del", name], capture_output=True)
        self._made.clear()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.cleanup()
