"""House rules on the command line and on the table card: ``--rules PRESET`` with single
rules on top (p2p8s.cli.house), the TXT encoding of the ruleset (p2p8s.net.discovery),
the lobby's words for the changes, and the remembered play settings."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from p2p8s.cli.house import PRESETS, HouseChoice
from p2p8s.cli.main import cli
from p2p8s.cli.net_cmd import table_rules
from p2p8s.cli.words import PLAIN
from p2p8s.cli.words.net import Line
from p2p8s.cli.words.rules import describe_changes, describe_rules
from p2p8s.net.discovery import NotATableCard, TableCard, rules_from_txt, rules_to_txt
from p2p8s.rules import Ruleset
from p2p8s.store.settings import PlaySettings
from p2p8s.table.config import TableConfig
from p2p8s.table.harness import make_config

SINGLES = [{}, {"multi_play": False}, {"draw_limit": 0}, {"draw_limit": 5},
           {"draw_when_playable": True}, {"reshuffle": False}, {"target": 250},
           {"hand_size": 6}, {"multi_play": False, "draw_limit": 1, "draw_when_playable": True,
            "reshuffle": False, "target": 1000, "hand_size": 8}]


def _presets_with(singles: dict[str, object]) -> list[Ruleset]:
    return [Ruleset.for_preset(name, **{k: v for k, v in singles.items()
                                       if not (name == "countdown" and k == "target")})
            for name in PRESETS
            if not (name == "countdown" and "hand_size" in singles)]


# ---------------------------------------------------------------- the TXT record


@pytest.mark.parametrize("singles", SINGLES)
def test_every_preset_and_change_round_trips_through_txt(singles: dict[str, object]) -> None:
    for rules in _presets_with(singles):
        text = rules_to_txt(rules)
        assert rules_from_txt(text) == rules, text
        assert len(text.encode()) < 64  # far under the 255 bytes of a TXT string
        assert text.split(";")[0] == rules.name
        card = TableCard(version=2, table_id="ab" * 8, host_name="Ann", rules=rules,
                         seats=4, free=3, fingerprint="F" * 19)
        txt = card.to_txt()
        assert TableCard.from_txt(dict(txt)).rules == rules
        # the whole record stays far under what one mDNS packet carries
        assert sum(len(k) + len(v) + 2 for k, v in txt.items()) < 200


@pytest.mark.parametrize("singles", SINGLES)
def test_every_preset_and_change_round_trips_through_the_table_setup(
        singles: dict[str, object]) -> None:
    configs = [make_config(4, rules=rules) for rules in _presets_with(singles)]
    for config in configs:
        assert TableConfig.from_bytes(config.to_bytes()) == config
    # every ruleset has its own setup bytes: a node under other rules is named
    assert len({c.to_bytes() for c in configs}) == len(configs)


def test_an_unchanged_preset_is_just_its_name() -> None:
    assert rules_to_txt(Ruleset()) == "table"
    assert rules_to_txt(Ruleset.classic(multi_play=False, target=200)) == "classic;m=0;t=200"
    assert rules_to_txt(Ruleset.for_preset("zimbabwe", draw_limit=2, hand_size=6,
                                           target=200)) == "zimbabwe;d=2;h=6;t=200"


def test_an_older_card_with_json_rules_still_reads() -> None:
    old = json.dumps(Ruleset.classic(target=200).to_dict(), separators=(",", ":"))
    assert rules_from_txt(old) == Ruleset.classic(target=200)


@pytest.mark.parametrize("text", ["poker", "table;m=2", "table;q=1", "table;d=-1",
                                  "classic;t=x", ""])
def test_a_bad_rules_value_is_not_a_table_card(text: str) -> None:
    txt = TableCard(version=2, table_id="ab" * 8, host_name="Ann", rules=Ruleset(),
                    seats=4, free=3, fingerprint="F" * 19).to_txt()
    txt["rules"] = text
    with pytest.raises(NotATableCard):
        TableCard.from_txt(dict(txt))


# ---------------------------------------------------------------- the words


def test_the_lobby_names_each_change_from_the_preset() -> None:
    assert describe_changes(Ruleset()) == ""
    assert describe_changes(Ruleset(target=100), players=3) == ""  # the table default
    assert describe_changes(Ruleset(target=200), players=3) == "target 200"
    zim = Ruleset.for_preset("zimbabwe", hand_size=6, draw_limit=2)
    assert describe_changes(zim) == "draw limit 2, hand size 6"
    assert describe_rules(zim) == ("zimbabwe, multi-play, draw limit 2, may draw when able "
                                   "to play, hand size 6")
    card = TableCard(version=2, table_id="ab" * 8, host_name="Ann", rules=zim, seats=4,
                     free=3, fingerprint="F" * 19, addresses=("10.0.0.2",), port=4000)
    listed = PLAIN.say(Line.CARD_OPEN, card=card)
    assert "zimbabwe, multi-play, draw limit 2" in listed
    assert "(changed from zimbabwe: draw limit 2, hand size 6)" in listed
    rules = Ruleset.classic(multi_play=False, draw_limit=0, draw_when_playable=True,
                            reshuffle=False)
    assert describe_changes(rules) == ("one card a turn, draw until playable, may draw when "
                                       "able to play, no reshuffle")
    assert describe_rules(rules).startswith("classic, one card a turn, draw until playable")


# ---------------------------------------------------------------- the options


def test_house_choice_builds_the_preset_with_single_rules() -> None:
    rules = HouseChoice(preset="classic", multi=False, draw_limit=0,
                        draw_when_playable=True, reshuffle=False, target=77).ruleset()
    assert rules == Ruleset.classic(multi_play=False, draw_limit=0, draw_when_playable=True,
                                    reshuffle=False, target=77)
    assert HouseChoice().ruleset() == Ruleset()
    assert HouseChoice(countdown=True).ruleset().countdown
    assert HouseChoice(classic=False).chosen_preset() == "table"


def test_the_host_plays_to_the_friends_table_target_unless_told() -> None:
    assert table_rules(HouseChoice(), 4).target == 100
    assert table_rules(HouseChoice(target=300), 4).target == 300
    assert table_rules(HouseChoice(preset="countdown"), 4).target is None


@pytest.mark.parametrize(("args", "message"), [
    (["--rules", "table", "--classic"], "--rules table and --classic contradict each other"),
    (["--rules", "countdown", "--target", "200"], "--target means nothing in countdown"),
    (["--rules", "bridge"], "'bridge' is not one of 'table', 'classic', 'countdown'"),
    (["--draw-limit", "-1"], "-1 is not in the range x>=0"),
    (["--target", "0"], "0 is not in the range x>=1"),
    (["--hand-size", "0"], "0 is not in the range 1<=x<=12"),
    (["--rules", "countdown", "--hand-size", "5"], "--hand-size means nothing in countdown"),
    (["--seats", "5", "--hand-size", "11"], "--hand-size 11 cannot be dealt to 5 players "
                                            "from 52 cards"),
    (["--rules", "zimbabwe", "--hand-size", "9"], "--hand-size 9 is not allowed in zimbabwe"),
])
def test_bad_host_rules_are_usage_errors_before_any_network(args: list[str],
                                                            message: str) -> None:
    result = CliRunner().invoke(cli, ["host", "--no-mdns", *args])
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "Usage: " in result.stderr
    assert "Table code" not in result.output


@pytest.mark.parametrize(("args", "message"), [
    (["--rules", "classic", "--table"], "--rules classic and --table contradict each other"),
    (["--countdown", "--target", "40"], "--target means nothing in countdown"),
    (["--rules", "table", "--countdown"], "--rules table and --countdown contradict each other"),
    (["--rules", "zimbabwe", "--classic"], "--rules zimbabwe and --classic contradict each other"),
    (["--opponents", "4", "--rules", "wildcards", "--hand-size", "11"],
     "--hand-size 11 cannot be dealt to 5 players from 52 cards"),
    (["--rules", "zimbabwe", "--hand-size", "9"],  # R-ZW-DEAL: 5-8
     "--hand-size 9 is not allowed in zimbabwe: the host may deal 5 to 8 cards"),
    (["--rules", "zimbabwe", "--hand-size", "4"],
     "--hand-size 4 is not allowed in zimbabwe: the host may deal 5 to 8 cards"),
])
def test_bad_play_rules_are_usage_errors(args: list[str], message: str,
                                         monkeypatch: pytest.MonkeyPatch,
                                         tmp_path: object) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    result = CliRunner().invoke(cli, ["play", "--new", *args], input="")
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert "Welcome" not in result.output


def test_the_rules_page_of_every_preset() -> None:
    for preset in PRESETS:
        text = CliRunner().invoke(cli, ["rules", "--rules", preset]).output
        assert all(len(line) <= 90 for line in text.splitlines()), preset
    zim = CliRunner().invoke(cli, ["rules", "--rules", "zimbabwe"]).output
    for needle in ["joker, 8 = 50", "2, 7, J, A = 20", "bounce", "lucky card", "in the air",
                   "nopick", "round's loser", "X1, X2"]:
        assert needle in zim, needle
    wild = CliRunner().invoke(cli, ["rules", "--rules", "wildcards"]).output
    for needle in ["Q♠: adds 5", "2♠ on Q♠", "declare skip", "4h reverse", "collects",
                   "It may not be an 8, 2, 4, J or the Q♠:", "Multi-play is off in this game",
                   "draw again (no draw", "you may play any card that fits"]:
        assert needle in wild, needle
    assert "Multi-play (on" not in wild
    for wrong in ["only the drawn card may start a play", "3 cards by default"]:
        assert wrong not in wild and wrong not in zim, wrong
    for needle in ["one 52-card deck plus 2 jokers", "It may not be an 8, 2, 7, J, A or a joker:",
                   "Multi-play (on in this game)", "After the\n  draw (one a turn)"]:
        assert needle in zim, needle
    assert "no jokers" not in zim and "The deck holds" not in zim
    assert "Countdown" in CliRunner().invoke(cli, ["rules", "--rules", "countdown"]).output


def test_the_rules_page_takes_a_preset() -> None:
    assert CliRunner().invoke(cli, ["rules", "--rules", "classic"]).output == \
        CliRunner().invoke(cli, ["rules", "--classic"]).output
    bad = CliRunner().invoke(cli, ["rules", "--rules", "table", "--classic"])
    assert bad.exit_code == 2 and "contradict each other" in bad.stderr


# ---------------------------------------------------------------- remembered settings


def test_remembered_settings_hold_the_preset_and_read_the_older_form() -> None:
    assert PlaySettings.from_dict({"classic": True}).preset == "classic"
    assert PlaySettings.from_dict({"classic": True, "countdown": True}).preset == "countdown"
    assert PlaySettings.from_dict({"preset": "bogus"}).preset == "table"
    old = PlaySettings.from_dict({"classic": False, "multi": True, "draw_limit": 3})
    assert (old.preset, old.multi, old.draw_limit) == ("table", True, 3)
    stored = PlaySettings(preset="classic", multi=False).to_dict()
    assert stored["classic"] is True and stored["countdown"] is False
    assert PlaySettings.from_dict(stored) == PlaySettings(preset="classic", multi=False)
    # a new preset forgets the single rules of the old one
    moved = PlaySettings(preset="classic", draw_limit=1).merged(preset="countdown")
    assert (moved.preset, moved.draw_limit) == ("countdown", None)
    kept = PlaySettings(preset="classic", draw_limit=1).merged(preset="classic", multi=False)
    assert (kept.draw_limit, kept.multi) == (1, False)
