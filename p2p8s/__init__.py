"""p2p8s — Crazy Eights for 2–7 people on a local network, with no server.

The import package is layered (see ``docs/architecture.md``): a pure, deterministic
core (:mod:`p2p8s.cards`, :mod:`p2p8s.rules`, :mod:`p2p8s.engine`, :mod:`p2p8s.match`,
:mod:`p2p8s.bots`, :mod:`p2p8s.crypto`, :mod:`p2p8s.wire`, :mod:`p2p8s.table`) and thin
edges for the network (:mod:`p2p8s.net`), files (:mod:`p2p8s.store`) and the terminal
(:mod:`p2p8s.cli`).
"""

__version__ = "0.1.0"
