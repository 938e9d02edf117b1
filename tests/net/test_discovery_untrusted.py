"""An advert is nobody's word: its text is printed only cleaned and as a claim, and each
advert is tried at its own addresses (issue 14: a fake advert that cleared the screen
and showed a phishing line, and one that merged its addresses with the real table's)."""

from __future__ import annotations

import ipaddress

from p2p8s.cli.words import PLAIN
from p2p8s.cli.words.doctor import DoctorCode
from p2p8s.cli.words.net import Line
from p2p8s.net.discovery import TableCard, candidates, untrusted_text
from p2p8s.net.doctor import Heard
from p2p8s.rules import Ruleset

#: The name of the fake advert QA sent: clear the screen, red, a command to run.
EVIL = "Evil\x1b[2J\x1b[31mRED PHISH: run p2p8s join QZ7K2M@198.51.100.7:4242"
ANN_FP = "VF4V-CF6P-QCWQ-ZC3D"


def _txt(host: str, **more: str) -> dict[str, str | None]:
    return {"v": "3", "id": "ab" * 8, "host": host, "rules": "table", "seats": "5",
            "free": "4", "fp": ANN_FP, **more}


def test_untrusted_text_drops_controls_and_bidi_and_is_capped() -> None:
    assert untrusted_text("Ann\x1b[2J\x07") == "Ann[2J"
    assert untrusted_text("\u202eelgooG\u202c \u2066x\u2069\u200b") == "elgooG x"
    assert untrusted_text("a\r\nb\u2028c\tq") == "a b c q"
    assert untrusted_text("Ｐ２") == "P2"  # NFKC: full-width letters are letters
    cut = untrusted_text("x" * 100)
    assert len(cut) == 32 and cut.endswith("…")


def test_a_card_from_the_network_holds_only_printable_text() -> None:
    card = TableCard.from_txt(_txt(EVIL, play="1", seat="1", owner="Eve\x1b[0m\u202e"))
    assert card.host_name.isprintable() and "\x1b" not in card.host_name
    assert len(card.host_name) <= 32
    assert card.owner == "Eve[0m"
    assert TableCard.from_txt(_txt("Ann", fp="\x1b[2J")).fingerprint == ""


def test_the_fake_advert_neither_clears_the_screen_nor_shows_its_command() -> None:
    card = TableCard.from_txt(_txt(EVIL), addresses=("10.214.0.3",), port=4242)
    listed = PLAIN.say(Line.CARD_OPEN, card=card)
    assert "\x1b" not in listed and "p2p8s" not in listed and "QZ7K2M" not in listed
    assert listed.startswith("  a table whose name reads like a command (not shown)  ")
    assert f"claims key {ANN_FP}" in listed  # anyone can copy Ann's fingerprint
    heard = Heard(host=card.host_name, seated=1, seats=5, rules=Ruleset(), playing=False)
    said = PLAIN.say(DoctorCode.TABLE, table=heard)
    assert "\x1b" not in said and "p2p8s" not in said
    assert said.startswith("a table whose name reads like a command (not shown): 1/5")


def test_an_honest_name_is_shown_quoted_as_a_claim() -> None:
    card = TableCard.from_txt(_txt('Ann "the host"'), addresses=("10.0.0.5",), port=4242)
    assert PLAIN.say(Line.CARD_OPEN, card=card).startswith(
        "  \"Ann 'the host''s table\" (as it announces itself)  1/5 seated, 4 free")


def _card(port: int, *addresses: str, table: str = "ab" * 8) -> TableCard:
    return TableCard(version=3, table_id=table, host_name="Ann", rules=Ruleset(), seats=5,
                     free=4, fingerprint=ANN_FP, addresses=addresses, port=port)


def test_each_advert_is_one_candidate_at_its_own_port() -> None:
    fake, real = _card(4242, "10.214.0.3"), _card(35021, "10.214.0.1", "fd00::1")
    other = _card(4000, "192.0.2.9", table="cd" * 8)
    local = [ipaddress.ip_network("10.214.0.0/24")]
    tried = candidates([fake, real, other, _card(0, "10.214.0.7")], local=local)
    assert [c.where for c in tried] == [
        (("10.214.0.3", 4242),), (("10.214.0.1", 35021), ("fd00::1", 35021)),
        (("192.0.2.9", 4000),)]  # no address with another advert's port; no port 0
    # the adverts of one table id with an address on this machine's network go first
    tried = candidates([_card(4000, "192.0.2.9"), _card(35021, "fd00::1", "10.214.0.1")],
                       local=local)
    assert [c.where for c in tried] == [(("10.214.0.1", 35021), ("fd00::1", 35021)),
                                        (("192.0.2.9", 4000),)]
