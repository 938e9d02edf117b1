"""``p2p8s doctor``'s checks and the choice of likely causes, from made-up inputs; the
TCP probe against a real listening and a real closed port."""

from __future__ import annotations

import asyncio
import ipaddress
import socket

import pytest

from p2p8s.net.doctor import (
    Cause,
    DoctorCode,
    Env,
    Finding,
    Heard,
    Iface,
    IfaceKind,
    Reach,
    Report,
    Route,
    Section,
    Status,
    causes,
    check_group,
    check_interfaces,
    check_reach,
    check_route,
    check_self_test,
    check_tables,
    follow_heard,
    parse_routes,
    read_env,
)
from p2p8s.net.doctor_probes import probe_reach, what_answers
from p2p8s.rules import Ruleset

LINUX = Env(system="Linux")
LO = Iface("lo", ("127.0.0.1", "::1"))
ETH = Iface("eth0", ("192.168.1.20", "fe80::1%eth0"))
WIFI = Iface("wlan0", ("10.0.0.7",))
WG = Iface("wg0", ("10.8.0.2",))

#: /proc/net/route of a home LAN machine: default route, its /24, and a 224/4 route.
ROUTES = """\
Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
eth0\t00000000\t0101A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0
eth0\t0001A8C0\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0
wg0\t000000E0\t00000000\t0001\t0\t0\t0\t000000F0\t0\t0\t0
eth1\t0000000A\t00000000\t0000\t0\t0\t0\t000000FF\t0\t0\t0
broken line
"""


def codes(findings: list[Finding]) -> list[tuple[Status, DoctorCode]]:
    return [(f.status, f.code) for f in findings]


# --- interfaces ------------------------------------------------------------------------

def test_one_lan_interface_passes_and_loopback_is_left_out() -> None:
    found = check_interfaces([LO, ETH])
    assert codes(found) == [(Status.OK, DoctorCode.IFACE)]
    assert found[0].params == {"name": "eth0", "addresses": ("192.168.1.20",),
                               "kind": IfaceKind.LAN}


def test_loopback_only_fails() -> None:
    assert codes(check_interfaces([LO])) == [(Status.FAIL, DoctorCode.LOOPBACK_ONLY)]
    assert codes(check_interfaces([])) == [(Status.FAIL, DoctorCode.NO_INTERFACES)]


def test_link_local_only_fails_naming_the_interface() -> None:
    found = check_interfaces([LO, Iface("eth0", ("169.254.3.4",))])
    assert codes(found) == [(Status.WARN, DoctorCode.IFACE),
                            (Status.FAIL, DoctorCode.LINK_LOCAL_ONLY)]
    assert found[0].params["kind"] is IfaceKind.LINK_LOCAL
    assert found[1].params == {"names": ("eth0",)}


def test_a_vpn_and_several_networks_warn() -> None:
    found = check_interfaces([LO, ETH, WIFI, WG, Iface("docker0", ("172.17.0.1",))])
    assert codes(found) == [(Status.OK, DoctorCode.IFACE)] * 4 + [
        (Status.WARN, DoctorCode.VPN), (Status.WARN, DoctorCode.SEVERAL)]
    assert [f.params["kind"] for f in found[:4]] == [IfaceKind.LAN, IfaceKind.LAN,
                                                     IfaceKind.VPN, IfaceKind.VIRTUAL]
    assert found[4].params == {"names": ("wg0",)}
    assert found[5].params == {"names": ("eth0", "wlan0", "wg0")}  # no container bridge


def test_macos_utun_is_a_vpn_once_it_has_an_address() -> None:
    found = check_interfaces([Iface("en0", ("192.168.1.4",)), Iface("utun3", ("10.2.0.1",))])
    assert (Status.WARN, DoctorCode.VPN) in codes(found)
    idle = [Iface("en0", ("192.168.1.4", "fe80::4")), Iface("awdl0", ("fe80::9",)),
            Iface("utun0", ("fe80::7",)), Iface("llw0", ("fe80::8",))]
    assert codes(check_interfaces(idle)) == [(Status.OK, DoctorCode.IFACE)]


def test_windows_adapters_are_known_by_their_descriptions() -> None:
    found = check_interfaces([Iface("Intel(R) Wi-Fi 6 AX201", ("192.168.1.4",)),
                              Iface("WireGuard Tunnel", ("10.2.0.1",)),
                              Iface("vEthernet (WSL)", ("172.20.0.1",))])
    assert [f.params.get("kind") for f in found[:3]] == [
        IfaceKind.LAN, IfaceKind.VPN, IfaceKind.VIRTUAL]


