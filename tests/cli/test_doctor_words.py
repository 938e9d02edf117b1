"""The words of ``p2p8s doctor``: a report as the screen shows it, at 80 columns and in
ASCII; every cause fits in two lines of an 80-column terminal; join's fallback lines."""

from __future__ import annotations

import io

import pytest

from p2p8s.cli.doctor_cmd import _target, show
from p2p8s.cli.terminal import Terminal
from p2p8s.cli.words import PLAIN
from p2p8s.cli.words.doctor import DoctorLine
from p2p8s.errors import MalformedInput
from p2p8s.net.doctor import (
    Cause,
    Env,
    Heard,
    Iface,
    Reach,
    Report,
    causes,
    check_group,
    check_interfaces,
    check_reach,
    check_route,
    check_self_test,
    check_tables,
    parse_routes,
)
from p2p8s.rules import Ruleset

ROUTES = ("Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\tMTU\tWindow\tIRTT\n"
          "eth0\t00000000\t0101A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0\n")


class Screen(io.StringIO):
    """A terminal's output that writes UTF-8 (a bare StringIO has no encoding)."""

    encoding = "utf-8"


def _report() -> Report:
    ifaces = [Iface("lo", ("127.0.0.1",)), Iface("wlan0", ("192.168.1.20", "fe80::2")),
              Iface("wg0", ("10.8.0.2",))]
    findings = [*check_interfaces(ifaces),
                *check_route(parse_routes(ROUTES), source="192.168.1.20", error=None,
                             ifaces=ifaces),
                *check_group(joined=None, bound=None), check_self_test(seen_s=0.4, error=None),
                *check_tables([Heard(host="Ann", seated=2, seats=4, rules=Ruleset(),
                                     playing=False),
                               Heard(host="Bea", seated=3, seats=3,
                                     rules=Ruleset.for_preset("classic"), playing=True)],
                              listen_s=3.0),
                check_reach("192.168.1.7", 4242, Reach.TIMED_OUT)]
    return Report(findings=tuple(findings), causes=causes(findings, Env(system="Windows")))


def _shown(*, ascii: bool = False, width: int = 80) -> str:
    out = Screen()
    show(_report(), Terminal(out=out, ascii=ascii, width=width), listen_s=3.0,
         target=("192.168.1.7", 4242))
    return out.getvalue()


def test_a_report_as_the_screen_shows_it() -> None:
    assert _shown() == """
Network interfaces
  ✓ wlan0: 192.168.1.20 (local network)
  ✓ wg0: 10.8.0.2 (looks like a VPN)
  ! A VPN is on (wg0): it may take traffic away from the local network.
  ! Several networks are in use (wlan0, wg0): mDNS answers on each of them.

Multicast and mDNS
  ✓ Multicast follows the default route, by eth0.
  ! mDNS goes out by wlan0 (192.168.1.20): the others must be on that network.
  ✓ Joined the mDNS group 224.0.0.251, port 5353.
  ✓ mDNS self-test: this machine heard its own test service in 0.4 s.

Tables heard in 3 s
  ✓ 2 tables answered:
    · "Ann's table" (as it announces itself): 2/4 seated, table rules,
      multi-play, draw limit 3
    · "Bea's table" (as it announces itself), in play with 3 players: classic,
      multi-play, draw limit 3

Reaching 192.168.1.7:4242
  ✗ No answer within 3 s: something drops the connection on the way.

What to try
  - On Windows, a network marked Public hides this machine: make it Private in
    Settings, and answer Allow when the firewall asks about Python.
  - The host's firewall may drop the connection: on the host, allow Python
    through it.
  - A guest Wi-Fi or client isolation keeps devices apart: use the main network,
    or turn isolation off on the router.
  - A VPN may carry the traffic away: turn it off, or allow local network access
    in its settings.

1 check failed.
"""


