"""How the decoders of table payloads refuse bytes from a peer: :class:`BadPayload`.

The bodies of table payloads (:mod:`p2p8s.table.actions`, the setup of
:mod:`p2p8s.table.config`) and of the runners' own payloads (:mod:`p2p8s.table.sync`)
come from a peer, so a body that does not decode is a :class:`BadPayload` — a
:class:`~p2p8s.errors.RemoteError`, never a local error (issue #10, "errors by origin").
Its ``code`` (a :class:`PayloadCode`) names the payload, its ``problem`` (a
:class:`PayloadProblem`) what is wrong with it; the decoder does not know the sender, so
``seat`` is None and the caller, which does, wraps it in an error naming the seat
(:attr:`~p2p8s.table.errors.TableCode.MALFORMED`, ``cause``). ``p2p8s.cli.words.table``
says them ("malformed action: bad position").

>>> import msgpack
>>> with decoding(PayloadCode.ROUND):
...     msgpack.unpackb(b"\\xc1")
Traceback (most recent call last):
p2p8s.table.decoding.BadPayload: malformed-round problem=payload-undecodable error=FormatError
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import msgpack

from p2p8s.errors import Code, Error, RemoteError


class PayloadCode(Code):
    """Which payload body does not decode (the ``code`` of a :class:`BadPayload`)."""

    ACTION = "malformed-action"  #: an action record (the ``data`` of an ``Act``)
    CHOICE = "malformed-choice"  #: a signed choice (kind 8, or inside an action record)
    STOP = "malformed-stop"  #: a stop notice (kind 3)
    ROUND = "malformed-round"  #: a ``leave``, ``welcome`` or ``restarted`` body
    OWNKEY = "malformed-ownkey"  #: an ``ownkey`` body (kind 9)
    RESYNC = "malformed-resync"  #: a ``resync`` body (kind 6)
    CONFIG = "malformed-config"  #: a ``setup`` body: the table config (kind 2)


class PayloadProblem(Code):
    """What is wrong with a payload body (the ``problem`` param of a :class:`BadPayload`
    and of :class:`~p2p8s.table.sync.SyncCode` errors); params follow the name."""

    UNDECODABLE = "payload-undecodable"  #: ``error``: the decoder's exception type name
    NOT_CANONICAL = "payload-not-canonical"
    INVALID = "payload-invalid"  #: ``cause``: a value the layer it belongs to refuses
    WRONG_TYPE = "payload-wrong-type"  #: a field of the config has the wrong type
    NOT_A_LIST = "payload-not-a-list"
    FIELDS_3_OR_4 = "payload-fields-3-or-4"  #: not a list of 3 or 4 fields
    FIELDS_3 = "payload-fields-3"  #: not a list of 3 fields
    NUMBER = "payload-number"
    NUMBERS = "payload-numbers"
    FIELD = "payload-field"
    FIELDS = "payload-fields"
    RECORD = "payload-record"
    CHOICE = "payload-choice"
    CHOICE_FIELD = "payload-choice-field"
    SIGNATURE = "payload-signature"
    POSITIONS = "payload-positions"
    POSITION = "payload-position"
    ECHO = "payload-echo"
    ROUND = "payload-round"
    NODE = "payload-node"
    KEY_LIST = "payload-key-list"
    SEAT = "payload-seat"
    KEY = "payload-key"
    SEAT_TWICE = "payload-seat-twice"
    RELAY = "payload-relay"


class BadPayload(RemoteError):
    """A payload body from a peer does not decode: ``code`` names the payload, the
    ``problem`` param what is wrong (``seat`` is None: the caller names the sender)."""

    code: PayloadCode

    def __init__(self, code: PayloadCode, /, *, problem: PayloadProblem,
                 **params: Any) -> None:
        super().__init__(code, problem=problem, **params)


class Refused(ValueError):
    """A check inside a decoder failed with ``problem`` (and ``params``); the enclosing
    :func:`decoding` block turns it into the :class:`BadPayload` of its payload."""

    def __init__(self, problem: PayloadProblem, /, **params: Any) -> None:
        super().__init__(problem.value)
        self.problem, self.params = problem, params


def refuse(problem: PayloadProblem, /, **params: Any) -> NoReturn:
    """Raise :class:`Refused` (inside a :func:`decoding` block)."""
    raise Refused(problem, **params)


@contextmanager
def decoding(code: PayloadCode) -> Iterator[None]:
    """Decode a body of payload ``code`` inside this block: a :class:`Refused` check, an
    error of p2p8s from a value's own parser (an action text, a ruleset) and a
    ValueError/TypeError/msgpack error leave it as :class:`BadPayload` (``problem``
    :attr:`~PayloadProblem.INVALID` with the ``cause``, resp.
    :attr:`~PayloadProblem.UNDECODABLE` with the exception's type name)."""
    try:
        yield
    except BadPayload:
        raise
    except Refused as exc:
        raise BadPayload(code, problem=exc.problem, **exc.params) from None
    except Error as exc:
        raise BadPayload(code, problem=PayloadProblem.INVALID, cause=exc) from None
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        raise BadPayload(code, problem=PayloadProblem.UNDECODABLE,
                         error=type(exc).__name__) from None
