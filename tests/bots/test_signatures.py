"""Each personality's signature is measurable (seeded rounds; see signatures.py).

Numbers from 400 rounds are in the report; the test uses 150 rounds and margins.
"""

from __future__ import annotations

import pytest
from signatures import measure, summary


@pytest.fixture(scope="module")
def rates() -> dict[str, dict[str, float]]:
    return summary(measure(150))


def test_hanna_hoards_her_eights(rates: dict[str, dict[str, float]]) -> None:
    # never an 8 while another card fits; her 8s go out last more often than anyone's
    assert rates["Hanna"]["wild_early"] == 0.0
    for other in ("Karl", "Max", "Vera"):
        assert rates[other]["wild_early"] > rates["Hanna"]["wild_early"]
    assert rates["Hanna"]["hoard"] >= max(rates[o]["hoard"] for o in ("Karl", "Vera"))


def test_karl_sheds_expensive_cards_first(rates: dict[str, dict[str, float]]) -> None:
    assert rates["Karl"]["shed_max"] > 0.95
    for other in ("Hanna", "Max", "Vera"):
        assert rates["Karl"]["shed_max"] > rates[other]["shed_max"] + 0.3
        assert rates["Karl"]["early_value"] > rates[other]["early_value"]


def test_vera_attacks_players_close_to_going_out(rates: dict[str, dict[str, float]]) -> None:
    vera = rates["Vera"]
    assert vera["attack"] > 0.85 and vera["calm"] < 0.45
    for other in ("Hanna", "Karl", "Max"):
        gap = rates[other]["attack"] - rates[other]["calm"]
        assert vera["attack"] - vera["calm"] > gap + 0.3
        assert vera["calm"] < rates[other]["calm"]


def test_max_keeps_the_pile_in_suits_the_next_player_lacks(
        rates: dict[str, dict[str, float]]) -> None:
    for other in ("Hanna", "Karl", "Vera"):
        assert rates["Max"]["void"] > rates[other]["void"] + 0.15
