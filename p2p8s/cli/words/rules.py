"""The words of the rules layer: a ruleset in one line (:func:`describe_rules`), refusals
of cards, rulesets, the engine, the match, the fast playouts and scenario files.

>>> from p2p8s.cards import Card, Suit
>>> from p2p8s.cli.look import Look
>>> from p2p8s.cli.words import Speaker
>>> from p2p8s.engine import EngineCode
>>> Speaker(look=Look(ascii=True)).say(EngineCode.NO_MATCH, card=Card.parse("TH"),
...     top=Card.parse("7C"), suit=Suit.CLUBS, declared=False)
'10H does not match 7C (suit clubs or rank 7)'
"""

from __future__ import annotations

from enum import Enum

from p2p8s.cards import Card, CardsCode, Rank
from p2p8s.cli.words import Template
from p2p8s.cli.words.cardrules import describe_changes, describe_rules
from p2p8s.cli.words.phrases import SUIT_MANY, Params, derive, either, notation, shown
from p2p8s.engine import EngineCode
from p2p8s.match import MatchCode
from p2p8s.playout import PlayoutCode
from p2p8s.rules import RulesCode
from p2p8s.scenario import ScenarioCode


def _last_seat(p: Params) -> int:
    return int(p["players"]) - 1


CARDS: dict[Enum, Template] = {
    CardsCode.NOT_A_SUIT: derive("{t} is not a suit (use C, D, H or S)", t=shown("text")),
    CardsCode.NOT_A_RANK: derive("{t} is not a rank (use A 2-9 T J Q K)",
                                 t=shown("text")),
    CardsCode.NOT_A_CARD: derive("{t} is not a card (write rank+suit, like QS or 10H)",
                                 t=shown("text")),
    CardsCode.BAD_INDEX: derive("card index {v} is outside 0..55", v=shown("value")),
    CardsCode.NO_SUCH_CARD: derive("no card with rank {r} and suit {s}",
                                   r=shown("rank"), s=shown("suit")),
}

RULES: dict[Enum, Template] = {
    RulesCode.NOT_WHOLE: derive(
        lambda p: ("{option} must be a positive whole number, not {v}" if p.get("positive")
                   else "{option} must be a whole number, not {v}"),
        v=shown("value")),
    RulesCode.DRAW_LIMIT_NEGATIVE: "draw_limit must be 0 (unlimited) or more",
    RulesCode.NOT_BOOL: "{option} must be true or false",
    RulesCode.NOT_AN_OBJECT: "rules must be an object of option names",
    RulesCode.UNKNOWN_OPTION: derive("unknown rule option {o} (known: {k})",
                                     o=shown("option"),
                                     k=lambda p: ", ".join(p["known"])),
    RulesCode.BAD_VARIANT: derive("variant must be 'standard' or 'countdown', not {v}",
                                  v=shown("value")),
    RulesCode.PLAYERS: derive("a game has 2 to 7 players, not {n}",
                              n=shown("players")),
    RulesCode.BAD_PRESET: derive("unknown rules preset {v} (known: {k})", v=shown("value"),
                                 k=lambda p: ", ".join(p["known"])),
    RulesCode.PRESET_NEEDS_ACTIONS: "the {preset} rules need action cards on",
    RulesCode.HAND_SIZE: derive("a hand size is 1 to 13 cards, not {v}", v=shown("value")),
}


def _needs(p: Params) -> str:
    if p["declared"]:
        return "{card} does not match the declared suit {suit_name}"
    return "{card} does not match {top} (suit {suit_name} or rank {rank})"


