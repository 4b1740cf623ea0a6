"""The hub: every open panel and viewer, fed from the controller's listener.

The controller calls :meth:`PanelHub.on_update` after each ``submit`` (from
whichever thread submitted: the web server's loop, the ticker, a GPIO
callback). The hub encodes the messages once, in that thread, and hands
them to the event loop, which writes them to every WebSocket in order.

It also keeps what the panel shows beyond the snapshot: the alerts (false
starts from the decisions; stuck buttons from the hardware layer through
:meth:`alert`) and the panel's final timer. The host's command log and the
pause are the host-command service's (``buzzer/runtime/host_commands.py``),
which every entrance shares; the hub shows them.

What a socket may send is bounded (:class:`SocketPolicy`): the pages send a
ping every 5 s and nothing else, so each socket has a token bucket; past it
messages are dropped unread, and a viewer that keeps flooding is closed
(1008, policy violation) and its address may not open a viewer socket for a
while. A ``resync`` is answered from the cached state message (rebuilt only
when the state changed), so that viewers asking for it cannot make the host's
commands wait behind their work on the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, NotRequired, Protocol, TypedDict

from buzzer.arbiter.decisions import Decision, FalseStart, Ignored, Note, NoteKind
from buzzer.runtime.command_log import CommandLog
from buzzer.runtime.host_commands import HostCommands
from buzzer.runtime.journal_outage import JournalOutage
from rules.snapshot import HostOptions, LiveSnapshot
from rules.state import Stage

#: Alerts that go by themselves, and after how long (game ns, the server's clock: a
#: tablet's own may differ): a page loaded later never shows them again.
TRANSIENT_ALERTS_NS = {"false_start": 8_000_000_000, "late": 30_000_000_000}


class Socket(Protocol):
    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


@dataclass(frozen=True)
class SocketPolicy:
    """What one WebSocket may send, and how many viewers may be connected."""

    #: Messages a second a socket may send, sustained (the pages: one ping in 5 s).
    rate: float = 2.0
    #: Messages a socket may send at once.
    burst: float = 10.0
    #: A viewer whose dropped messages pass this is closed with 1008 (policy violation).
    max_dropped: int = 20
    #: A longer message (characters) closes the socket with 1009 (message too big).
    max_message: int = 1024
    #: Viewer sockets open at once (the host's are never counted nor refused): a new
    #: viewer past this closes the oldest idle viewer of the busiest address (1013).
    max_viewers: int = 64
    #: Viewer sockets one address may hold; more from it are refused (403).
    max_viewers_per_address: int = 8
    #: Seconds a viewer's address closed for flooding may not open a viewer socket.
    penalty_s: float = 10.0


#: WebSocket close codes (RFC 6455).
POLICY_VIOLATION = 1008
MESSAGE_TOO_BIG = 1009
TRY_AGAIN_LATER = 1013


class Connection:
    """One open WebSocket: its outgoing queue, whether it is a logged-in host, and
    the token bucket of what it may send."""

    __slots__ = (
        "address",
        "close_code",
        "dropped",
        "host",
        "queue",
        "seen",
        "session",
        "socket",
        "stamp",
        "tokens",
    )

    def __init__(
        self,
        socket: Socket,
        host: bool,
        size: int,
        burst: float,
        address: str | None = None,
        session: str | None = None,
    ) -> None:
        self.socket = socket
        self.host = host
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(size)
        self.tokens = burst
        self.stamp = time.monotonic()
        self.dropped = 0
        self.address = address
        #: the host's session token the socket was opened with (None: a viewer's)
        self.session = session
        #: when the client last sent a message (or connected): the idlest goes first
        self.seen = self.stamp
        #: set when the server closes the socket itself (evicted, logged out)
        self.close_code: int | None = None

    def take(self, policy: SocketPolicy) -> bool:
        """One message's token, if the bucket has one (else the message is dropped)."""
        now = time.monotonic()
        self.tokens = min(policy.burst, self.tokens + (now - self.stamp) * policy.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        self.dropped += 1
        return False


class PanelExtras(HostOptions):
    """The host's options, and when the panel's final timer runs out (ns), if it runs."""

    final_timer_until: int | None


class PanelState(TypedDict):
    """The panel-level state beside a snapshot (:meth:`PanelHub.panel_state`): the
    host's also holds the command log and what the host reads now."""

    paused: bool
    alerts: list[dict[str, Any]]
    extras: PanelExtras
    commands: NotRequired[list[dict[str, Any]]]
    question: NotRequired[dict[str, Any] | None]


class StateReply(TypedDict):
    """A snapshot and the panel-level state: the body of ``/api/state`` (models.StateBody)."""

    snapshot: LiveSnapshot
    panel: PanelState


class PanelHub:
    """Fans the controller's updates out to the panels; keeps the panel-level state."""

    def __init__(
        self,
        commands: HostCommands,
        *,
        alert_size: int = 20,
        queue_size: int = 256,
        policy: SocketPolicy | None = None,
    ) -> None:
        self.commands = commands
        self.controller = controller = commands.controller
        self.policy = policy or SocketPolicy()
        self._lock = threading.Lock()
        self._queue_size = queue_size
        #: snapshot → what the host reads now: the question, its answers, a cat's
        #: own theme and value, the final's theme names and question (set by `svoyak
        #: run`: ``display.packages.PackageTexts.host_view``); shown to the host only.
        self.question_lookup: Callable[[LiveSnapshot], dict[str, Any] | None] | None = None
        self.alerts: deque[dict[str, Any]] = deque(maxlen=alert_size)
        self._alert_ids = itertools.count(1)
        self._final_timer_until: int | None = None
        self._last_visible: dict[str, object] = {}
        #: the core's undone lines when the last full update went out (an undo that
        #: changed nothing visible still changes the host's command log)
        self._last_undone: frozenset[int] = frozenset()
        #: the core's history (as a list object) and how much of it the last
        #: update had looked at: a new core (a resumed or new game) starts afresh
        self._history_list: list[Any] | None = None
        self._history_seen = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self._connections: set[Connection] = set()
        self._writers: set[asyncio.Task[None]] = set()
        #: bumped whenever a message goes out: the cached state messages are stale
        self._generations = itertools.count(1)
        self._generation = 0
        #: host? → (generation, version, the state message without its "now")
        self._state_cache: dict[bool, tuple[int, int, str]] = {}
        #: a viewer's address closed for flooding → monotonic time it may come back
        self._penalties: dict[str, float] = {}
        with controller.lock:
            first = controller.snapshot()
            self._last_visible = {k: v for k, v in first.items() if k not in ("version", "now")}
            self._history_list = controller.core.history
            self._history_seen = len(self._history_list)
            controller.subscribe(self.on_update)

    # -- the event loop --------------------------------------------------------

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Called at start-up from the loop that serves the WebSockets."""
        self._loop = loop
        self._loop_thread = threading.get_ident()

    async def close_all(self) -> None:
        for conn in list(self._connections):
            with contextlib.suppress(asyncio.QueueFull):
                conn.queue.put_nowait(None)
        for task in list(self._writers):
            task.cancel()
        self._connections.clear()

    # -- state -----------------------------------------------------------------

    @property
    def paused(self) -> bool:
        """Whether the game is paused (the engine's pause, a journaled input: A-G-D1)."""
        return self.commands.paused

    def extras(self) -> PanelExtras:
        """What the host's controls need beyond the snapshot: the core's
        :meth:`~buzzer.core.GameCore.host_options` (whose turn, legal ranges, the
        next round), and the panel's own final timer."""
        with self.controller.lock:
            stage = self.controller.core.game.stage
            options = self.controller.host_options()
            timing = stage in (Stage.FINAL_STAKES, Stage.FINAL_JUDGING)
            return {**options, "final_timer_until": self._final_timer_until if timing else None}

    def command_log(self) -> list[dict[str, Any]]:
        """The recent host commands, newest first, with their journal lines (the service's)."""
        return self.commands.log.recent()

    def panel_state(self, host: bool, snapshot: LiveSnapshot | None = None) -> PanelState:
        state: PanelState = {
            "paused": self.paused,
            "alerts": self._live_alerts(),
            "extras": self.extras(),
        }
        if host:
            state["commands"] = self.command_log()
            state["question"] = self.host_question(
                snapshot if snapshot is not None else self.controller.snapshot()
            )
        return state

    def host_question(self, snapshot: LiveSnapshot) -> dict[str, Any] | None:
        """The question being played, with its answer: for the host's panel only
        (never sent to viewers, whose pages a player's phone may show). Takes the
        snapshot it is about: asking the controller here could deadlock, as a
        listener runs while a ticking thread may hold the controller's lock."""
        lookup = self.question_lookup
        return lookup(snapshot) if lookup is not None else None

    def state_message(self, host: bool) -> str:
        """The whole state: what a panel gets on connect, and on a resync.

        Built once per change of state (and per kind of reader), then served
        from the cache with the game clock's ``now`` stamped afresh: a viewer's
        resync costs a string copy, not a snapshot, the controller's lock and
        an encoding."""
        generation = self._generation
        cached = self._state_cache.get(host)
        if cached is None or cached[0] != generation or cached[1] != self.controller.version:
            snapshot = self.controller.snapshot()
            del snapshot["now"]
            head = json.dumps(
                {
                    "type": "state",
                    "version": snapshot["version"],
                    "panel": self.panel_state(host, snapshot),
                },
                ensure_ascii=False,
            )
            body = json.dumps(snapshot, ensure_ascii=False)
            # '{..., "snapshot": {...' : the snapshot's "now" is appended on each use.
            cached = (generation, snapshot["version"], head[:-1] + ', "snapshot": ' + body[:-1])
            self._state_cache[host] = cached
        return f'{cached[2]}, "now": {self.controller.now()}}}}}'

    # -- the controller's listener ---------------------------------------------

    def on_update(self, decisions: list[Decision], snapshot: LiveSnapshot) -> None:
        """After every submit: remember the snapshot, raise alerts, send the update.

        An input that decided nothing yet and changed nothing visible (a host
        command or a press held for the settle window) is sent as a short
        ``version`` message: the panels learn the new version without
        re-reading an unchanged snapshot.
        """
        self._note_decisions(decisions)
        paused = snapshot.get("paused_at") is not None  # the engine's pause (A-G-D1)
        visible = {k: v for k, v in snapshot.items() if k not in ("version", "now")}
        # A host command that changes nothing visible (a final stake replaced, or
        # undone) still changes the host's command log: it goes out in full.
        # One update may cover a whole batch (a command, then the tick that
        # followed it): every input since the last update is looked at, not only
        # the newest one.
        core = self.controller.core
        history = core.history
        with self._lock:
            start = self._history_seen if history is self._history_list else 0
            end = len(history)
            self._history_list, self._history_seen = history, end
        logged = any(CommandLog.shows(history[i]) for i in range(start, end))
        logged = logged or core.undone != self._last_undone
        self._last_undone = core.undone
        if not decisions and not logged:
            with self._lock:
                unchanged = visible == self._last_visible
                if unchanged:
                    short = (
                        f'{{"type": "version", "version": {snapshot["version"]}, '
                        f'"now": {snapshot["now"]}}}'
                    )
            if unchanged:
                self._dispatch(short, short)
                return
        extras = self.extras()
        question = self.host_question(snapshot)
        with self._lock:
            self._last_visible = visible
            body_snapshot = json.dumps(snapshot, ensure_ascii=False)
            body_decisions = "[" + ", ".join(d.to_json() for d in decisions) + "]"
            public = {"paused": paused, "alerts": self._live_alerts(), "extras": extras}
            head = f'{{"type": "update", "version": {snapshot["version"]}, '
            head += f'"decisions": {body_decisions}, "snapshot": {body_snapshot}, "panel": '
            viewer = head + json.dumps(public, ensure_ascii=False) + "}"
            host_panel = dict(public, commands=self.command_log(), question=question)
            host = head + json.dumps(host_panel, ensure_ascii=False) + "}"
        self._dispatch(viewer, host)

    def _note_decisions(self, decisions: list[Decision]) -> None:
        for decision in decisions:
            if isinstance(decision, FalseStart):
                self.alert(
                    "false_start",
                    decision.seat,
                    broadcast=False,
                    t=decision.t,
                    locked_until=decision.locked_until,
                )
            elif isinstance(decision, Ignored) and decision.reason == "late":
                if decision.ahead_of is not None and decision.ahead_us is not None:
                    # Earlier than the press that got the floor, but starved: the
                    # decision stands and the host may correct the score. It stays
                    # until dismissed (not a transient "late").
                    self.alert(
                        "starved",
                        decision.seat,
                        broadcast=False,
                        t=decision.t,
                        ahead_of=decision.ahead_of,
                        ahead_ms=round(decision.ahead_us / 1000, 1),
                        late_s=round((decision.late_us or 0) / 1e6, 2),
                    )
                else:
                    self.alert("late", decision.seat, broadcast=False, t=decision.t)
            elif isinstance(decision, Note) and decision.type is NoteKind.SOURCE_FAULT:
                source = str(decision.get("source"))
                if decision.get("state") == "back":
                    # Proving its time again takes down the "silent"/"offline" alert,
                    # not a loss it told of: presses lost stay lost until dismissed.
                    self._clear_source_state(source)
                else:
                    reason = _source_fault_reason(decision.get("detail"))
                    if reason.get("why") in SUMMED_SOURCE_REASONS:
                        reason["count"] += self._take_summed(source, reason["why"])
                    self.alert(
                        "source",
                        None,
                        broadcast=False,
                        t=decision.t,
                        source=source,
                        detail=decision.get("detail"),
                        **reason,
                    )
            elif isinstance(decision, Note) and decision.type is NoteKind.FINAL_TIMER:
                until = decision.get("until")
                if isinstance(until, int | float):
                    self._final_timer_until = round(until * 1e9)

    # -- panel-level state -------------------------------------------------------

    def alert(
        self, kind: str, seat: int | None, *, broadcast: bool = True, **detail: Any
    ) -> dict[str, Any]:
        """Raise an alert on every panel. Thread-safe: the hardware layer calls it,
        e.g. ``hub.alert("stuck", seat, held_ms=...)`` for a button held down."""
        record: dict[str, Any] = {
            "id": next(self._alert_ids),
            "kind": kind,
            "seat": seat,
            "at": time.time(),
            **detail,
        }
        with self._lock:
            if kind == "stuck":
                self._drop(lambda a: a["kind"] == "stuck" and a["seat"] == seat)
            self.alerts.append(record)
        if broadcast:
            self.broadcast_panel()
        return record

    def clear_alerts(
        self, kind: str | None = None, seat: int | None = None, source: str | None = None
    ) -> None:
        """Take alerts down (e.g. ``clear_alerts("stuck", 3)`` when the button comes up)."""
        with self._lock:
            self._drop(
                lambda a: (
                    (kind is None or a["kind"] == kind)
                    and (seat is None or a["seat"] == seat)
                    and (source is None or a.get("source") == source)
                )
            )
        self.broadcast_panel()

    def journal_state(self, outage: JournalOutage, back: bool) -> None:
        """The journal failed (``back`` False) or works again: one "journal" alert that
        says why and what was not recorded, kept up to date (thread-safe: the
        runtime's thread calls it, ``Runtime.on_journal``). Once it works again,
        a "journal_back" alert says what is missing from the journal, until the
        host dismisses it."""
        with self._lock:
            self._drop(lambda a: a["kind"] in ("journal", "journal_back"))
        if not back:
            self.alert("journal", None, **outage.to_alert())
        elif outage.lost:
            self.alert("journal_back", None, **outage.to_alert())
        else:
            self.broadcast_panel()

    def dismiss(self, alert_id: int | None) -> None:
        with self._lock:
            self._drop(lambda a: alert_id is None or a["id"] == alert_id)
        self.broadcast_panel()

    def _live_alerts(self) -> list[dict[str, Any]]:
        """The alerts to show now: a transient one (a false start, a late press) only
        within its time of the game clock (:data:`TRANSIENT_ALERTS_NS`), which it
        carries as ``ttl_ms`` so that the pages take it down on time from this one
        policy (they hold no copy of it)."""
        now = self.controller.now()
        live: list[dict[str, Any]] = []
        for alert in list(self.alerts):
            ttl_ns = TRANSIENT_ALERTS_NS.get(alert["kind"])
            if ttl_ns is None:
                live.append(alert)
            elif not (isinstance(alert.get("t"), int) and now - alert["t"] > ttl_ns):
                live.append({**alert, "ttl_ms": ttl_ns // 1_000_000})
        return live

    def _clear_source_state(self, source: str) -> None:
        """Take down the source's "silent"/"offline" alerts (it proves its time again)."""

        def doomed(alert: dict[str, Any]) -> bool:
            return (
                alert["kind"] == "source"
                and alert.get("source") == source
                and alert.get("why") not in LASTING_SOURCE_REASONS
            )

        with self._lock:
            self._drop(doomed)
        self.broadcast_panel()

    def _take_summed(self, source: str, why: str) -> int:
        """Take down the source's standing alert of the same loss (``why``) and
        return its count: one alert that grows, not one per report."""
        with self._lock:
            before = [
                a
                for a in self.alerts
                if a["kind"] == "source" and a.get("source") == source and a.get("why") == why
            ]
            self._drop(lambda a: any(a is b for b in before))
        return sum(int(a.get("count") or 0) for a in before)

    def _drop(self, doomed: Callable[[dict[str, Any]], bool]) -> None:
        kept = [a for a in self.alerts if not doomed(a)]
        self.alerts.clear()
        self.alerts.extend(kept)

    def broadcast_panel(self) -> None:
        """Send the panel-level state (pause, alerts) to everyone."""
        version = self.controller.version
        viewer = json.dumps(
            {"type": "panel", "version": version, "panel": self.panel_state(False)},
            ensure_ascii=False,
        )
        host = json.dumps(
            {"type": "panel", "version": version, "panel": self.panel_state(True)},
            ensure_ascii=False,
        )
        self._dispatch(viewer, host)

    # -- fan-out -----------------------------------------------------------------

    def _dispatch(self, viewer: str, host: str) -> None:
        self._generation = next(self._generations)  # the cached state is stale
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        if threading.get_ident() == self._loop_thread:
            self._fanout(viewer, host)
        else:
            loop.call_soon_threadsafe(self._fanout, viewer, host)

    def _fanout(self, viewer: str, host: str) -> None:
        for conn in self._connections:
            message = host if conn.host else viewer
            try:
                conn.queue.put_nowait(message)
            except asyncio.QueueFull:
                # A client this far behind gets the whole state instead of the backlog.
                while not conn.queue.empty():
                    conn.queue.get_nowait()
                conn.queue.put_nowait(self.state_message(conn.host))

    def admit(self, host: bool, address: str | None) -> bool:
        """Whether a new socket may be served: every host's; a viewer's unless its
        address holds ``max_viewers_per_address`` already or was closed for flooding a
        moment ago. With ``max_viewers`` open, the oldest idle viewer of the busiest
        address is closed (1013) to make room: one address never locks the others out."""
        if host:
            return True
        if address is not None and self._penalties:
            now = time.monotonic()
            for where, until in list(self._penalties.items()):
                if until <= now:
                    del self._penalties[where]
            if address in self._penalties:
                return False
        viewers = [c for c in self._connections if not c.host and c.close_code is None]
        per_address: dict[str | None, list[Connection]] = {}
        for conn in viewers:
            per_address.setdefault(conn.address, []).append(conn)
        if len(per_address.get(address, ())) >= self.policy.max_viewers_per_address:
            return False
        if len(viewers) >= self.policy.max_viewers:
            busiest = max(per_address.values(), key=len)
            self._close(min(busiest, key=lambda c: c.seen), TRY_AGAIN_LATER)
        return True

    def end_sessions(self, sessions: Collection[str]) -> None:
        """Close at once (1008) the host sockets opened with these session tokens (a
        logout, an evicted session): not one more host-only message reaches them.
        Thread-safe."""
        if not sessions:
            return
        doomed = frozenset(sessions)
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        if threading.get_ident() == self._loop_thread:
            self._end_sessions(doomed)
        else:
            loop.call_soon_threadsafe(self._end_sessions, doomed)

    def _end_sessions(self, doomed: frozenset[str]) -> None:
        for conn in list(self._connections):
            if conn.host and conn.session in doomed:
                self._close(conn, POLICY_VIOLATION)

    def _close(self, conn: Connection, code: int) -> None:
        """Close a socket from the server's side: nothing queued is sent any more."""
        conn.close_code = code
        self._connections.discard(conn)
        while not conn.queue.empty():
            conn.queue.get_nowait()
        conn.queue.put_nowait(None)

    async def serve(
        self,
        socket: Socket,
        host: bool,
        incoming: Callable[[], Any],
        address: str | None = None,
        session: str | None = None,
    ) -> None:
        """Serve one WebSocket until it closes: the state first, then every update.

        ``incoming`` awaits the client's next text message (``{"type": "resync"}``
        asks for the whole state again, ``{"type": "ping"}`` is answered with a
        pong; anything else is ignored: a panel acts only through the HTTP API).
        What the socket sends is rate-limited (:class:`SocketPolicy`); ``address``
        is the client's, remembered when a viewer is closed for flooding and counted
        against the viewers' caps; ``session`` is the host's session token (its logout
        closes the socket, :meth:`end_sessions`).
        """
        policy = self.policy
        conn = Connection(socket, host, self._queue_size, policy.burst, address, session)
        conn.queue.put_nowait(self.state_message(host))
        self._connections.add(conn)
        writer = asyncio.ensure_future(self._write(conn))
        self._writers.add(writer)
        closing: tuple[int, str] | None = None
        try:
            while True:
                text = await incoming()
                if text is None or conn.close_code is not None:
                    break
                conn.seen = time.monotonic()
                if len(text) > policy.max_message:
                    closing = (MESSAGE_TOO_BIG, "message too big")
                    break
                if not conn.take(policy):
                    if not host and conn.dropped > policy.max_dropped:
                        closing = (POLICY_VIOLATION, "too many messages")
                        if address is not None:
                            self._penalties[address] = time.monotonic() + policy.penalty_s
                            while len(self._penalties) > 1024:  # many addresses: the oldest go
                                del self._penalties[next(iter(self._penalties))]
                        break
                    continue  # throttled: dropped unread
                try:
                    request = json.loads(text)
                except ValueError:
                    continue
                if isinstance(request, dict) and request.get("type") == "resync":
                    self._fanout_one(conn, self.state_message(host))
                elif isinstance(request, dict) and request.get("type") == "ping":
                    self._fanout_one(conn, '{"type": "pong"}')
        finally:
            self._connections.discard(conn)
            writer.cancel()
            self._writers.discard(writer)
        if closing is not None:
            with contextlib.suppress(Exception):
                await socket.close(code=closing[0], reason=closing[1])

    def _fanout_one(self, conn: Connection, message: str) -> None:
        with contextlib.suppress(asyncio.QueueFull):
            conn.queue.put_nowait(message)

    async def _write(self, conn: Connection) -> None:
        try:
            while True:
                message = await conn.queue.get()
                if message is None:
                    await conn.socket.close(code=conn.close_code or 1000)
                    return
                await conn.socket.send_text(message)
        except Exception:  # the client went away: the reader side notices and cleans up
            return

    @property
    def connections(self) -> int:
        return len(self._connections)


#: Source alerts that report a loss or a misfit, not a state: a "back" keeps them.
LASTING_SOURCE_REASONS = frozenset(
    {"lost", "overflow", "future", "future_tick", "unseated", "buttons", "held"}
)
#: Losses whose counts add up in one standing alert.
SUMMED_SOURCE_REASONS = frozenset({"lost", "overflow", "future", "future_tick"})


def _source_fault_reason(detail: object) -> dict[str, Any]:
    """The journaled (English, technical) fault detail as a reason the page can translate:
    ``why`` "offline" (never connected, or gone) or "silent" with ``ms`` behind the clock;
    from the Pico link's troubles (``firmware_bridge.link.LinkTrouble``): "lost" (``count``
    presses and releases the device dropped before they arrived), "overflow" (``count``
    edges its capture ring lost), "future" (``count`` events refused, stamped up
    to ``ms`` past the device's own time: a firmware fault), "future_tick" (``count``
    heartbeats refused, their time up to ``ms`` ahead), "unseated" (``button``
    has no seat of the game's ``seats``), "buttons" (the device has ``count``
    buttons for ``seats`` seats), "held" (``button``: the buttons, e.g. "1, 3",
    were held at the Pico's power-up: a stuck button or cable)."""
    text = str(detail or "")
    if text.startswith("no watermark"):
        return {"why": "offline"}
    found = re.match(r"watermark (\d+) ms behind", text)
    if found:
        return {"why": "silent", "ms": int(found.group(1))}
    found = re.match(r"(\d+) event\(s\) lost", text)
    if found:
        return {"why": "lost", "count": int(found.group(1))}
    found = re.match(r"(\d+) edge\(s\) lost", text)
    if found:
        return {"why": "overflow", "count": int(found.group(1))}
    found = re.match(r"(\d+) event\(s\) refused: stamped up to (\d+) ms past", text)
    if found:
        return {"why": "future", "count": int(found.group(1)), "ms": int(found.group(2))}
    found = re.match(r"(\d+) heartbeat\(s\) refused: their time up to (\d+) ms past", text)
    if found:
        return {"why": "future_tick", "count": int(found.group(1)), "ms": int(found.group(2))}
    found = re.match(r"button (\d+) of the device has no seat in this game \((\d+) seats\)", text)
    if found:
        return {"why": "unseated", "button": int(found.group(1)), "seats": int(found.group(2))}
    found = re.match(r"the device has (\d+) buttons, the game (\d+) seats", text)
    if found:
        return {"why": "buttons", "count": int(found.group(1)), "seats": int(found.group(2))}
    found = re.match(r"button\(s\) ([\d, ]+) held at the Pico's power-up", text)
    if found:
        return {"why": "held", "button": found.group(1)}
    return {}
