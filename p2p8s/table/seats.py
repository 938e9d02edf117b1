"""Seat control: who runs which seat, which nodes are gone, and the takeover (sans-IO).

Everything here must come out the same on every node (protocol/table.md, "Dropped
nodes"): at each round start the seats *taken* at the end of the last round, the *live*
nodes, the **adopter** (the lowest live seat, which runs the taken seats and welcomes
their nodes back), the escrow holders of each seat's key and, per seat, the nodes that
may send its messages (the first message of a seat still undecided decides). A node the
runner lost (:meth:`Seats.lost`), that left, or that restarted and lost its keys has its
seats *recovered*: after :data:`TAKEOVER_GRACE_S` this node publishes its escrow shares
of their keys (:meth:`Seats.recover_gone`); without an escrow the game pauses. A lost
node's seat that need not act yet (not on turn, no shuffle step to make) is *served*
instead: this node publishes its partial strips of the seat's layer (mental-poker.md
§8.1), so the others draw on while its hand stays hidden, and it is taken over only once
it must act; a holder whose partial strips do not come within :data:`SERVE_WAIT_S` is
named. A node
that reaches at most half of the round's live nodes is the one cut off: it takes nobody
over and holds what it sends (:meth:`Seats.release`) until it knows whether its own seat
was taken over meanwhile. :meth:`Seats.get_timer` is when the next grace runs out.
"""

from __future__ import annotations

from collections.abc import Callable

from p2p8s.crypto.events import KeyRecovered
from p2p8s.crypto.messages import Act, Message, PlayCards, decode
from p2p8s.errors import MalformedInput
from p2p8s.table import events as tev
from p2p8s.table.actions import CRYPTO, WELCOME, encode_round
from p2p8s.table.context import Ctx, Outgoing, Phase
from p2p8s.table.errors import TableCode
from p2p8s.table.events import InfoCode, PauseWhy
from p2p8s.table.intake import Cuts
from p2p8s.table.sessions import LocalSessions

#: A node waits this long (seconds) after :meth:`Seats.lost` before it publishes its
#: escrow shares: a node cut off from everyone sees all its peers lost by then and knows
#: it is the one cut off (it never helps take a live node over).
TAKEOVER_GRACE_S = 3.0
#: How long (seconds) a served draw waits for a holder's partial strips (mental-poker.md
#: §8.1) before this node names the holders still missing (the draw goes on waiting).
SERVE_WAIT_S = 5.0