ENGINE: dict[Enum, Template] = {
    EngineCode.ROUND_OVER: "the round is over",
    EngineCode.NOT_AN_ACTION: "{value} is not an action",
    EngineCode.EMPTY_PLAY: "a play needs at least one card",
    EngineCode.MULTI_OFF: "this table plays one card a turn (multi-play is off)",
    EngineCode.RANKS_DIFFER: "cards played together must share a rank",
    EngineCode.PENALTY_PENDING: derive(
        "a draw penalty of {penalty} is pending: play a {ranks} or take it",
        ranks=lambda p: either(Rank(r).letter for r in p["counters"])),
    EngineCode.NO_PENALTY: "there is no draw penalty to take",
    EngineCode.ONLY_DRAWN: "after drawing you may only play the drawn card ({card}) or pass",
    EngineCode.NO_MATCH: derive(_needs, suit_name=lambda p: SUIT_MANY[p["suit"]],
                                rank=lambda p: str(Card(p["top"]))[0]),
    EngineCode.NOT_IN_HAND: "{card} is not in seat {seat}'s hand",
    EngineCode.NEEDS_SUIT: "playing {card} needs a suit to be declared",
    EngineCode.ONLY_WILD_DECLARES: "only a wild card declares a suit, not {card}",
    EngineCode.OUT_DECLARES_NOTHING: "going out with a wild card declares no suit",
    EngineCode.NOTHING_TO_DRAW: "there is no card left to draw",
    EngineCode.DRAWN_PLAYABLE: "the drawn {card} is playable: play it or pass, no more draws",
    EngineCode.DRAW_LIMIT: "the draw limit is {limit} cards a turn",
    EngineCode.PLAYABLE_NO_DRAW: "you have a playable card, so you may not draw",
    EngineCode.DRAW_AGAIN: "the drawn card is not playable: draw again",
    EngineCode.MUST_PLAY: derive(lambda p: "you have a playable card: play it or draw"
                                 if p.get("or_draw") else "you have a playable card: play it"),
    EngineCode.MUST_DRAW: "you have no playable card: draw",
    EngineCode.ACTION_TEXT: "{value} is not an action",
    EngineCode.BAD_ACTION: derive("bad action {t}: {error}", t=shown("text")),
    EngineCode.ACTION_FORM: derive("bad action {t}: not in canonical form",
                                   t=shown("text")),
    EngineCode.RESHUFFLE_ORDER: "a reshuffle order must hold exactly the discarded cards",
    EngineCode.DEALER: derive("dealer must be a seat 0..{last}", last=_last_seat),
    EngineCode.WILD_RANKS: "wild ranks must be one rank 1..13 per seat",
    EngineCode.DECK_TOO_SMALL: "the deck has {cards} cards; the deal needs {needed}",
    EngineCode.STARTER_HIDDEN: "the starter must be turned face up",
    EngineCode.NO_STARTER: "no card in the stock can start the discard pile",
    EngineCode.HAND_SIZES: "hand sizes must be one non-negative number per seat",
    EngineCode.NEEDS_CHOICE: derive("playing {card} needs a choice: {c}",
                                    c=lambda p: " or ".join(map(str, p["choices"]))),
    EngineCode.BAD_CHOICE: derive(lambda p: ("{card} offers {c}, not {declare}" if p["choices"]
                                             else "nothing is declared with {card}"),
                                  c=lambda p: " or ".join(map(str, p["choices"]))),
    EngineCode.SKIP_PENDING: derive("you are skipped: play a {ranks} or miss your turn",
                                    ranks=lambda p: either(Rank(r).letter
                                                           for r in p["counters"])),
    EngineCode.NO_SKIP: "no one is skipped",
    EngineCode.NO_LUCKY: "the lucky card answers a draw penalty only",
    EngineCode.ONE_WILD: "only one wild card may be played in a turn",
    EngineCode.WILD_ON_WILD: "{card} on a declared wild card declares nothing",
    EngineCode.PICK_PLAY_ONE: "after taking the penalty you may play one card only",
    EngineCode.IN_THE_AIR: "you are in the air: draw a card first",
    PlayoutCode.STOCK_UNKNOWN: "a playout needs a round whose stock order is known",
    PlayoutCode.HAND_HIDDEN: "a playout needs every hand face up",
}

MATCH: dict[Enum, Template] = {
    MatchCode.OVER: derive(lambda p: "the match is over" if p.get("winner") is None
                           else "the match is over (seat {winner} won): no more rounds"),
    MatchCode.ROUND_NOT_OVER: "the round is not over",
    MatchCode.SEATS: "a {seats}-seat round cannot be scored in a {players}-seat match",
    MatchCode.DEALER: ("the round was dealt by seat {dealer}, but seat {expected} deals this "
                       "round (R-DEALER)"),
    MatchCode.POINTS_NOT_LIST: "record: points must be a list of whole numbers, not {kind}",
    MatchCode.POINTS_COUNT: "record: {count} points for {players} seats; give one per seat",
    MatchCode.POINTS_NOT_WHOLE: "record: seat {seat}'s points must be a whole number, not {value}",
    MatchCode.WENT_OUT: derive("record: went_out must be a seat 0..{last} or None, not {value}",
                               last=_last_seat),
    MatchCode.BAD_DATA: "bad match data: {detail}",
    MatchCode.TOTALS: "bad match data: totals do not fit the players",
}


def _shown(p: Params) -> str:
    if "digits" in p:
        return f"a number of about {p['digits']} digits"
    return str(p["value"])


def _missing_extra(p: Params) -> str:
    parts = []
    if p["missing"]:
        parts.append("missing " + notation(p["missing"]))
    if p["extra"]:
        parts.append("not discarded " + notation(p["extra"]))
    return "; ".join(parts)


