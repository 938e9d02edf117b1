"""Files on this machine: settings, solo saves (and, later, identity keys, table logs).

Everything here goes through :mod:`p2p8s.store.paths`, which puts files where
platformdirs says they belong and writes them atomically.
"""
