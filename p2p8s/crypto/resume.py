"""A restarted node takes its seat back (:class:`Resuming`): an observer session that
took in the whole round so far — the messages of every seat, this seat's own among
them, from the peers' logs and the node's own log — becomes the seat's session again,
with the round secrets derived from the node's per-match secret (§5.2: the nonce, the
box secret and, once the round id is known, the round key). Its own messages stay
exactly those it sent; its next one takes the next slot of its chain.
"""

from __future__ import annotations

import dataclasses

from p2p8s.crypto import escrow, group
from p2p8s.crypto.derive import round_key
from p2p8s.crypto.errors import Misuse, ProtocolMisuse
from p2p8s.crypto.state import derived_secrets
from p2p8s.crypto.steps import OwnSteps


class Resuming(OwnSteps):
    """The checks and state change of :meth:`Session.resume` (see the module docstring)."""

    def _become(self, seat: int, key_seed: bytes) -> None:
        """Turn this observer session into ``seat``'s session again, its secrets derived
        from ``key_seed`` (32 bytes, the node's per-match secret, §5.2). Checked first,
        nothing changed on failure: what the round holds of the seat must be what these
        secrets give — its Commit (nonce hash and box key), its Reveal (nonce), its
        ``Y`` (``e·G = Y``) — else ProtocolMisuse KEY_MISMATCH; CANNOT_LEARN unless this
        is an observer session and ``seat`` a seat; OWN_WAITING while a message of
        the seat waits in the inbox, or an echo counts more of its messages than are in
        (its next slot would not be free); KEY_KNOWN once the seat's key is
        known or its recovery begun (the takeover is irrevocable, protocol/table.md
        "The cut"). Then the seat goes on where its own messages stopped: the shares
        dealt to it are opened, its cards read, and what it has still to send (its
        Commit, Reveal, KeyAnnounce, shuffle steps, strips) goes out as the next
        messages of its chain, with the echo of everything taken in."""
        self._guard()
        if not self._observer or not 0 <= seat < self._n:
            raise ProtocolMisuse(Misuse.CANNOT_LEARN, seat=seat)
        if (any(m.seat == seat for m in self._inbox)
                or any(about == seat for _, about, _, _ in self._pending_echo)):
            # a message of it still waits, or a peer counts more of its chain than is in
            raise ProtocolMisuse(Misuse.OWN_WAITING, seat=seat)
        if (self._secrets[seat] is not None or seat in self._recovered
                or seat in self._announced_recoveries):
            raise ProtocolMisuse(Misuse.KEY_KNOWN, seat=seat)
        config = dataclasses.replace(self.config, seat=seat, observer=False,
                                     key_seed=key_seed)
        nonce, box_secret, box_key = derived_secrets(config, key_seed)
        key = (None if self.round_id is None else round_key(
            key_seed, config.table, config.round_no, self.round_id, seat))
        commit, said, public = self._commits[seat], self._nonces[seat], self._keys[seat]
        if ((commit is not None and commit != (self._commit_hash(seat, nonce), box_key))
                or (said is not None and said != nonce)
                or (public is not None and (key is None or group.base_mul(key) != public))):
            raise ProtocolMisuse(Misuse.KEY_MISMATCH, seat=seat)
        self.config, self._observer, self._me = config, False, seat
        self._nonce, self._box_secret, self._box_key = nonce, box_secret, box_key
        if key is not None:
            self._key, self._key_inv = key, group.scalar_inv(key)
        self._started = commit is not None
        self._revealed_nonce = said is not None
        self._key_revealed = False
        self._open_my_shares()
        for p, pos in self._positions.items():
            if pos.owner == seat and pos.done and pos.k is None:
                pos.k = self._epochs[p[0]].lookup.get(group.mul(self._key_inv, self._value(p)))
        if key is not None and public is None:
            self._announce_key()  # the round id came in while it was gone

    def _open_my_shares(self) -> None:
        """Open the escrow shares dealt to this seat in the KeyAnnounces taken in
        (a bad one names its dealer: CheatDetected)."""
        me = self._me
        for dealer in range(self._n):
            sealed = self._sealed.get(dealer, {})
            box = self._commits[dealer]
            if me not in sealed or dealer in self._my_shares or box is None:
                continue
            self._my_shares[dealer] = escrow.open_share(
                sealed[me], dealer=dealer, recipient=me, box_secret=self._box_secret,
                dealer_box_key=box[1], commitments=self._escrow[dealer], ctx=self._ctx())
