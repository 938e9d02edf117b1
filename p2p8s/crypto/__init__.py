"""Mental poker for p2p8s: fair, hidden-hand dealing without a server (issue #4).

Pure and sans-IO: no sockets, no clock, randomness passed in. Modules, one thing each:

* :mod:`~p2p8s.crypto.group` — the prime-order group ristretto255 (libsodium through rbcl);
* :mod:`~p2p8s.crypto.transcript` — Fiat–Shamir transcripts and hedged nonces;
* :mod:`~p2p8s.crypto.proofs` — Schnorr, Chaum–Pedersen DLEQ and batch DLEQ proofs;
* :mod:`~p2p8s.crypto.shuffle_proof` — the zero-knowledge proof of a shuffle step;
* :mod:`~p2p8s.crypto.rand` — seeded test randomness, uniform integers, permutations;
* :mod:`~p2p8s.crypto.deck` — card points, positions, one seat's shuffle step;
* :mod:`~p2p8s.crypto.escrow` — Feldman VSS of keys with encrypted shares;
* :mod:`~p2p8s.crypto.messages` — message dataclasses and their canonical msgpack bytes;
* :mod:`~p2p8s.crypto.events` — what a session reports to its table layer;
* :mod:`~p2p8s.crypto.derive` — nonce commitments, round ids, round keys, message chains;
* :mod:`~p2p8s.crypto.config` — a session's seats, deck and escrow holders;
* :mod:`~p2p8s.crypto.session` — the per-seat state machine, built from
  :mod:`~p2p8s.crypto.state` (its data), :mod:`~p2p8s.crypto.intake` (received
  messages), :mod:`~p2p8s.crypto.escrow_steps` (escrow, accusations, recovery),
  :mod:`~p2p8s.crypto.serving` (a lost seat's strips served by its holders),
  :mod:`~p2p8s.crypto.steps` (its own steps) and :mod:`~p2p8s.crypto.driver` (taking
  messages in, running every step possible);
* :mod:`~p2p8s.crypto.threshold` — threshold strips: partial strips, their proofs, the
  combine;
* :mod:`~p2p8s.crypto.audit` — the round-end audit and the hidden-claim replay;
* :mod:`~p2p8s.crypto.harness` — an in-memory network of sessions (tests, benchmarks);
* :mod:`~p2p8s.crypto.errors` — CheatDetected (names the seat) and ProtocolMisuse.

The protocol itself is specified in ``protocol/mental-poker.md``.
"""
