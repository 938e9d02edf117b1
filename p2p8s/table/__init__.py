"""The replicated table (issue #5): the mental-poker round and the rules engine on every
node, sans-IO. See :mod:`p2p8s.table.core` and protocol/table.md.

>>> from p2p8s.table import Table, TableConfig, SeatInfo, Outgoing, Output
"""

from p2p8s.table import events
from p2p8s.table.config import HOST_SEAT, SeatInfo, TableConfig
from p2p8s.table.core import Outgoing, Output, Phase, Table

__all__ = ["HOST_SEAT", "Outgoing", "Output", "Phase", "SeatInfo", "Table", "TableConfig",
           "events"]
