"""A bad Wi-Fi for namespace tests: a userspace Ethernet bridge that delays and drops.

The kernel here has no netem, so the switch of a :class:`~net.netns.Lan` is replaced by a
small forwarder: one ``AF_PACKET`` socket on each switch-side veth end (``port<i>`` in the
switch namespace), and a loop that sends every Ethernet frame it reads on one port out of
the others — out of the one port behind which the destination MAC was last seen, or out of
every other port for broadcast, multicast (mDNS suffers too) and unknown destinations. Each
copy is dropped with probability ``loss`` and otherwise sent ``delay_ms ± jitter_ms``
later; frames leave a port in the order they were queued for it (a Wi-Fi link delays, its
MAC retransmissions do not reorder).

::

    with Lan(3) as lan, WifiBridge(lan, Air(delay_ms=100, loss=0.05)) as air:
        ...                      # the nodes talk through the bad Wi-Fi
        air.counts()             # Counts(received=…, forwarded=…, dropped=…, failed=…, queued=…)

The forwarder is its own process (``ip netns exec <switch> python wifibridge.py bridge
…``), so the GIL of the test or harness never delays a frame. It prints ``ready`` once
its sockets are bound, a JSON :class:`Counts` line on ``SIGUSR1``, and a last one when it
ends on ``SIGTERM``. Sending out of a port whose node pulled its cable (the veth peer is
down) fails or is dropped by the kernel: counted as ``failed``, not an error.

Checksum and segmentation offloads are turned off on both ends of every veth first (a
frame that goes through userspace must carry complete checksums and be at most one MTU):
this machine has no ethtool, so :func:`offloads_off` calls the legacy ``SIOCETHTOOL``
commands itself.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import heapq
import json
import random
import select
import signal
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from types import FrameType, TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .netns import Lan

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
SOL_PACKET = 263
PACKET_IGNORE_OUTGOING = 23
SIOCETHTOOL = 0x8946
#: Legacy ethtool "set" commands: tx checksum, scatter-gather, TSO, GSO, GRO.
_ETHTOOL_OFF = (0x17, 0x19, 0x1F, 0x24, 0x2C)
_FRAME = 65536


@dataclass(frozen=True, slots=True, kw_only=True)
class Air:
    """How bad the Wi-Fi is: one-way ``delay_ms`` ± ``jitter_ms`` (uniform), ``loss`` the
    probability (0–1) that a frame copy is dropped, ``seed`` for the forwarder's random."""

    delay_ms: float = 100.0
    jitter_ms: float = 30.0
    loss: float = 0.05
    seed: int = 0


@dataclass(slots=True, kw_only=True)
class Counts:
    """Frames the forwarder ``received`` (read on a port), copies it ``forwarded`` (sent),
    ``dropped`` on purpose (the loss), ``failed`` to send (a port down) and still
    ``queued`` (delayed, not yet due) when the counts were asked for."""

    received: int = 0
    forwarded: int = 0
    dropped: int = 0
    failed: int = 0
    queued: int = 0


