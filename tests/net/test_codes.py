"""Codes, fingerprints and join links (protocol/vectors/wire_codes.json)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2p8s.cli.words import PLAIN
from p2p8s.codes import (
    ALPHABET,
    fingerprint,
    format_link,
    new_code,
    normalize_code,
    parse_invite,
)
from p2p8s.errors import MalformedInput

from .said import raises_saying
from .vectors import CODES

VECTORS = json.loads(CODES.read_text())


@pytest.mark.parametrize("case", VECTORS["new_code"], ids=lambda c: c["random_hex"])
def test_new_code_vectors(case: dict[str, str]) -> None:
    assert new_code(bytes.fromhex(case["random_hex"])) == case["code"]


@pytest.mark.parametrize("case", VECTORS["normalize"], ids=lambda c: c["typed"])
def test_normalize_vectors(case: dict[str, str]) -> None:
    assert normalize_code(case["typed"]) == case["code"]


@pytest.mark.parametrize("text", VECTORS["malformed"])
def test_malformed_codes_are_refused_clearly(text: str) -> None:
    with raises_saying(MalformedInput, "code"):
        normalize_code(text)


def test_messages_name_the_problem() -> None:
    with raises_saying(MalformedInput, "6 characters, '7KQ4M' has 5"):
        normalize_code("7KQ4M")
    with raises_saying(MalformedInput, "not 'U'"):
        normalize_code("7KQ4MU")


def test_lowercase_and_lookalikes_are_the_same_code() -> None:
    """The normalized code is the SPAKE2 password: look-alikes must meet at one table."""
    assert normalize_code("i0l0oo") == normalize_code("101000") == "101000"


@pytest.mark.parametrize("case", VECTORS["fingerprint"], ids=lambda c: c["key_hex"][:8])
def test_fingerprint_vectors(case: dict[str, str]) -> None:
    assert fingerprint(bytes.fromhex(case["key_hex"])) == case["fingerprint"]


@pytest.mark.parametrize("case", VECTORS["links"], ids=lambda c: c["text"])
def test_link_vectors(case: dict[str, object]) -> None:
    invite = parse_invite(str(case["text"]))
    assert (invite.code, invite.host, invite.port) == (case["code"], case["host"], case["port"])


@pytest.mark.parametrize("text", VECTORS["bad_links"])
def test_bad_links_are_malformed_input(text: str) -> None:
    with pytest.raises(MalformedInput):
        parse_invite(text)


@given(st.binary(min_size=4, max_size=4))
def test_new_codes_are_canonical(random: bytes) -> None:
    code = new_code(random)
    assert len(code) == 6 and set(code) <= set(ALPHABET)
    assert normalize_code(code.lower()) == code


@given(st.text(max_size=40))
def test_any_text_parses_or_is_malformed(text: str) -> None:
    try:
        invite = parse_invite(text)
    except MalformedInput:
        return
    assert normalize_code(invite.code) == invite.code


@given(st.sampled_from(["10.0.0.7", "fd00::1", "ann.local"]), st.integers(1, 65535))
def test_format_link_round_trips(host: str, port: int) -> None:
    invite = parse_invite(format_link("7KQ4MX", host, port))
    assert (invite.host, invite.port) == (host, port)


def test_a_pasted_page_is_not_echoed_back_in_full() -> None:
    from p2p8s.codes import parse_invite

    with pytest.raises(MalformedInput) as info:
        parse_invite("A" * 5000)
    said = PLAIN.error(info.value)
    assert len(said) < 120 and "(5000 characters)" in said