class Seats:
    """Who runs which seat on this node's view of the table (see the module docstring)."""

    def __init__(self, ctx: Ctx, sessions: LocalSessions) -> None:
        self._ctx = ctx
        self._sessions = sessions
        #: human seats whose node this node believes gone (peer_lost / leave), and those
        #: that left for good
        self.gone: set[int] = set()
        self.left: set[int] = set()
        self.lost_at: dict[int, float] = {}  # gone node -> when its takeover may begin
        self.back_at: dict[int, float] = {}  # node -> when it was last back
        #: seats taken over at the end of the last round (from the log: the same on every
        #: node); they are run by the lowest live seat until their node is welcomed back
        self.taken: set[int] = set()
        self.welcome: int | None = None  # round this node was welcomed back for
        self.held: list[Outgoing] = []  # payloads kept while cut off (see release)
        #: the seat on turn in the round's log (None: no action log yet); set by the table
        self.turn: Callable[[], int | None] = lambda: None
        #: False while the intake holds a message it could take in now; set by the table
        self.settled: Callable[[], bool] = lambda: True
        self._begin_round_state()

    def _begin_round_state(self) -> None:
        #: seat -> the nodes (human seats) that may send its messages this round; one
        #: node once decided (a seat taken over is run by the adopter, or by its own node
        #: again once welcomed back: the first message of the seat decides)
        self.cands: dict[int, set[int]] = {}
        #: seat -> the seats holding escrow shares of its key this round (empty: none)
        self.holders: tuple[tuple[int, ...], ...] = ()
        self.adopter = 0  #: the lowest live seat at the start of the round
        #: seats taken over: ``adopted`` from the round start (key revealed at once),
        #: ``recovered`` during the round (key rebuilt from the escrow, or handed over)
        self.adopted: set[int] = set()
        self.recovered: set[int] = set()
        self.handed: set[int] = set()  # recovered seats whose node handed its key over
        self.asked: set[int] = set()  # seats whose recovery this node asked for
        self.paused: set[int] = set()  # gone nodes that cannot be taken over
        self.welcomed: set[int] = set()  # nodes welcomed back this round (adopter)
        self.live: list[int] = []  #: the human seats not taken over at the round start
        self.cut = False  #: this node was cut off from most of the table this round
        self.restarted: set[int] = set()  # nodes that lost their keys of this round
        self.served: set[int] = set()  # seats of lost nodes whose strips this node serves
        self.awaited: dict[int, float] = {}  # served seat -> since when partials are missing
        self.named: set[tuple[int, int]] = set()  # (served seat, holder) named as missing
        #: how far into each recovered seat's messages its holders had read (the cut)
        self.cuts = Cuts()
        #: this node took in (or sent) messages of a seat beyond its cut: its table is
        #: void from there, and the runner rebuilds it from the others' log
        self.void = False

    # ------------------------------------------------------------------ queries

    def runner(self, seat: int) -> int | None:
        """The node (human seat) that sends ``seat``'s messages, once decided."""
        c = self.cands.get(seat, set())
        return next(iter(c)) if len(c) == 1 else None

    def proxy(self) -> int | None:
        """The lowest seat whose key was not recovered: it authors for recovered seats;
        None once every seat's key was recovered (everyone left)."""
        return min((s for s in range(len(self.cands)) if s not in self.recovered),
                   default=None)

    @property
    def bots(self) -> set[int]:
        """Seats played by the deterministic takeover bot this round."""
        return self.adopted | self.recovered

    def author_for(self, seat: int) -> int | None:
        """The local session that authors ``seat``'s action (``None``: another node)."""
        sessions = self._sessions.by_seat
        if seat in self.recovered:
            proxy = self.proxy()
            return proxy if proxy in sessions else None
        return seat if seat in sessions else None

    def home_back(self, seat: int) -> bool:
        """True when the person of ``seat`` (taken over) may choose its actions, as far
        as this node knows: a person's seat whose node is not gone — for this node's own
        seat: it can sign and is not cut off from most of the table."""
        ctx = self._ctx
        if ctx.config.computer(seat):
            return False
        home = ctx.config.node_of(seat)
        if home == ctx.me:
            return (ctx.sign is not None and not ctx.leaving and not ctx.observing
                    and not self.isolated())
        return home not in self.gone

    def isolated(self) -> bool:
        """True when this node reaches at most half of the round's live nodes (itself
        included): it must not take anyone over — it is the one that is cut off."""
        ctx = self._ctx
        if ctx.number == 0 or ctx.observing:
            return False
        live = [s for s in self.live if s not in self.left]  # who left said so: not a cut
        reach = [s for s in live if s == ctx.me or s not in self.gone]
        if len(live) >= 3 and 2 * len(reach) <= len(live):
            self.cut = True
            return True
        return False

    def holding(self) -> bool:
        """True while this node keeps what it sends (see :meth:`release`): cut off, or
        a share of its own seat's key was seen (its seat is being taken over: what it
        sends now would be void, protocol/table.md "The cut")."""
        ctx, sessions = self._ctx, self._sessions
        if ctx.number == 0 or ctx.observing or sessions.primary_seat != ctx.me:
            return False
        return self.isolated() or (sessions.primary.recovering(ctx.me)
                                   and ctx.me not in self.recovered)

    def recovery_stuck(self) -> bool:
        """True when a recovery of this node's own key is begun and can never finish:
        a holder of its key runs no session of its own this round (its seat was taken
        over, or its node restarted: its escrow share is lost with its round secrets),
        so not every share can come (protocol/table.md, "Held")."""
        ctx, sessions = self._ctx, self._sessions
        if (not self.holding() or not self.holders or ctx.me in self.recovered
                or not sessions.primary.recovering(ctx.me)):
            return False
        return any(h in self.recovered or h in self.restarted for h in self.holders[ctx.me])

    def stranded(self, keys_lost: int | None) -> frozenset[int]:
        """Nodes that lost their keys of this round while a seat they run has no escrow
        to rebuild its key (see :attr:`~p2p8s.table.Table.stranded`); ``keys_lost``: the
        round whose keys this node lost (restored), if any."""
        ctx = self._ctx
        if ctx.number == 0 or not ctx.going or not self.holders:
            return frozenset()
        nodes = set(self.restarted)
        if keys_lost == ctx.number:
            nodes.add(ctx.me)
        primary = self._sessions.by_seat.get(self._sessions.primary_seat)
        return frozenset(
            node for node in nodes if any(
                self.runner(d) == node and d not in self.recovered and (
                    not self.holders[d] or primary is None or primary.public_key(d) is None)
                for d in range(ctx.players)))

    def taken_at_end(self) -> set[int]:
        """The seats taken over at the end of this round (recovered, or run by another
        node than their own): run by the lowest live seat next round."""
        config = self._ctx.config
        return {s for s in range(config.players)
                if s in self.recovered or self.runner(s) != config.node_of(s)}

    def get_timer(self) -> float | None:
        """When the grace of a gone node runs out (then its takeover may begin)."""
        ctx = self._ctx
        if ctx.number == 0:
            return None
        times = [t for s, t in self.lost_at.items()
                 if s in self.gone and t > ctx.now and not any(
                     self.runner(d) == s and (d in self.recovered or d in self.asked)
                     for d in range(ctx.players))]
        times += [t + SERVE_WAIT_S for t in self.awaited.values() if t + SERVE_WAIT_S > ctx.now]
        return min(times, default=None)

    # ------------------------------------------------------------------ rounds

    def begin_round(self) -> None:
        """Decide who runs which seat this round, the escrow holders, and welcome the
        nodes of taken seats back (this node the adopter)."""
        ctx, config, n = self._ctx, self._ctx.config, self._ctx.players
        me, taken, number = ctx.me, self.taken, ctx.number
        self._begin_round_state()
        live = [s for s in range(n) if not config.computer(s) and s not in taken]
        self.live = live
        self.adopter = adopter = min(live) if live else 0

        def node(seat: int) -> int:
            return adopter if seat in taken else config.node_of(seat)

        # one holder per other live node; fewer than 2 holders would give a key away;
        # none at all when the host switched the escrow off (a lost player pauses)
        holders = [tuple(h for h in live if h != node(d)) if config.escrow else ()
                   for d in range(n)]
        self.holders = tuple(h if len(h) >= 2 else () for h in holders)
        for seat in range(n):
            home = config.node_of(seat)
            self.cands[seat] = {adopter, home} if seat in taken else {home}
        if adopter == me and not ctx.restoring:
            # (restoring, it replays a peer's log as an observer does: whether it
            # welcomed a node back or adopted its seats then, the first message decides)
            for seat in sorted(taken):
                home = config.node_of(seat)
                if home in self.gone or home == adopter:
                    self.cands[seat] = {adopter}
                    continue
                self.cands[seat] = {home}
                if home not in self.welcomed:
                    self.welcomed.add(home)
                    ctx.send(WELCOME, encode_round(number), to=home)
        elif me in taken and self.welcome == number:
            for seat in taken:
                if config.node_of(seat) == me:
                    self.cands[seat] = {me}

    def plays_no_seat(self) -> bool:
        """True when this node runs an observer session this round (its seat is taken
        over and it was not welcomed back, or it is restoring or an observer)."""
        ctx = self._ctx
        return ctx.observing or ctx.restoring or (
            ctx.me in self.taken and self.cands[ctx.me] != {ctx.me})

    def local_seats(self) -> list[int]:
        """The seats this node sends for this round (when it plays a seat)."""
        me = self._ctx.me
        return [s for s in range(self._ctx.players) if self.cands[s] == {me}]

    def adopt_taken(self) -> None:
        """The adopter runs the seats taken over whose node is gone: say so."""
        for seat in sorted(self.taken):
            if self.cands[seat] == {self.adopter}:
                self.adopted_seat(seat)

    def adopted_seat(self, seat: int) -> None:
        """``seat`` is run by the adopter this round: its key is revealed at once and
        every node checks the computer's moves for it."""
        self.adopted.add(seat)
        self._ctx.tell(tev.SeatTakenOver(InfoCode.ADOPTED, {"seat": seat, "by": self.adopter},
                                         seat=seat, by=self.adopter))

    def sends_for(self, sender: int, seat: int) -> bool:
        """May ``sender``'s node send ``seat``'s messages this round? The first message
        of a seat whose node is not decided yet decides it."""
        cands = self.cands[seat]
        if sender not in cands:
            return False
        if len(cands) > 1:
            cands.intersection_update({sender})
            if sender == self.adopter:
                self.adopted_seat(seat)
        return True

    # ------------------------------------------------------------------ nodes

    def check_peer(self, seat: int) -> None:
        """Raises MalformedInput unless ``seat`` is a human seat of another node."""
        config = self._ctx.config
        if not 0 <= seat < config.players or config.computer(seat) or seat == self._ctx.me:
            raise MalformedInput(TableCode.NO_NODE, seat=seat)

    def lost(self, seat: int, *, left: bool = False) -> None:
        """``seat``'s node is gone (``left``: it said so): take its seats over if the
        escrow allows."""
        ctx = self._ctx
        if ctx.number == 0:
            return
        self.recover_gone()
        escrowed = bool(self.holders) and bool(self.holders[seat])
        if seat not in self.paused and ctx.me not in self.paused and (escrowed or left):
            code = InfoCode.SEAT_LEFT if left else InfoCode.SEAT_GONE
            ctx.tell(tev.SeatAway(code, {"seat": seat}, seat=seat, paused=False))

    def back(self, seat: int, now: float) -> None:
        """``seat``'s node (gone) is reachable again."""
        ctx = self._ctx
        was_cut = ctx.number != 0 and self.isolated()
        self.gone.discard(seat)
        self.left.discard(seat)
        self.back_at[seat] = now
        if ctx.number != 0:
            self.paused.discard(seat)
            self._stop_serving(seat)
            if not self.isolated():
                self.paused.discard(ctx.me)
                if was_cut:
                    self.back_at[ctx.me] = now

    def on_leave(self, sender: int) -> None:
        """A ``leave`` payload: ``sender``'s player quit; take its seats over at once."""
        if sender not in self.gone:
            self.gone.add(sender)
            self.left.add(sender)
            self.lost_at[sender] = self._ctx.now  # no grace: it said so itself
            self.lost(sender, left=True)

    def on_restarted(self, sender: int, number: int) -> None:
        """A ``restarted`` payload: ``sender``'s node lost its keys of round ``number``."""
        ctx = self._ctx
        if ctx.number != 0 and number == ctx.number and sender not in self.restarted:
            self.restarted.add(sender)
            self.lost_at.setdefault(sender, ctx.now)
            ctx.tell(tev.SeatAway(InfoCode.SEAT_RESTARTED, {"seat": sender}, seat=sender,
                                  paused=False))

    def welcome_again(self, home: int, heard: Callable[[int, int], bool]) -> None:
        """``home``'s node restarted, or rebuilt its table from a log (its ``restarted``
        sync): the welcome this node (the adopter) sent it this round is sent again
        while no message of a seat it welcomed back to that node came from it this round
        (``heard(sender, seat)``). A welcome it acknowledged went with its old table (one
        that had not begun this round yet: it waited for a message that never came, soak
        seed 51), an acknowledged payload is not resent, and a table takes no welcome
        from a log — so it would watch the round as an observer while this node waits
        for its commitment, for good. A copy is a no-op there (:meth:`on_welcome`)."""
        ctx = self._ctx
        seats = [s for s in sorted(self.taken)
                 if ctx.config.node_of(s) == home and self.cands.get(s) == {home}]
        if (ctx.number and not ctx.restoring and home in self.welcomed and seats
                and not any(heard(home, s) for s in seats)):
            ctx.send(WELCOME, encode_round(ctx.number), to=home)

    def on_welcome(self, sender: int, number: int) -> None:
        """The adopter deals this node back in from round ``number``. A welcome that
        does not fit (a copy, a stale one, one of another sender) is a no-op: the audit
        ignores welcomes (the first message of the seat decides who runs it), so it can
        be no fault live either."""
        ctx = self._ctx
        if ctx.observing:
            return  # the log verifier: the first message of the seat decides who runs it
        if ctx.number == 0 or number > ctx.number:
            self.welcome = number
            return
        if (number != ctx.number or sender != self.adopter
                or self.cands.get(ctx.me) != {self.adopter, ctx.me}):
            return
        # nothing of this round moved without this node's commitment: start over
        self.welcome = number
        mine = []
        for seat in range(ctx.players):
            if self.cands[seat] == {self.adopter, ctx.me}:
                self.cands[seat] = {ctx.me}
                mine.append(seat)
        self._sessions.restart_as(mine)

    def on_key_recovered(self, ev: KeyRecovered) -> None:
        """A seat's key was rebuilt (or handed over): the computer plays it, hand open;
        this node's own seat: it goes silent and drops what it held back."""
        ctx, sessions = self._ctx, self._sessions
        self.recovered.add(ev.seat)
        self.cuts.close(ev.seat)
        cut = self.cuts.cut(ev.seat)
        held = self._held_of(ev.seat)
        # what this node holds never left it: nobody saw it, it voids nothing; but a
        # held move its game applied (an Act, or the cards it shows) cannot be undone by
        # the observer rebuild below, which redoes only the sessions
        sent = sessions.primary.chain_heads()[ev.seat][0] - len(held)
        moved = any(isinstance(m, (Act, PlayCards)) for m in held)
        if cut is not None and (sent > cut or moved):
            # messages of the seat went out from here that no holder had read, or its
            # game moved on a held move: void (only on the seat's own node, or an
            # observer of its log; never a fault), rebuilt from the holder's log
            self.void = True
            ctx.void = True
            ctx.void_reader = self.cuts.reader(ev.seat)
            return
        if ev.seat == ctx.me:
            sessions.silent = True
            kept = [o for o in self.held if o.payload[:1] != bytes([CRYPTO])]
            sessions.unsent += len(held)
            sessions.dropped.update(o.payload for o in self.held if o not in kept)
            sessions.rebuild = bool(sessions.dropped)
            self.held = kept
        gone = {self.runner(d) for d in self.recovered}
        proxy = min((s for s in range(ctx.players)
                     if s not in self.recovered and self.runner(s) not in gone),
                    default=self.proxy())
        if proxy is None:  # the last seat left too: nobody takes over, the log stops
            return
        code = InfoCode.HANDED_OVER if ev.seat in self.handed else InfoCode.REBUILT
        ctx.tell(tev.SeatTakenOver(code, {"seat": ev.seat, "by": proxy}, seat=ev.seat,
                                   by=proxy))

    def _held_of(self, seat: int) -> list[Message]:
        """The crypto messages of ``seat`` this node holds (see :meth:`release`)."""
        held = (decode(o.payload[1:], sender=None) for o in self.held
                if o.payload[:1] == bytes([CRYPTO]))
        return [m for m in held if m.seat == seat]

    def release(self, messages: list[Outgoing]) -> list[Outgoing]:
        """What may go out now of ``messages``: nothing while cut off from most of the
        table (kept until this node knows whether its seat was taken over meanwhile —
        then it is dropped, unsent), else what was kept first."""
        if self.holding():
            self.held.extend(messages)
            return []
        if self.held:
            messages, self.held = self.held + messages, []
        return messages

    # ------------------------------------------------------------------ takeover

    def recover_gone(self) -> bool:
        """Publish this node's escrow shares for the seats of gone nodes (once each);
        note a gone node whose seats cannot be rebuilt (the game waits)."""
        ctx, sessions = self._ctx, self._sessions
        changed = False
        if self.isolated():
            if ctx.me not in self.paused:
                self.paused.add(ctx.me)
                ctx.tell(tev.SeatAway(InfoCode.CUT_OFF, {"seat": ctx.me}, seat=ctx.me,
                                      paused=True))
            return False
        nodes = [node for node in sorted(self.gone | self.restarted)
                 if node in self.restarted or ctx.now >= self.lost_at.get(node, 0.0)]
        # one gone node that must act is taken over with every other gone node: the proxy
        # (the lowest seat whose key was not rebuilt) is then always a live node's seat.
        # An action that makes a seat due is taken in between two messages: the shares
        # wait until the intake has taken in what it can, so a share's echo (the cut)
        # counts every message of the seat that came before it (its log's order)
        due = any(node in self.left or node in self.restarted
                  or any(self.must_act(d) for d in range(ctx.players)
                         if self.runner(d) == node and d not in self.recovered)
                  for node in nodes)
        if due and not self.settled():
            nodes = []  # the next step, once the intake has taken in what it can
        for node in nodes:
            for d in range(ctx.players):
                if self.runner(d) != node or d in self.recovered or d in self.asked:
                    continue
                holders = self.holders[d]
                primary = sessions.primary
                # a holder gone, or one that lost its share this round (its own seat
                # taken over, or its node restarted): the key cannot be rebuilt now,
                # and a recovery begun could never finish (protocol/table.md "Limits")
                if (not holders or any(h in self.gone or h in self.recovered
                                       or h in self.restarted for h in holders)
                        or primary.public_key(d) is None):
                    if node not in self.paused:
                        self.paused.add(node)
                        why = (PauseWhy.NOT_NOW if holders else PauseWhy.NO_ESCROW
                               if ctx.config.escrow else PauseWhy.ESCROW_OFF)
                        ctx.tell(tev.SeatAway(InfoCode.SEAT_WAITS, {
                            "seat": node, "left": node in self.left, "why": why},
                            seat=node, paused=True))
                    continue
                if sessions.primary_seat in holders:
                    if due:
                        changed = self._publish(d)
                    else:
                        changed |= self._serve(d)
        self._name_withholders()
        return self._follow() or changed

    def must_act(self, seat: int) -> bool:
        """True when ``seat`` must act itself now, which only its key can do: a shuffle
        step to make, its turn, or the round's end (its key revealed). Until then a lost
        node's seat is served, not taken over (mental-poker.md §8.1)."""
        ctx = self._ctx
        if ctx.phase not in (Phase.CRYPTO, Phase.PLAY):
            return True
        if self._sessions.primary.awaits_shuffle(seat):
            return True
        return ctx.phase is Phase.PLAY and self.turn() == seat

    def _serve(self, seat: int) -> bool:
        """Serve ``seat``'s strips from this node's escrow share (once); True if begun."""
        sessions = self._sessions
        if seat in self.served:
            return False
        self.served.add(seat)
        sessions.emit(sessions.primary_seat, sessions.primary.serve(seat))
        sessions.drain()
        return True

    def _stop_serving(self, node: int) -> None:
        """``node`` is back: this node serves no more strips of the seats it runs that
        were served, not taken over (mental-poker.md §8.1: the seat strips the rest
        itself; the partial strips already out stay valid). Served again if it is lost
        again."""
        sessions = self._sessions
        back = [d for d in sorted(self.served) if self.runner(d) == node
                and d not in self.recovered]
        for seat in back:
            self.served.discard(seat)
            self.awaited.pop(seat, None)
            sessions.emit(sessions.primary_seat, sessions.primary.stop_serving(seat))
        if back:
            sessions.drain()

    def _name_withholders(self) -> None:
        """Name, once each, the holders whose partial strips of a served seat are still
        missing :data:`SERVE_WAIT_S` after they became due here."""
        ctx, primary = self._ctx, self._sessions.primary
        for seat in range(ctx.players):
            served = seat not in self.recovered and self.runner(seat) in self.gone
            missing = primary.awaited_partials(seat) if served else ()
            if not missing:
                self.awaited.pop(seat, None)
                continue
            since = self.awaited.setdefault(seat, ctx.now)
            if ctx.now < since + SERVE_WAIT_S:
                continue
            for holder in missing:
                if (seat, holder) not in self.named:
                    self.named.add((seat, holder))
                    ctx.tell(tev.Info(InfoCode.WITHHOLDS, {"seat": holder, "dealer": seat,
                                                           "wait_s": SERVE_WAIT_S}))

    def _publish(self, seat: int) -> bool:
        """Publish this node's escrow share of ``seat``'s key (once); True."""
        sessions = self._sessions
        self.asked.add(seat)
        out = sessions.primary.recover(seat)
        for msg in out.messages:
            self.cuts.shared(msg, self.holders)
        sessions.emit(sessions.primary_seat, out)
        sessions.drain()
        return True

    def _follow(self) -> bool:
        """Publish this node's share of every seat's key of which a share was seen: a
        takeover once begun is irrevocable, whether or not this node still hears the
        seat, so the key is rebuilt and its cut fixed (protocol/table.md "The cut")."""
        sessions = self._sessions
        primary, me = sessions.primary, sessions.primary_seat
        changed = False
        for d in range(self._ctx.players):
            if (d not in self.recovered and d not in self.asked and self.holders
                    and me in self.holders[d] and primary.recovering(d)):
                changed = self._publish(d)
        return changed

    def reveal_adopted(self) -> bool:
        """Reveal the key of each seat this node adopted as soon as the keys are in: its
        hand is open to every node, which checks the computer's moves for it."""
        sessions = self._sessions
        changed = False
        for seat in sorted(self.adopted):
            session = sessions.by_seat.get(seat)
            if session is not None and session.keys_ready and not session.key_revealed:
                sessions.emit(seat, session.end_round())
                sessions.drain()
                changed = True
        return changed

