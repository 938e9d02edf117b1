"""How a lost player comes back through this node: ``p2p8s join CODE@HOST:PORT`` at the
address this node has now (it may have changed since the deal: a laptop that moved to
another Wi-Fi, a DHCP lease renewed with a new address)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from p2p8s.cli.words import PLAIN
from p2p8s.cli.words.net import Line
from p2p8s.codes import format_address
from p2p8s.net.discovery import lan_addresses

#: What :func:`~p2p8s.net.discovery.lan_addresses` gives when there is nothing else.
LOOPBACK = "127.0.0.1"


def where_now(dealt: Sequence[str], port: int, current: Sequence[str]) -> str:
    """``HOST:PORT`` of this node now: the first address it was dealt at (the roster's)
    that it still has, else its first current address (``current``, as
    :func:`~p2p8s.net.discovery.lan_addresses` gives them; the port does not change) —
    but while it has none but loopback (between two leases) the one it was dealt at."""
    lan = [a for a in current if a != LOOPBACK]
    host = next((a for a in dealt if a in current), lan[0] if lan else None)
    if host is None:
        host = dealt[0] if dealt else LOOPBACK
    return format_address(host, port)


def come_back_command(code: str, dealt: Sequence[str], port: int, *, mdns: bool,
                      addresses: Callable[[], list[str]] = lan_addresses
                      ) -> Callable[[], str]:
    """The command a lost player runs to come back through this node, at its address
    when asked (``mdns``: the code alone finds the table too, and is said first)."""
    def command() -> str:
        where = where_now(dealt, port, addresses())
        return PLAIN.say(Line.COME_BACK if mdns else Line.COME_BACK_LINK, code=code,
                         where=where)
    return command
