"""Build wire messages from the JSON of protocol/vectors/wire_frames.json.

``python -m tests.net.vectors`` (from the repository root) prints freshly computed
vectors; the stored file is the reference and must not change without a version bump
(``python -m tests.net.vectors > new.json && mv new.json
protocol/vectors/wire_frames.json`` after one, as for versions 2 to 5).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p8s.rules import Ruleset
from p2p8s.wire import (
    Body,
    Bye,
    Echo,
    Farewell,
    Game,
    Heartbeat,
    Hello,
    Message,
    Refusal,
    Refuse,
    Role,
    Roster,
    RosterBody,
    SeatEntry,
    Sit,
    Welcome,
    encode,
    message_hash,
)

ROOT = Path(__file__).resolve().parents[2]
FRAMES = ROOT / "protocol" / "vectors" / "wire_frames.json"
CODES = ROOT / "protocol" / "vectors" / "wire_codes.json"

#: RFC 8032 §7.1 TEST 1 secret key, so the signer is a published key.
RFC8032_TEST1_SECRET = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"


def _roster(obj: dict[str, Any]) -> Roster:
    return Roster(size=obj["size"], rules=Ruleset.from_dict(obj["rules"]), open=obj["open"],
                  escrow=obj["escrow"], seats=tuple(SeatEntry(seat=e["seat"], name=e["name"],
                                        key=bytes.fromhex(e["key_hex"]),
                                        addrs=tuple(e["addrs"]), port=e["port"])
                              for e in obj["seats"]))


def body_from_json(kind: str, obj: dict[str, Any]) -> Body:
    """The body dataclass for a vector's ``body`` object."""
    match kind:
        case "hello":
            return Hello(name=obj["name"], nonce=bytes.fromhex(obj["nonce_hex"]),
                         port=obj["port"], role=Role(obj["role"]))
        case "roster":
            return RosterBody(roster=_roster(obj["roster"]))
        case "sit":
            return Sit()
        case "welcome":
            return Welcome(seat=obj["seat"], roster=_roster(obj["roster"]))
        case "refuse":
            return Refuse(code=Refusal(obj["code"]), seats=obj["seats"])
        case "heartbeat":
            return Heartbeat()
        case "bye":
            return Bye(code=Farewell(obj["code"]))
        case "game":
            return Game(to=obj["to"], payload=bytes.fromhex(obj["payload_hex"]))
        case "echo":
            return Echo(index=obj["index"], digest=bytes.fromhex(obj["digest_hex"]))
    raise ValueError(kind)


def message_from_json(obj: dict[str, Any]) -> Message:
    """The :class:`Message` of a vector."""
    return Message(table=bytes.fromhex(obj["table_hex"]), seat=obj["seat"], seq=obj["seq"],
                   prev=bytes.fromhex(obj["prev_hex"]),
                   body=body_from_json(obj["kind"], obj["body"]))


def signer(vector: dict[str, Any]) -> Ed25519PrivateKey:
    """The vector's signing key, from its 32-byte RFC 8032 seed."""
    return Ed25519PrivateKey.from_private_bytes(bytes.fromhex(vector["secret_key_hex"]))


def compute(vector: dict[str, Any]) -> dict[str, Any]:
    """The vector with ``frame_hex`` and ``hash_hex`` computed by this code."""
    frame = encode(message_from_json(vector["message"]), signer(vector))
    return {**vector, "frame_hex": frame.hex(), "hash_hex": message_hash(frame[4:]).hex()}


if __name__ == "__main__":
    data = json.loads(FRAMES.read_text())
    data["vectors"] = [compute(v) for v in data["vectors"]]
    json.dump(data, sys.stdout, indent=2)
    sys.stdout.write("\n")
