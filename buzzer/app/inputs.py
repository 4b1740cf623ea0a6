"""GPIO buttons and the Pico in a running game: hardware wired into the runtime.

gpiozero's callbacks and the Pico link's reader only stamp and hand over:
each becomes a source of the runtime (``sources.py``) that delivers inputs
stamped at the edge and proves how far its time is complete. Host buttons
are host commands: they go through the runtime's host-command service
(``host_commands.py``), like the panel's taps — refused while the game is
paused, tried on a copy of the core first — stamped at their edge. Lamps
follow the decisions through the one lamp policy (``lamps.py``); a stuck
button is an alert on the host's panel.

Nothing here reaches for the panel or a clock of its own: ``attach_gpio``
and ``attach_bridge`` take the runtime and, optionally, what to call about
stuck buttons (:class:`Alerts`).

A button wired beyond the game's players (button 7 of the Pico's 8 in a
3-player game, a pin map of more buttons than players) has no seat: its
presses are dropped here, at the edge, counted (``unseated``) and logged
once per button — never journaled as a seat the game does not have, which
a replay or ``--resume`` would refuse. The controller refuses such a press
too (it checks every line as the replay reads it), so a source that slips
one through cannot poison the journal either.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Protocol

from buzzer.app.both import pair
from buzzer.arbiter.commands import Sender
from buzzer.arbiter.events import HostInput, Press, Release
from buzzer.errors import SvoyakError
from buzzer.runtime.host_commands import HostCommands, Outcome
from buzzer.runtime.refusals import Message
from buzzer.runtime.runtime import Runtime
from buzzer.runtime.sources import EdgeSource, LinkSource
from buzzer.words import tr

log = logging.getLogger(__name__)


class Alerts(Protocol):
    """Where hardware trouble is shown (the panel implements it)."""

    def stuck_button(self, seat: int, held_ms: int | None = None) -> None: ...

    def button_released(self, seat: int) -> None: ...


class GpioSink:
    """The ButtonBank's sink: presses to the runtime, host buttons to the host-command
    service, stuck buttons to the alerts."""

    def __init__(
        self,
        source: EdgeSource,
        alerts: Alerts | None,
        seats: int = 16,
        commands: HostCommands | None = None,
    ) -> None:
        self.source = source
        self.alerts = alerts
        #: The game's seats: a button beyond them has no seat (dropped, counted).
        self.seats = seats
        #: The host-command service (the runtime's, by default).
        self.commands = commands
        #: What the host's buttons were refused, in the host's sentences.
        self.refused: list[Message] = []
        #: Presses and releases of buttons with no seat in this game, by seat.
        self.unseated: dict[int, int] = {}

    def __call__(self, event: Any) -> None:
        from hardware.buttons import ButtonFreed, ButtonStuck

        alerts = self.alerts
        if isinstance(event, ButtonStuck):
            if alerts is not None and event.seat is not None:
                alerts.stuck_button(event.seat, (event.t - event.down_since) // 1_000_000)
            return
        if isinstance(event, ButtonFreed):
            if alerts is not None and event.seat is not None:
                alerts.button_released(event.seat)
            return
        if isinstance(event, Press | Release):
            if not 1 <= event.seat <= self.seats:
                count = self.unseated.get(event.seat, 0)
                self.unseated[event.seat] = count + 1
                if not count:
                    log.warning(
                        "GPIO button of seat %d: no such seat in this game (%d players), "
                        "its presses are ignored",
                        event.seat,
                        self.seats,
                    )
                return
            self.source.put(event)
            return
        if isinstance(event, HostInput):
            commands = self.commands or self.source.runtime.commands
            sent = commands.submit_stamped(event, self.source, sender=Sender.BUTTONS)
            sent.add_done_callback(self._refused)

    def _refused(self, future: Future[Outcome]) -> None:
        refusal = future.result().refusal
        if refusal is not None:
            self.refused.append(refusal)
            log.warning("host button refused: %s (%s)", refusal.en, refusal.engine or refusal.code)


def attach_gpio(
    runtime: Runtime,
    pinmap: Any,
    pin_factory: Any,
    alerts: Alerts | None = None,
) -> Attached:
    """Buttons and lamps of ``pinmap`` on ``pin_factory``, wired into the game."""
    from hardware.buttons import ButtonBank
    from hardware.lamps import LampBoard

    source = runtime.edge_source("gpio")
    sink = GpioSink(source, alerts, len(runtime.controller.core.setup.players))
    lamps = LampBoard(pinmap, pin_factory)
    runtime.controller.subscribe(lamps.apply)
    bank = ButtonBank(pinmap, pin_factory, sink)
    source.proof = bank.proven_until
    return Attached(runtime, source, (bank, lamps), sink, pinmap=pinmap)


class PicoUnavailable(SvoyakError):
    """The Pico named on the command line does not answer: the game must not start.

    Playing on without it would be worse than not starting: the players would
    press buttons that go nowhere. ``str()`` is the technician's message, in
    Russian and English, naming the port and what to check.
    """

    def __init__(
        self,
        url: str,
        reason_ru: str,
        reason_en: str,
        advice_ru: str | None = None,
        advice_en: str | None = None,
    ) -> None:
        self.url = url
        advice_ru = advice_ru or tr("run.pico.advice", "ru")
        advice_en = advice_en or tr("run.pico.advice", "en")
        ru = tr("run.pico.unavailable", "ru", url=url, reason=reason_ru, advice=advice_ru)
        en = tr("run.pico.unavailable", "en", url=url, reason=reason_en, advice=advice_en)
        super().__init__(f"{ru}\n{en}")


def firmware_refusal(url: str, hello: Any) -> PicoUnavailable | None:
    """The Pico answered but must not decide a game: a Pico 2 (RP2350), or a
    firmware other than the one this release ships (its HELLO's identity)."""
    from firmware_bridge.shipped import hello_refusal

    why = hello_refusal(hello)
    if why is None:
        return None
    if hello.unsupported_chip:
        # The English reason is the bridge's own (hello_refusal), said the same everywhere.
        return PicoUnavailable(url, tr("run.pico.pico2", "ru"), why, *pair("run.pico.connect_pico"))
    return PicoUnavailable(
        url,
        tr("run.pico.other_firmware", "ru", firmware_id=hello.firmware_id.hex()),
        why,
        *pair("run.pico.install"),
    )


def too_few_buttons(url: str, buttons: int, players: int) -> PicoUnavailable:
    """The Pico answered but has fewer buttons than the game has players: the
    players beyond them could never press, so the game must not start."""
    first = buttons + 1
    who = "run.pico.player_left_out" if first == players else "run.pico.players_left_out"
    ru, en = pair(who, first=first, players=players)
    return PicoUnavailable(
        url,
        tr("run.pico.too_few_buttons", "ru", buttons=buttons, players=players, who=ru),
        tr("run.pico.too_few_buttons", "en", buttons=buttons, players=players, who=en),
        *pair("run.pico.wire_buttons", buttons=buttons),
    )


class _TroubleGate:
    """The link's ``on_trouble``: held until the source joins the game, then handed on.

    A trouble found while ``attach_bridge`` still waits for the handshake (a
    device with too few buttons) is not lost, nor journaled for a game that
    then refuses to start with that Pico. Each call answers a future that is
    done once the trouble is journaled (the link acknowledges an event it
    refused only then), a held one's too, once the source has joined.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: list[tuple[Any, Future[None]]] = []
        self._source: LinkSource | None = None

    def __call__(self, trouble: Any) -> Future[None]:
        with self._lock:
            source = self._source
            if source is None:
                waiting: Future[None] = Future()
                self._held.append((trouble, waiting))
                return waiting
        return source.trouble(trouble)

    def open(self, source: LinkSource) -> None:
        with self._lock:
            self._source = source
            held, self._held = self._held, []
        for trouble, waiting in held:
            source.trouble(trouble).add_done_callback(_ends_as(waiting))


def _ends_as(waiting: Future[None]) -> Callable[[Future[None]], None]:
    """A done-callback that ends ``waiting`` as the future it is called with ended."""

    def relay(done: Future[None]) -> None:
        if done.cancelled():
            waiting.cancel()
        elif (error := done.exception()) is not None:
            waiting.set_exception(error)
        else:
            waiting.set_result(None)

    return relay


class _OpenErrors:
    """The link's serial factory, remembering why the port last failed to open.

    The link retries quietly (a Pico unplugged mid-game is expected to come
    back); at start-up the reason is what the technician needs to read.
    """

    def __init__(self, factory: Any) -> None:
        self.factory = factory
        self.last: BaseException | None = None
        self.opened = False

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            port = self.factory(*args, **kwargs)
        except Exception as exc:
            self.last = exc
            raise
        self.opened = True
        return port


def _reason(errors: _OpenErrors, timeout_s: float, link: Any = None) -> tuple[str, ...]:
    """Why the Pico did not answer, in Russian and English (and advice, where it differs)."""
    import os

    from firmware_bridge.ports import port_held_elsewhere
    from firmware_bridge.protocol import PROTOCOL_VERSION

    exc = errors.last
    if not errors.opened and exc is not None and port_held_elsewhere(exc):
        return (*pair("run.pico.port_held"), *pair("run.pico.stop_service"))
    if not errors.opened and exc is not None:
        errno = getattr(exc, "errno", None)
        why = os.strerror(errno) if isinstance(errno, int) else str(exc)
        return pair("run.pico.cannot_open", why=why)
    if link is not None and _speaks_another_protocol(link):
        # Frames that are whole but of another protocol: the Pico runs another
        # release of the firmware. Said as such, not as "no Pico".
        return pair("run.pico.other_protocol", version=PROTOCOL_VERSION)
    return pair("run.pico.no_answer", seconds=f"{timeout_s:g}")


#: Whole frames of another protocol version, and none of ours, that make a Pico
#: one running another release's firmware (a stray corrupt frame is not that).
OTHER_PROTOCOL_FRAMES = 3


def _speaks_another_protocol(link: Any) -> bool:
    stats = link.stats()
    return bool(stats.bad_versions >= OTHER_PROTOCOL_FRAMES and stats.frames == 0)


def _wait_for_pico(link: Any, timeout_s: float) -> bool:
    """Whether the link connected within ``timeout_s``. A Pico that speaks another
    protocol will not connect however long it is given: that ends the wait at
    once, and the technician reads why without waiting out the timeout."""
    deadline = time.monotonic() + timeout_s
    while True:
        left = deadline - time.monotonic()
        if link.wait_connected(max(0.0, min(left, 0.05))):
            return True
        if left <= 0 or _speaks_another_protocol(link):
            return False


def attach_bridge(
    runtime: Runtime,
    url: str,
    link_config: Any = None,
    connect_timeout_s: float = 5.0,
    *,
    required: bool = False,
) -> Attached:
    """The Pico at ``url`` (a device path, /dev/ttyACM0 or a pty; or a pyserial URL), wired in.

    The link gets up to ``connect_timeout_s`` to connect (the handshake and a
    first clock fit) before its source joins the watermark: a Pico that is
    still booting is not a fault. ``required`` (``svoyak run --serial``): one
    that does not connect in that time is :class:`PicoUnavailable`, and
    nothing is attached. Otherwise it joins anyway, and is a fault on the
    host's panel until it does. Once attached, a link that goes dead is the
    runtime's source fault: an alert on the host's panel, taken down when the
    Pico is back (``runtime.py``, the hub's ``source`` alert).

    What the link must tell (``LinkTrouble``: presses lost for good, edges its
    capture ring lost, a button with no seat, fewer buttons than players,
    events stamped in the device's future) is journaled as the source's fault
    and shown on the host's panel. A Pico with fewer buttons than the game has
    players is :class:`PicoUnavailable` when ``required`` (players who could
    never press), an alert otherwise. The link acknowledges an event to the
    Pico only once the runtime has journaled it (or its refusal's fault).
    """
    from firmware_bridge.lamps import BridgeLamps
    from firmware_bridge.link import BridgeLink, LinkConfig
    from firmware_bridge.serial_port import open_port

    players = len(runtime.controller.core.setup.players)
    config = link_config or LinkConfig(url)
    if config.seats is None:
        # Button i is seat i + 1, for the game's seats only: the buttons beyond
        # them are counted as unseated by the link, never delivered.
        config = dataclasses.replace(config, seats=tuple(range(1, players + 1)))
    if config.not_before_ns is None:
        # This game's presses are those from its t = 0 on. Resumed, that takes
        # what the Pico still holds (never acknowledged: never journaled), the
        # presses of the moments the host was down included: a restart loses
        # none (journaled, and ruled late where their time was decided).
        config = dataclasses.replace(config, not_before_ns=runtime.controller.t0_ns)
    holder: list[LinkSource] = []
    # The link's own opener (poll, not select: a port at any descriptor number),
    # remembering why it failed for the start-up's message.
    errors = _OpenErrors(open_port)
    troubles = _TroubleGate()
    link = BridgeLink(
        config,
        # One clock for the game: the link maps the Pico's ticks onto the very
        # clock the controller turns into game time (a dilated chip model's,
        # in the benchmarks; the monotonic clock otherwise).
        clock=runtime.controller.clock,
        sink=lambda item: holder[0].put(item),
        on_watermark=runtime.nudge,
        serial_factory=errors,
        on_trouble=troubles,
    )
    source = LinkSource(runtime, "pico", link)
    holder.append(source)
    link.start()
    connected = _wait_for_pico(link, connect_timeout_s)
    if required and link.device is not None:
        # A Pico that said HELLO but must not play: a Pico 2, or another
        # firmware than this release's (firmware_bridge/shipped.py).
        refusal = firmware_refusal(url, link.device)
        if refusal is not None:
            link.stop()
            raise refusal
    if not connected:
        if required:
            link.stop()
            raise PicoUnavailable(url, *_reason(errors, connect_timeout_s, link))
        log.warning("the Pico at %s did not connect within %.0f s", url, connect_timeout_s)
    hello = link.device
    if required and hello is not None and hello.buttons < players:
        link.stop()
        raise too_few_buttons(url, hello.buttons, players)
    runtime.add_source(source)
    troubles.open(source)
    lamps = BridgeLamps(link, players)
    runtime.controller.subscribe(lamps.apply)
    return Attached(runtime, source, (_Stoppable(link),), None, link)


@dataclasses.dataclass
class _Stoppable:
    link: Any

    def close(self) -> None:
        self.link.stop()


@dataclasses.dataclass
class Attached:
    """Hardware attached to a runtime; ``close()`` releases it and removes its source."""

    runtime: Runtime
    source: Any
    parts: tuple[Any, ...]
    sink: GpioSink | None = None
    link: Any = None
    #: The GPIO pin map the buttons and lamps follow (``attach_gpio``).
    pinmap: Any = None

    @property
    def lamps(self) -> Any:
        return next((p for p in self.parts if hasattr(p, "apply")), None)

    def close(self) -> None:
        # The source leaves the watermark first: a link being stopped proves
        # nothing any more, and must not be journaled as a fault on the way out.
        self.runtime.remove_source(self.source)
        for part in self.parts:
            part.close()