# --- routes and the group -------------------------------------------------------------

def test_parse_routes_reads_proc_net_route() -> None:
    routes = parse_routes(ROUTES)
    assert routes == [
        Route("eth0", ipaddress.IPv4Network("0.0.0.0/0")),
        Route("eth0", ipaddress.IPv4Network("192.168.1.0/24")),
        Route("wg0", ipaddress.IPv4Network("224.0.0.0/4"))]  # eth1's route is down


def test_the_multicast_route_wins_over_the_default_route() -> None:
    found = check_route(parse_routes(ROUTES), source="10.8.0.2", error=None,
                        ifaces=[ETH, WG])
    assert codes(found) == [(Status.OK, DoctorCode.ROUTE_MULTICAST),
                            (Status.WARN, DoctorCode.MDNS_LEAVES_BY)]
    assert found[0].params == {"name": "wg0"}
    assert found[1].params == {"name": "wg0", "address": "10.8.0.2"}


def test_multicast_follows_the_default_route() -> None:
    found = check_route(parse_routes(ROUTES)[:2], source="192.168.1.20", error=None,
                        ifaces=[LO, ETH])
    assert codes(found) == [(Status.OK, DoctorCode.ROUTE_DEFAULT),
                            (Status.OK, DoctorCode.MDNS_LEAVES_BY)]
    assert found[1].params == {"name": "eth0", "address": "192.168.1.20"}


def test_no_route_fails_with_the_socket_layers_refusal() -> None:
    found = check_route([], source=None, error="ENETUNREACH", ifaces=[LO])
    assert codes(found) == [(Status.FAIL, DoctorCode.NO_ROUTE)]
    assert found[0].params == {"error": "ENETUNREACH"}


def test_without_a_route_table_the_socket_layer_decides() -> None:
    found = check_route(None, source="192.168.1.20", error=None, ifaces=[ETH])
    assert codes(found)[0] == (Status.OK, DoctorCode.ROUTE_SOCKET)


def test_the_group_join() -> None:
    assert codes(check_group(joined=None, bound=None)) == [(Status.OK,
                                                            DoctorCode.GROUP_JOINED)]
    assert codes(check_group(joined="ENODEV", bound="EADDRINUSE")) == [
        (Status.FAIL, DoctorCode.GROUP_FAILED), (Status.WARN, DoctorCode.PORT_BUSY)]


def test_the_self_test() -> None:
    assert check_self_test(seen_s=0.3, error=None).status is Status.OK
    assert check_self_test(seen_s=None, error=None).code is DoctorCode.SELF_NOT_SEEN
    assert check_self_test(seen_s=None, error="boom").code is DoctorCode.SELF_ERROR


def test_tables_heard_and_none() -> None:
    ann = Heard(host="Ann", seated=1, seats=3, rules=Ruleset(), playing=False)
    found = check_tables([ann], listen_s=3.0)
    assert codes(found) == [(Status.OK, DoctorCode.TABLES_HEARD), (Status.OK,
                                                                    DoctorCode.TABLE)]
    assert found[1].params == {"table": ann}
    assert codes(check_tables([], listen_s=3.0)) == [(Status.WARN, DoctorCode.NO_TABLES)]
    assert codes(check_tables(None, listen_s=3.0, error="x")) == [
        (Status.FAIL, DoctorCode.LISTEN_ERROR)]


@pytest.mark.parametrize(("outcome", "status", "code"), [
    (Reach.OPEN, Status.OK, DoctorCode.REACHED),
    (Reach.REFUSED, Status.FAIL, DoctorCode.REFUSED),
    (Reach.TIMED_OUT, Status.FAIL, DoctorCode.TIMED_OUT),
    (Reach.NO_ROUTE, Status.FAIL, DoctorCode.UNREACHABLE),
    (Reach.UNKNOWN_HOST, Status.FAIL, DoctorCode.UNKNOWN_HOST),
    (Reach.OTHER, Status.FAIL, DoctorCode.CONNECT_ERROR)])
def test_each_tcp_outcome_has_its_finding(outcome: Reach, status: Status,
                                          code: DoctorCode) -> None:
    found = check_reach("192.168.1.7", 4242, outcome)
    assert (found.section, found.status, found.code) == (Section.REACH, status, code)


