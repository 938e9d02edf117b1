"""Who may start a handshake with this node (pure: ``now`` is an argument, in seconds).

A lobby nobody can jam (protocol/wire.md, "Limits"): per source address at most
``per_source`` handshakes at once (``queue`` more may wait for one of them to end: a
burst of honest dials from one machine is not turned away) and a token bucket of new
connections (``rate`` per second, ``burst``); overall ``total`` handshakes, plus
``reserved`` slots that only a dialler showing the rejoin hint of a seat of the final
roster may keep (rejoins always get through). Failed guesses of the code
(:attr:`~p2p8s.net.handshake.Handshake.guessed`) are counted per address:
``free_failures`` are free, then each one closes the address for ``backoff_s`` ×
2^(failures − free_failures) (at most ``max_backoff_s``), and the node says so (a
:class:`~p2p8s.errors.Note` of ``slowed``).

The limits are on attempts that have not proved the code: a handshake that ends
confirmed (``leave(…, confirmed=True)``) gives its token back and clears its address's
failures and back-off, and a confirmed connection holds no slot. So several honest
nodes behind one address (a NAT, one machine running several seats) reconnecting and
meshing as often as they like are not slowed; an honest joiner behind an address that
guessed wrong waits at most ``max_backoff_s`` (told so: :meth:`Admission.retry_after`),
and its success gives the address a fresh budget, so an address's guesses stay bounded
by ``free_failures`` per confirmed handshake plus the back-off.

A dialler whose hello carries the rejoin hint of a key the node knows (a seat: the
lobby's or the final roster's) passes the limits of its address
(:meth:`Admission.priority`): at most one such handshake per key at once, and the key
has its own failure budget and back-off, so somebody who knows a seat's public key
gains at most that budget of guesses.

>>> gate = Admission()
>>> gate.arrive("192.0.2.9", now=0.0)
<Verdict.ADMIT: 'admit'>
>>> [gate.failed("192.0.2.9", now=0.0) is None for _ in range(5)]
[True, True, True, True, False]
>>> gate.arrive("192.0.2.9", now=0.5)
<Verdict.SLOWED: 'slowed'>
>>> gate.arrive("192.0.2.7", now=0.0)
<Verdict.ADMIT: 'admit'>
>>> gate.leave("192.0.2.7", Verdict.ADMIT, confirmed=True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from p2p8s.errors import Note
from p2p8s.net.channel import SessionCode

__all__ = ["Admission", "Limits", "Verdict"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """The admission limits (counts; rates per second; times in seconds)."""

    per_source: int = 4
    #: connections from one address that may wait for one of its handshake slots
    queue: int = 4
    rate: float = 4.0
    burst: float = 8.0
    total: int = 64
    reserved: int = 16
    free_failures: int = 5
    backoff_s: float = 1.0
    max_backoff_s: float = 15.0
    #: seconds after which an address's failures are forgotten
    forget_s: float = 600.0
    #: most addresses remembered (the quietest are forgotten first)
    sources: int = 4096


class Verdict(StrEnum):
    """What :meth:`Admission.arrive` decided for a new connection."""

    ADMIT = "admit"
    RESERVED = "reserved"  # admitted on a reserved slot: must show a roster key's hint
    WAIT = "wait"  # this address has ``per_source`` handshakes running: wait, then retry
    BUSY = "busy"  # … and ``queue`` connections waiting
    TOO_FAST = "too-fast"  # this address connects faster than ``rate``
    SLOWED = "slowed"  # this address is in its back-off after wrong codes
    FULL = "full"  # every slot is taken
    PRIORITY = "priority"  # admitted past its address's limits: a known key's rejoin hint

    @property
    def admitted(self) -> bool:
        """Whether the connection may run its handshake."""
        return self in (Verdict.ADMIT, Verdict.RESERVED, Verdict.PRIORITY)


@dataclass(slots=True)
class _Source:
    tokens: float
    seen: float
    running: int = 0
    waiting: int = 0
    failures: int = 0
    failed_at: float = 0.0
    closed_until: float = 0.0


@dataclass(slots=True)
class Admission:
    """Per-address and overall handshake limits of one listening node."""

    limits: Limits = field(default_factory=Limits)
    running: int = 0
    reserved: int = 0
    _sources: dict[str, _Source] = field(default_factory=dict)
    _keys: dict[bytes, _Source] = field(default_factory=dict)

    def _source(self, address: str, now: float) -> _Source:
        src = self._sources.get(address)
        if src is None:
            if len(self._sources) >= self.limits.sources:
                self._forget(now)
            src = self._sources[address] = _Source(tokens=self.limits.burst, seen=now)
        src.tokens = min(self.limits.burst, src.tokens + (now - src.seen) * self.limits.rate)
        src.seen = now
        if src.failures and now - src.failed_at > self.limits.forget_s:
            src.failures = 0
        return src

    def _forget(self, now: float) -> None:
        idle = sorted((s.seen, a) for a, s in self._sources.items()
                      if not s.running and not s.waiting)
        for _, address in idle[:max(1, len(idle) // 2)]:
            if self._sources[address].closed_until <= now:
                del self._sources[address]

    def arrive(self, address: str, *, now: float) -> Verdict:
        """A new connection from ``address``; if admitted (:attr:`Verdict.admitted`),
        :meth:`leave` must follow when its handshake ends; if told to
        :attr:`~Verdict.WAIT`, :meth:`retry` when a handshake of its address ended, or
        :meth:`give_up`."""
        src = self._source(address, now)
        if src.closed_until > now:
            return Verdict.SLOWED
        if src.running >= self.limits.per_source:
            if src.waiting >= self.limits.queue:
                return Verdict.BUSY
            src.waiting += 1
            return Verdict.WAIT
        if src.tokens < 1.0:
            return Verdict.TOO_FAST
        src.tokens -= 1.0
        if self.running < self.limits.total:
            verdict = Verdict.ADMIT
            self.running += 1
        elif self.reserved < self.limits.reserved:
            verdict = Verdict.RESERVED
            self.reserved += 1
        else:
            return Verdict.FULL
        src.running += 1
        return verdict

    def priority(self, key: bytes, *, now: float) -> Verdict:
        """A connection turned away by its address's limits carries the rejoin hint of
        ``key`` (a seat the node knows): :attr:`Verdict.PRIORITY` (then :meth:`leave`
        with ``key``), or SLOWED / BUSY when the key itself is in its back-off or has a
        handshake running."""
        src = self._keys.setdefault(key, _Source(tokens=0.0, seen=now))
        if src.failures and now - src.failed_at > self.limits.forget_s:
            src.failures = 0
        if src.closed_until > now:
            return Verdict.SLOWED
        if src.running:
            return Verdict.BUSY
        src.running = 1
        return Verdict.PRIORITY

    def retry_after(self, address: str, verdict: Verdict, *, now: float,
                    key: bytes | None = None) -> float:
        """Seconds a connection turned away with ``verdict`` should wait before trying
        again (what the node's ``busy`` record says): the back-off left, the time to
        the address's next token, else 1 s."""
        src = self._keys.get(key) if key is not None else self._sources.get(address)
        if src is None:
            return 1.0
        if verdict is Verdict.SLOWED:
            return max(1.0, src.closed_until - now)
        if verdict is Verdict.TOO_FAST:
            return max(1.0, (1.0 - src.tokens) / self.limits.rate)
        return 1.0

    def retry(self, address: str, *, now: float) -> Verdict:
        """A connection told to wait asks again (a slot of its address may be free)."""
        self.give_up(address)
        return self.arrive(address, now=now)

    def give_up(self, address: str) -> None:
        """A connection told to wait stops waiting (closed, or its deadline passed)."""
        src = self._sources.get(address)
        if src is not None and src.waiting > 0:
            src.waiting -= 1

    def leave(self, address: str, verdict: Verdict, *, confirmed: bool,
              key: bytes | None = None) -> None:
        """The handshake of a connection admitted with ``verdict`` (PRIORITY: for
        ``key``) ended, ``confirmed`` (the peer proved the code: its token comes back,
        its address's failures and back-off are cleared) or not."""
        if verdict is Verdict.PRIORITY:
            held = self._keys.get(key) if key is not None else None
            if held is not None:
                held.running = 0
                if confirmed:
                    held.failures, held.closed_until = 0, 0.0
        if verdict is Verdict.RESERVED:
            self.reserved -= 1
        elif verdict is Verdict.ADMIT:
            self.running -= 1
        src = self._sources.get(address)
        if src is None:
            return
        if src.running > 0:
            src.running -= 1
        if confirmed:
            src.tokens = min(self.limits.burst, src.tokens + 1.0)
            src.failures, src.closed_until = 0, 0.0

    def failed(self, address: str, *, now: float, key: bytes | None = None) -> Note | None:
        """A failed guess of the code from ``address`` (with a rejoin hint of ``key``:
        counted against the key too); the ``slowed`` notice (params ``peer``,
        ``failures``, ``wait_s``) when the address is now in its back-off."""
        if key is not None and key in self._keys:
            self._back_off(self._keys[key], now)
        return self._back_off(self._source(address, now), now, address=address)

    def _back_off(self, src: _Source, now: float, *, address: str | None = None
                  ) -> Note | None:
        src.failures += 1
        src.failed_at = now
        over = src.failures - self.limits.free_failures
        if over < 0:
            return None
        wait = min(self.limits.max_backoff_s, self.limits.backoff_s * 2.0 ** over)
        src.closed_until = now + wait
        if address is None:
            return None
        return Note(SessionCode.SLOWED, {"peer": address, "failures": src.failures,
                                         "wait_s": wait})
