"""The network edge: the only asyncio, socket and zeroconf code in p2p8s.

- :mod:`p2p8s.net.heartbeat` — sans-IO heartbeat and dead-peer timers (``now`` passed in).
- :mod:`p2p8s.net.errors` — what the edge reports, as data: codes, reasons (why a
  connection ended) and errors (the CLI says them).
- :mod:`p2p8s.net.node` — :class:`~p2p8s.net.node.Node`: a TCP listener and the signed
  connections to peers (handshake with code proofs, heartbeats, events).
- :mod:`p2p8s.net.discovery` — mDNS/DNS-SD (RFC 6762/6763) table cards via zeroconf.
- :mod:`p2p8s.net.lobby` — seating at a table and building the full mesh that is handed
  to the game runner.
- :mod:`p2p8s.net.runner` — the game runner: the asyncio adapter of the replicated
  table's links (:mod:`p2p8s.table.link`) fed from the mesh and the loop clock, with
  :mod:`~p2p8s.net.frontend` (what it asks of a frontend), :mod:`~p2p8s.net.redial`
  (dialling a lost peer again) and :mod:`~p2p8s.net.catchup` (rebuilding from the
  peers' logs; the table log file).
"""
