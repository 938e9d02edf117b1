"""The escrow inside a session (§8): checking a dealer's KeyAnnounce and opening this
seat's share, accusations settled in public, and recovery (ShareReveal, :meth:`recover`,
:meth:`learn_key`).
"""

from __future__ import annotations

from p2p8s.crypto import escrow, group, proofs, threshold
from p2p8s.crypto.errors import Cheat, CheatDetected, Fault
from p2p8s.crypto.events import Accused, KeyRecovered, Verdict
from p2p8s.crypto.group import Scalar
from p2p8s.crypto.messages import Accuse, KeyAnnounce, ShareReveal
from p2p8s.crypto.state import SessionState


class EscrowSteps(SessionState):
    """The escrow half of a session (see the module docstring)."""

    def _on_key(self, msg: KeyAnnounce) -> bool:
        s = msg.seat
        if self.round_id is None:
            return False
        if self._keys[s] is not None:
            raise CheatDetected(Cheat.SECOND_KEY, seat=s, fault=Fault.UNEXPECTED)
        if not group.is_valid_point(msg.key):
            raise CheatDetected(Cheat.KEY_PROOF, seat=s, fault=Fault.BAD_KEY_PROOF)
        share = None
        others = list(self.config.holders(s))
        if others:
            # the escrow shares e_j^-1 (§8.1): the proof links A_0 = e_j^-1·G to Y_j
            if (len(msg.commitments) != len(others)
                    or not all(group.is_valid_point(a) for a in msg.commitments)
                    or [r for r, _ in msg.shares] != others):
                raise CheatDetected(Cheat.ESCROW_MALFORMED, seat=s,
                                    fault=Fault.BAD_SHARE)
            if not threshold.verify_inverse_link(self._key_transcript(s), msg.key,
                                                 msg.commitments[0], msg.proof):
                raise CheatDetected(Cheat.KEY_PROOF, seat=s, fault=Fault.BAD_KEY_PROOF)
            box = self._commits[s]
            assert box is not None
            if not self._observer and self._me in others:
                ct = dict(msg.shares)[self._me]
                try:
                    share = escrow.open_share(
                        ct, dealer=s, recipient=self._me, box_secret=self._box_secret,
                        dealer_box_key=box[1], commitments=msg.commitments, ctx=self._ctx(),
                    )
                except CheatDetected as verdict:
                    self._verdict = verdict  # accused below, once the key is recorded
        else:
            if not proofs.verify_schnorr(self._key_transcript(s), msg.key, msg.proof):
                raise CheatDetected(Cheat.KEY_PROOF, seat=s, fault=Fault.BAD_KEY_PROOF)
            if msg.commitments or msg.shares:
                raise CheatDetected(Cheat.ESCROW_NOT_DUE, seat=s, fault=Fault.MALFORMED)
        self._keys[s] = msg.key
        self._escrow[s] = msg.commitments
        self._sealed[s] = dict(msg.shares)
        if share is not None:
            self._my_shares[s] = share
        if self._verdict is not None:
            # not on this node's word: every node checks the share itself (escrow.settle)
            self._send(Accuse, dealer=s, box_secret=self._box_secret)
            self._events.append(Accused(self._me, s))
            self._events.append(Verdict(self._verdict))
        return True

    def _on_accuse(self, msg: Accuse) -> bool:
        d, a = msg.dealer, msg.seat
        if not 0 <= d < self._n or a not in self.config.holders(d):
            raise CheatDetected(Cheat.ACCUSATION_NO_ESCROW, seat=a,
                                fault=Fault.FALSE_ACCUSATION, dealer=d)
        dealer_box, accuser_box = self._commits[d], self._commits[a]
        if self._keys[d] is None or dealer_box is None or accuser_box is None:
            if (a, d) not in self._accused:  # said while the dealer's escrow is not in
                self._accused.add((a, d))
                self._events.append(Accused(a, d))
            return False
        self._verdict = escrow.settle(
            self._sealed[d][a], dealer=d, accuser=a, box_secret=msg.box_secret,
            accuser_box_key=accuser_box[1], dealer_box_key=dealer_box[1],
            commitments=self._escrow[d], ctx=self._ctx())
        if (a, d) not in self._accused:
            self._events.append(Accused(a, d))
        self._events.append(Verdict(self._verdict))
        return True

    def _on_share_reveal(self, msg: ShareReveal) -> bool:
        d = msg.dealer
        if not 0 <= d < self._n or msg.seat not in self.config.holders(d):
            raise CheatDetected(Cheat.SHARE_NO_ESCROW, seat=msg.seat,
                                fault=Fault.UNEXPECTED)
        if msg.seat in self._share_reveals.get(d, {}):
            raise CheatDetected(Cheat.SECOND_SHARE, seat=msg.seat,
                                fault=Fault.UNEXPECTED, dealer=d)
        if d not in self._escrow_dealers():
            return False
        self._announced_recoveries.add(d)
        if not group.is_canonical_scalar(msg.share) or not escrow.verify_share(
            msg.share, escrow.share_x(msg.seat), self._escrow[d]
        ):
            raise CheatDetected(Cheat.SHARE_WRONG, seat=msg.seat,
                                fault=Fault.BAD_SHARE, dealer=d)
        self._record_share(d, msg.seat, msg.share)
        return True

    def _record_share(self, dealer: int, holder: int, share: Scalar) -> None:
        got = self._share_reveals.setdefault(dealer, {})
        got[holder] = share
        if len(got) == len(self.config.holders(dealer)) and dealer not in self._recovered:
            key = self._keys[dealer]
            assert key is not None
            # the shares interpolate e_j^-1 (checked against A_0), whose inverse is e_j
            commitments = self._escrow[dealer]
            inverse = escrow.recover(dealer, got, commitments, commitments[0])
            secret = group.scalar_inv(inverse)
            if group.base_mul(secret) != key:
                raise CheatDetected(Cheat.RECOVERED_KEY, seat=dealer, fault=Fault.BAD_KEY)
            self._secrets[dealer] = secret
            self._recovered.add(dealer)
            self._events.append(KeyRecovered(dealer))