def test_ascii_marks_and_no_wider_than_the_terminal() -> None:
    text = _shown(ascii=True)
    assert text.isascii()
    assert "  ok wlan0: 192.168.1.20" in text and "  XX No answer" in text
    assert "  !! A VPN is on" in text and "    - \"Ann's table\" (as it announces itself)" in text
    for width in (80, 60):
        assert max(len(line) for line in _shown(width=width).splitlines()) <= width


@pytest.mark.parametrize("cause", list(Cause))
def test_every_cause_is_a_short_sentence_with_what_to_do(cause: Cause) -> None:
    said = PLAIN.say(cause)
    assert said.endswith((".", "PORT")) and ":" in said  # the cause: what to do
    assert len(f"  - {said}") <= 2 * 80


def test_join_says_what_to_type_when_mdns_finds_nothing() -> None:
    assert PLAIN.say(DoctorLine.JOIN_NOTHING, code="QZ7K2M", timeout_s=8.0) == (
        "no table with code QZ7K2M answered by mDNS within 8 s.\n"
        "  Ask the host for the line its screen shows and type it: "
        "p2p8s join QZ7K2M@HOST:PORT\n"
        "  To see why this network hides tables, run: p2p8s doctor")
    assert PLAIN.say(DoctorLine.JOIN_DIRECT, where="[fd00::7]:4242") == (
        "Going straight to [fd00::7]:4242 (no mDNS look-up).")


def test_the_target_is_an_address_or_an_invite() -> None:
    assert _target(None) is None
    assert _target("192.168.1.7:4242") == ("192.168.1.7", 4242)
    assert _target("qz7k2m@192.168.1.7:4242") == ("192.168.1.7", 4242)
    assert _target("p2p8s://QZ7K2M@[fd00::7]:4242") == ("fd00::7", 4242)
    with pytest.raises(MalformedInput):
        _target("192.168.1.7")


def test_a_target_without_a_host_or_a_bare_code_says_what_is_missing() -> None:
    with pytest.raises(MalformedInput) as info:
        _target(":35021")
    assert PLAIN.error(info.value) == ("the address needs a host before the port, like "
                                       "192.168.1.20:35021 (in ':35021')")
    with pytest.raises(MalformedInput) as info:
        _target("qz7k2m")
    assert PLAIN.error(info.value).startswith(
        "QZ7K2M is a table code, not an address: give HOST:PORT or CODE@HOST:PORT")
    with pytest.raises(MalformedInput) as info:
        _target("localhost")  # a host name alone still asks for the port
    assert PLAIN.error(info.value).startswith("the address needs a port")


def test_container_advice_only_when_a_check_failed() -> None:
    boxed = Env(system="Linux", container=True)
    fine = [*check_interfaces([Iface("lo", ("127.0.0.1",)),
                               Iface("eth0", ("192.168.1.20",))]),
            check_self_test(seen_s=0.1, error=None)]
    assert Cause.CONTAINER not in causes([*fine, *check_tables([], listen_s=3.0)], boxed)
    # refused: the machine is there, the path works; the container is not to blame
    assert causes([*fine, check_reach("192.168.1.7", 4242, Reach.REFUSED)], boxed) == (
        Cause.NOTHING_LISTENS,)
    assert causes([*fine, check_reach("192.168.1.7", 4242, Reach.TIMED_OUT)], boxed) == (
        Cause.CONTAINER, Cause.HOST_FIREWALL, Cause.ISOLATION)
    assert causes([*fine, check_reach("printer", 4242, Reach.UNKNOWN_HOST)], boxed) == (
        Cause.CHECK_NAME,)
    assert causes([*fine, check_reach("192.168.1.7", 22, Reach.NOT_P2P8S)], boxed) == (
        Cause.WRONG_PORT,)


def test_adverts_claiming_one_table_id_are_said_as_tables_says_them() -> None:
    from p2p8s.net.doctor import DoctorCode

    assert PLAIN.say(DoctorCode.SAME_ID, n=3) == (
        "(these 3 adverts claim one table id: at most one is that table, and only the "
        "code tells which; join tries each)")
