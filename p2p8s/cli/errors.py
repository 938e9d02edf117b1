"""The codes of the terminal's own refusals (:class:`CliCode`); ``p2p8s.cli.words.cli``
says them.

Params: ``n`` a card number as typed, ``size`` the cards in the hand, ``word`` a typed
word (quoted back, cut to :data:`~p2p8s.cli.moves.QUOTE_LIMIT` characters).
"""

from __future__ import annotations

from p2p8s.errors import Code


class CliCode(Code):
    """What the terminal refuses or reports (values are stable names)."""

    # the move prompt (MalformedInput)
    EMPTY_ANSWER = "cli-empty-answer"
    NO_SUCH_NUMBER = "cli-no-such-number"  #: ``n``; ``size``
    NUMBER_TWICE = "cli-number-twice"  #: ``n``
    NOT_IN_HAND = "cli-not-in-hand"  #: ``word``: a card's name
    WORD_ALONE = "cli-word-alone"  #: ``word``: a command typed with cards
    NOT_A_SUIT = "cli-not-a-suit"  #: ``word``
    NOT_UNDERSTOOD = "cli-not-understood"  #: ``word``
    # the session (LocalError)
    INPUT_ENDED = "cli-input-ended"  #: end of file or a closed pipe
    QUIT = "cli-quit"  #: the player typed quit
    SAVE_STUCK = "cli-save-stuck"  #: ``cause`` (the save's error), ``problem``, ``path``
    # p2p8s simulate (MalformedInput)
    NO_BOTS = "cli-no-bots"
    TOO_MANY_BOTS = "cli-too-many-bots"  #: ``bots``, ``seats``