# --- the environment ------------------------------------------------------------------

def test_read_env_spots_wsl_and_containers() -> None:
    assert read_env(system="Linux", proc_version="Linux version 6.1 (gcc)") == LINUX
    assert read_env(system="Linux", proc_version="Linux version 5.15.153.1-microsoft-"
                    "standard-WSL2").wsl
    assert read_env(system="Linux", dockerenv=True).container
    assert read_env(system="Linux", containerenv=True).container
    assert read_env(system="Linux", cgroup="0::/system.slice/docker-3f2a.scope").container
    assert not read_env(system="Linux", cgroup="0::/user.slice/user-1000.slice").container


# --- the likely causes ----------------------------------------------------------------

def _fine() -> list[Finding]:
    return [*check_interfaces([LO, ETH]),
            *check_route(parse_routes(ROUTES)[:2], source="192.168.1.20", error=None,
                         ifaces=[LO, ETH]),
            *check_group(joined=None, bound=None), check_self_test(seen_s=0.1, error=None)]


def _heard() -> list[Finding]:
    return check_tables([Heard(host="Ann", seated=1, seats=3, rules=Ruleset(),
                               playing=False)], listen_s=3.0)


def test_nothing_wrong_no_causes() -> None:
    assert causes([*_fine(), *_heard()], LINUX) == ()
    assert causes([*_fine(), *_heard()], Env(system="Windows", wsl=True)) == ()


def test_mdns_works_here_but_nothing_heard_is_isolation() -> None:
    found = [*_fine(), *check_tables([], listen_s=3.0)]
    assert causes(found, LINUX) == (Cause.ISOLATION, Cause.TYPE_ADDRESS)


def test_windows_and_macos_add_their_own_causes() -> None:
    found = [*_fine(), *check_tables([], listen_s=3.0)]
    assert causes(found, Env(system="Windows")) == (
        Cause.ISOLATION, Cause.WINDOWS_PROFILE, Cause.TYPE_ADDRESS)
    assert causes(found, Env(system="Darwin")) == (
        Cause.ISOLATION, Cause.MACOS_PERMISSION, Cause.TYPE_ADDRESS)


def test_a_broken_self_test_blames_the_local_firewall_unless_boxed() -> None:
    broken = [*_fine()[:-1], check_self_test(seen_s=None, error=None),
              *check_tables([], listen_s=3.0)]
    assert causes(broken, LINUX) == (Cause.LOCAL_FIREWALL, Cause.TYPE_ADDRESS)
    assert causes(broken, Env(system="Linux", wsl=True)) == (Cause.WSL, Cause.TYPE_ADDRESS)
    assert causes(broken, Env(system="Linux", container=True)) == (
        Cause.CONTAINER, Cause.TYPE_ADDRESS)


def test_loopback_only_says_connect_first() -> None:
    found = [*check_interfaces([LO]), *check_route([], source=None, error="ENETUNREACH"),
             *check_group(joined="ENODEV", bound=None), *check_tables([], listen_s=1.0)]
    assert causes(found, LINUX) == (Cause.NOT_CONNECTED, Cause.TYPE_ADDRESS)


def test_the_tcp_outcome_picks_its_cause() -> None:
    for outcome, expected in ((Reach.REFUSED, (Cause.NOTHING_LISTENS,)),
                              (Reach.TIMED_OUT, (Cause.HOST_FIREWALL, Cause.ISOLATION)),
                              (Reach.NO_ROUTE, (Cause.OTHER_NETWORK,)),
                              (Reach.OPEN, ())):
        found = [*_fine(), *_heard(), check_reach("192.168.1.7", 4242, outcome)]
        assert causes(found, LINUX) == expected, outcome


def test_a_vpn_is_named_before_several_networks() -> None:
    found = [*check_interfaces([LO, ETH, WG]), *check_tables([], listen_s=3.0)]
    assert causes(found, LINUX) == (Cause.ISOLATION, Cause.VPN, Cause.TYPE_ADDRESS)
    found = [*check_interfaces([LO, ETH, WIFI]), *check_tables([], listen_s=3.0)]
    assert causes(found, LINUX) == (Cause.ISOLATION, Cause.SEVERAL, Cause.TYPE_ADDRESS)


# --- the TCP probe, over real sockets -------------------------------------------------