def offloads_off(ifname: str) -> None:
    """Turn checksum/segmentation offloads off on ``ifname`` (this namespace); OSError if
    the interface does not exist. Offloads the driver cannot turn off are left as they are."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        for cmd in _ETHTOOL_OFF:
            value = ctypes.create_string_buffer(struct.pack("II", cmd, 0))
            ifreq = bytearray(struct.pack("16sP", ifname.encode(), ctypes.addressof(value)))
            ifreq += bytes(40 - len(ifreq))
            try:
                fcntl.ioctl(sock.fileno(), SIOCETHTOOL, ifreq)
            except OSError as exc:
                if exc.errno == 19:  # ENODEV
                    raise


def forward(ports: Sequence[str], air: Air) -> None:
    """Bridge ``ports`` (interfaces of this namespace) until SIGTERM, as described above;
    prints ``ready``, then a JSON :class:`Counts` line on SIGUSR1 and at the end."""
    rng = random.Random(air.seed)
    counts = Counts()
    socks: list[socket.socket] = []
    for name in ports:
        sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        with contextlib.suppress(OSError):  # old kernel: skipped by packet type below
            sock.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
        sock.bind((name, 0))
        sock.setblocking(False)
        socks.append(sock)
    where: dict[bytes, int] = {}  # MAC -> the port it was last seen behind
    queue: list[tuple[float, int, int, bytes]] = []  # (due, order, port, frame)
    last_due = [0.0] * len(ports)
    order = 0
    flags = {"report": False, "stop": False}

    def on_signal(signum: int, frame: FrameType | None) -> None:
        flags["stop" if signum == signal.SIGTERM else "report"] = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGUSR1, on_signal)
    print("ready", flush=True)
    while not flags["stop"]:
        now = time.monotonic()
        while queue and queue[0][0] <= now:
            _, _, port, frame = heapq.heappop(queue)
            try:
                socks[port].send(frame)
                counts.forwarded += 1
            except OSError:
                counts.failed += 1
        if flags["report"]:
            flags["report"] = False
            counts.queued = len(queue)
            print(json.dumps(asdict(counts)), flush=True)
        wait = min(0.2, max(0.0, queue[0][0] - now)) if queue else 0.2
        try:
            readable, _, _ = select.select(socks, [], [], wait)
        except InterruptedError:
            continue
        now = time.monotonic()
        for i in (socks.index(s) for s in readable):
            while True:
                try:
                    frame, addr = socks[i].recvfrom(_FRAME)
                except (BlockingIOError, OSError):
                    break
                if addr[2] == PACKET_OUTGOING or len(frame) < 14:
                    continue
                counts.received += 1
                dst, src = frame[:6], frame[6:12]
                if not src[0] & 1:
                    where[src] = i
                to = ([where[dst]] if not dst[0] & 1 and dst in where
                      else [j for j in range(len(socks)) if j != i])
                for j in to:
                    if j == i:
                        continue
                    if rng.random() < air.loss:
                        counts.dropped += 1
                        continue
                    delay = max(0.0, air.delay_ms + rng.uniform(-air.jitter_ms, air.jitter_ms))
                    due = max(last_due[j], now + delay / 1000)
                    last_due[j] = due
                    order += 1
                    heapq.heappush(queue, (due, order, j, frame))
    counts.queued = len(queue)
    print(json.dumps(asdict(counts)), flush=True)
    for sock in socks:
        sock.close()


def _run(*args: str) -> None:
    done = subprocess.run(list(args), capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {done.stderr.strip()}")


class WifiBridge:
    """Replace ``lan``'s kernel bridge by the delaying, dropping forwarder; a context
    manager (the forwarder is stopped on exit, the namespaces stay ``lan``'s)."""

    def __init__(self, lan: Lan, air: Air = Air()) -> None:
        self.lan = lan
        self.air = air
        self.final: Counts | None = None
        self._proc: subprocess.Popen[str] | None = None

    def __enter__(self) -> WifiBridge:
        sw = self.lan.switch
        ports = [f"port{i}" for i in range(len(self.lan.names))]
        me = [sys.executable, str(Path(__file__).resolve())]
        for name, port in zip(self.lan.names, ports, strict=True):
            _run("ip", "-n", sw, "link", "set", port, "nomaster")
            _run("ip", "netns", "exec", name, *me, "offloads-off", "eth0")
        _run("ip", "-n", sw, "link", "set", "br0", "down")
        _run("ip", "netns", "exec", sw, *me, "offloads-off", *ports)
        _run("ip", "netns", "exec", sw, "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1")
        a = self.air
        self._proc = subprocess.Popen(
            ["ip", "netns", "exec", sw, *me, "bridge", "--delay-ms", str(a.delay_ms),
             "--jitter-ms", str(a.jitter_ms), "--loss", str(a.loss), "--seed", str(a.seed),
             *ports], stdout=subprocess.PIPE, text=True, bufsize=1)
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline().strip()
        if line != "ready":
            self._proc.kill()
            raise RuntimeError(f"the Wi-Fi bridge did not start: {line!r}")
        return self

    def counts(self) -> Counts:
        """The forwarder's counts so far (asks it with SIGUSR1)."""
        assert self._proc is not None and self._proc.stdout is not None
        if self._proc.poll() is not None:
            return self.final or Counts()
        self._proc.send_signal(signal.SIGUSR1)
        return Counts(**json.loads(self._proc.stdout.readline()))

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._proc is None:
            return
        self._proc.terminate()
        try:
            out, _ = self._proc.communicate(timeout=5)
            last = [line for line in out.splitlines() if line.startswith("{")]
            if last:
                self.final = Counts(**json.loads(last[-1]))
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait(5)
        self._proc = None


def main(argv: Sequence[str]) -> int:
    """``bridge [--delay-ms D] [--jitter-ms J] [--loss P] [--seed S] PORT…`` or
    ``offloads-off IFACE…`` (run inside the namespace of the interfaces)."""
    import argparse

    default = Air()
    parser = argparse.ArgumentParser(prog="wifibridge")
    sub = parser.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("bridge")
    b.add_argument("--delay-ms", type=float, default=default.delay_ms)
    b.add_argument("--jitter-ms", type=float, default=default.jitter_ms)
    b.add_argument("--loss", type=float, default=default.loss)
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("ports", nargs="+")
    o = sub.add_parser("offloads-off")
    o.add_argument("ifaces", nargs="+")
    args = parser.parse_args(argv)
    if args.cmd == "offloads-off":
        for name in args.ifaces:
            offloads_off(name)
        return 0
    forward(args.ports, Air(delay_ms=args.delay_ms, jitter_ms=args.jitter_ms,
                            loss=args.loss, seed=args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
