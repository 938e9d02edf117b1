"""A peer look cut short before mDNS is up leaves the advertiser's future alone.

Newcomer QA: every rejoin while the host slept printed "(mDNS unavailable, this node
is not advertised: invalid state)": the runner's look for a peer (under a timeout)
awaited the future the in-play advertiser sets once zeroconf is up; the timeout
cancelled that future, the advertiser's ``set_result`` raised InvalidStateError, and
the node stopped advertising itself for the rest of the match."""

from __future__ import annotations

import asyncio

import pytest

from p2p8s.cli.table_play import _finder_when_ready


async def test_a_look_cut_short_before_mdns_is_up_leaves_the_future_to_its_advertiser(
        ) -> None:
    ready: asyncio.Future[object] = asyncio.get_running_loop().create_future()
    find = _finder_when_ready(ready, bytes(16))  # type: ignore[arg-type]
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(find(1, []), 0.01)
    assert not ready.done()  # before: cancelled with the look
    ready.set_result(None)  # the advertiser: mDNS unavailable
    assert await find(1, []) == []