async def test_probe_reach_a_listening_port() -> None:
    server = await asyncio.start_server(lambda r, w: w.close(), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        assert await probe_reach("127.0.0.1", port) == (Reach.OPEN, None)


async def test_probe_reach_a_closed_port() -> None:
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert await probe_reach("127.0.0.1", port) == (Reach.REFUSED, None)



def _no_default_path() -> list[Finding]:
    """What a namespace without a multicast route finds (issue 14): no route, no group
    on the default interface."""
    return [*check_interfaces([LO, ETH]), *check_route([], source=None, error="ENETUNREACH"),
            *check_group(joined="ENODEV", bound=None)]


def test_the_default_path_is_a_note_once_mdns_was_heard() -> None:
    for heard, expected in (
            # heard itself, no table: as where mDNS works and nobody is heard
            ([check_self_test(seen_s=0.2, error=None), *check_tables([], listen_s=3.0)],
             (Cause.ISOLATION, Cause.TYPE_ADDRESS)),
            ([check_self_test(seen_s=0.2, error=None), *_heard()], ())):
        found = follow_heard([*_no_default_path(), *heard])
        notes = [f for f in found if f.code in (DoctorCode.NO_ROUTE, DoctorCode.GROUP_FAILED)]
        # "nothing to fix": not among the lines that may explain trouble
        assert [(f.status, f.params.get("heard")) for f in notes] == [
            (Status.OK, True), (Status.OK, True)]
        assert causes(found, LINUX) == expected
    found = follow_heard([*_no_default_path(), *_heard()])
    report = Report(findings=tuple(found), causes=causes(found, LINUX))
    assert (report.failed, report.warned) == (0, 0)  # the notes are not "trouble"


def test_several_open_adverts_of_one_table_id_are_warned_of() -> None:
    def uma(tid: str, playing: bool = False) -> Heard:
        return Heard(host="Uma", seated=1, seats=4, rules=Ruleset(), playing=playing,
                     table_id=tid)

    found = check_tables([uma("aa"), uma("aa"), uma("aa"), uma("bb")], listen_s=3.0)
    assert codes(found) == [(Status.OK, DoctorCode.TABLES_HEARD),
                            *[(Status.OK, DoctorCode.TABLE)] * 3,
                            (Status.WARN, DoctorCode.SAME_ID),
                            (Status.OK, DoctorCode.TABLE)]
    assert found[4].params == {"n": 3}
    # one advert per id, or a table in play: no warning
    assert DoctorCode.SAME_ID not in {f.code for f in check_tables(
        [uma("aa"), uma("bb"), uma("cc", playing=True)], listen_s=3.0)}


def test_nothing_heard_keeps_the_default_path_a_failure() -> None:
    found = follow_heard([*_no_default_path(), check_self_test(seen_s=None, error=None),
                          *check_tables([], listen_s=3.0)])
    assert [f.status for f in found if f.code is DoctorCode.NO_ROUTE] == [Status.FAIL]
    assert causes(found, LINUX)[-1] is Cause.TYPE_ADDRESS
    # loopback only: the self-test is heard over loopback, which proves nothing
    found = follow_heard([*check_interfaces([LO]),
                          *check_route([], source=None, error="ENETUNREACH"),
                          check_self_test(seen_s=0.0, error=None)])
    assert [f.status for f in found if f.code is DoctorCode.NO_ROUTE] == [Status.FAIL]


def test_what_answers_tells_a_p2p8s_node_without_the_code() -> None:
    from p2p8s.net.handshake import busy_record

    assert what_answers(b"") is Reach.OPEN
    assert what_answers((58).to_bytes(4, "big") + b"\x03") is Reach.TABLE
    assert what_answers(busy_record(4)) is Reach.TABLE_BUSY
    assert what_answers(b"SSH-2.0-OpenSSH_9.6\r\n") is Reach.NOT_P2P8S
    assert what_answers(b"\x00\x00") is Reach.OPEN  # cut short: cannot tell
    assert what_answers(b"HT") is Reach.NOT_P2P8S


async def test_probe_reach_tells_a_table_from_another_program() -> None:
    async def table(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write((58).to_bytes(4, "big") + b"\x03" + bytes(57))  # a clear hello

    async def ssh(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"SSH-2.0-OpenSSH_9.6\r\n")

    for handler, outcome in ((table, Reach.TABLE), (ssh, Reach.NOT_P2P8S)):
        server = await asyncio.start_server(handler, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server:
            assert await probe_reach("127.0.0.1", port) == (outcome, None)