SCENARIO: dict[Enum, Template] = {
    ScenarioCode.NOT_JSON: "not valid JSON: {detail}",
    ScenarioCode.DUPLICATE_KEY: "the key {key} appears twice in one object",
    ScenarioCode.NUMBER_TOO_LONG: "the number {start}… is too long ({digits} digits)",
    ScenarioCode.NOT_A_NUMBER: "{text} is not a JSON number",
    ScenarioCode.TOO_DEEP: "not a scenario: lists and objects nest more than {limit} levels deep",
    ScenarioCode.NOT_AN_OBJECT: "a scenario is a JSON object with players, stock and actions",
    ScenarioCode.UNKNOWN_KEY: derive(
        lambda p: ("{what}: unknown key {key} (known: {names})" if "what" in p
                   else "unknown key {key} (known: {names})"),
        names=lambda p: ", ".join(p["known"])),
    ScenarioCode.MISSING_KEY: derive("the scenario needs {k}", k=shown("key")),
    ScenarioCode.NOT_WHOLE: derive("{what} must be a whole number, not {shown}", shown=_shown),
    ScenarioCode.OUT_OF_RANGE: derive("{what} is out of range: {shown}", shown=_shown),
    ScenarioCode.NOT_CARDS: '{what} must be a list of cards like ["7H", "QS"]',
    ScenarioCode.IN: "{what}: {error}",
    ScenarioCode.CARD_TOO_OFTEN: derive(
        "stock: {c} appears {times_text}; a {players}-player game uses {decks_text}",
        c=lambda p: str(p["card"]),
        times_text=lambda p: "twice" if p["times"] == 2 else f"{p['times']} times",
        decks_text=lambda p: ("one deck" if p["decks"] == 1
                              else "two decks (each card at most twice)")),
    ScenarioCode.DECK_INCOMPLETE: derive(
        "stock: the deck is incomplete ({cards} cards; a {players}-player game needs all "
        "{needed}): missing {names}", names=lambda p: notation(p["missing"])),
    ScenarioCode.DEALER: derive("dealer must be a seat 0..{last}, not {dealer}",
                                last=_last_seat),
    ScenarioCode.NOT_BOOL: "{what} must be true or false",
    ScenarioCode.NOT_A_LIST: derive(lambda p: "{what} must be a list of card lists"
                                    if p.get("of") == "cards" else "{what} must be a list"),
    ScenarioCode.ACTION_NOT_OBJECT: '{what} must be an object like {{"seat": 0, "draw": true}}',
    ScenarioCode.ACTION_NO_SEAT: '{what}: which seat acts? ("seat" is missing)',
    ScenarioCode.ACTION_BAD_SEAT: derive("{what}: seat {seat} does not exist (seats 0..{last})",
                                         last=_last_seat),
    ScenarioCode.ACTION_KIND: "{what} needs exactly one of play, draw, pass, take",
    ScenarioCode.SUIT_NOT_PLAY: "{what}: only a play declares a suit",
    ScenarioCode.EMPTY_PLAY: "{what}: a play needs at least one card",
    ScenarioCode.SUIT_NOT_TEXT: "{what} must be one of C, D, H, S",
    ScenarioCode.BAD_DECLARE: derive("{what} must be one of {k}, not {v}", v=shown("value"),
                                     k=lambda p: ", ".join(p["known"])),
    ScenarioCode.NOT_TRUE: '{what}: write "{kind}": true',
    ScenarioCode.NUMBERS_NOT_COUNTDOWN: ('numbers belong to the countdown variant '
                                         '(set "variant": "countdown" in rules)'),
    ScenarioCode.NUMBERS_PER_SEAT: "numbers must list one number per seat ({players})",
    ScenarioCode.NUMBERS_RANGE: "countdown numbers run from {start} down to 1",
    ScenarioCode.HAND_SIZE_SMALL: "hand_size must be 1 or more",
    ScenarioCode.HAND_SIZE_COUNTDOWN: "in the countdown variant the numbers set the hand sizes",
    ScenarioCode.RESHUFFLE_ORDER: derive(
        "reshuffles[{index}] must hold exactly the {cards} discards under the top card "
        "({parts})", parts=_missing_extra),
    ScenarioCode.NOT_ON_TURN: "it is seat {turn}'s turn, not seat {seat}'s",
    ScenarioCode.FILE_NOT_TEXT: "{name}: not a UTF-8 text file",
    ScenarioCode.IN_FILE: "{name}: {error}",
}

TEMPLATES: dict[Enum, Template] = {**CARDS, **RULES, **ENGINE, **MATCH, **SCENARIO}

__all__ = ["TEMPLATES", "describe_changes", "describe_rules"]
