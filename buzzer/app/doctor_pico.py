"""``svoyak doctor``'s Pico checks: its port, its firmware, its buttons and lamps, its clock.

The Pico is found as ``svoyak pico install`` finds it
(:mod:`firmware_bridge.pico_devices`: ``/dev/serial/by-id``) and spoken to
through the game's own :class:`firmware_bridge.link.BridgeLink` for a few
seconds: its HELLO says which firmware it runs (judged by
:func:`firmware_bridge.shipped.hello_refusal`, the rule ``svoyak run``
applies) and which buttons it found held at power-up; its PONGs feed the
link's clock fit, whose quality is reported; a LAMP all-off is sent and its
acknowledgement awaited.

The doctor never acknowledges a press: what it hears is handed to a sink
whose record never completes, so the link's cumulative ACK stays where the
Pico's HELLO put it and every event stays in the Pico's ring for the game
(a resumed game takes the presses its host missed from there).
"""

from __future__ import annotations

import os
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from buzzer.app.doctor import (
    FAIL,
    PASS,
    SKIP,
    WARN,
    DoctorOptions,
    Host,
    Setup,
    Verdict,
    Words,
    skipped,
)
from buzzer.app.doctor_system import STOP_SERVICE, service_holds
from buzzer.app.inputs import _OpenErrors, _reason
from buzzer.words import tr

#: The clock fit (docs/wire-protocol.md, *Clock*): its stated uncertainty — half the
#: best round trip plus the fit's RMS residual — is the common offset of every Pico
#: button against inputs stamped on the Pi (the host's signal). Within PASS (µs) that
#: is below a USB full-speed frame; beyond FAIL the fit is no better than the
#: handshake's rough seed (5 ms), and a press near the signal may be judged wrongly.
CLOCK_PASS_US = 1_000
CLOCK_FAIL_US = 5_000
#: A crystal is off by tens of ppm; a fit further off than this over a few seconds
#: says the samples are noisy (a hub, a busy host) rather than the clocks apart.
DRIFT_WARN_PPM = 200.0
#: Pings while the doctor listens: more samples than the game's 4 a second, so a
#: few seconds give the fit its drift (it is fitted once the samples span 2 s).
PING_INTERVAL_S = 0.05
#: How long the Pico has at least to acknowledge the lamps' all-off.
LAMP_ACK_S = 1.0


@dataclass(frozen=True)
class PicoTarget:
    """The Pico the doctor looks at: the configured port, or the one found plugged in."""

    port: str | None
    configured: bool
    where: str = ""
    #: The MicroPython boards under /dev/serial/by-id.
    found: tuple[str, ...] = ()


def find_port(setup: Setup, host: Host) -> PicoTarget:
    from firmware_bridge.pico_devices import micropython_ports

    found = tuple(micropython_ports(host.places))
    if setup.serial is not None:
        return PicoTarget(setup.serial, True, setup.serial_from, found)
    if len(found) == 1:
        return PicoTarget(found[0], False, "/dev/serial/by-id", found)
    return PicoTarget(None, False, "", found)


class _Tap(_OpenErrors):
    """The link's serial factory: remembers why the port did not open (as ``svoyak
    run`` does) and watches what the Pico sends for the lamps' acknowledgement."""

    def __init__(self, factory: Any) -> None:
        super().__init__(factory)
        from firmware_bridge.protocol import FrameDecoder

        self.lamp_acks = 0
        self.decoder = FrameDecoder()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _TappedPort(super().__call__(*args, **kwargs), self)

    def heard(self, data: bytes) -> None:
        from firmware_bridge.protocol import AckStatus, CmdAck, MsgType

        for frame in self.decoder.feed(data):
            message = frame.message
            if (
                isinstance(message, CmdAck)
                and message.acked == MsgType.LAMP
                and message.status == AckStatus.OK
            ):
                self.lamp_acks += 1


class _TappedPort:
    """A serial port whose reads are also shown to the tap (everything else is the port's)."""

    def __init__(self, port: Any, tap: _Tap) -> None:
        self._port = port
        self._tap = tap

    def read(self, size: int = 1) -> bytes:
        data: bytes = self._port.read(size)
        if data:
            self._tap.heard(data)
        return data

    def __getattr__(self, name: str) -> Any:
        return getattr(self._port, name)


@dataclass
class PicoProbe:
    """What a few seconds on the link found."""

    hello: Any = None
    connected: bool = False
    refusal: str | None = None
    estimate: Any = None
    stats: Any = None
    lamps_acked: bool | None = None
    #: Presses and releases heard (the Pico's ring is resent at the handshake).
    events: list[Any] = field(default_factory=list)
    listened_s: float = 0.0
    reason: tuple[str, ...] = ()
    held_elsewhere: bool = False
    denied: bool = False


def probe_pico(port: str, host: Host, options: DoctorOptions) -> PicoProbe:
    """Attach the game's link to ``port`` for ``options.clock_s`` and see what it hears."""
    import errno

    from firmware_bridge.link import BridgeLink, LinkConfig
    from firmware_bridge.ports import port_held_elsewhere
    from firmware_bridge.protocol import Lamp, LampMode
    from firmware_bridge.shipped import hello_refusal

    found = PicoProbe()
    tap = _Tap(host.serial_factory)
    never: Future[None] = Future()  # never done: nothing heard is ever acknowledged

    def sink(item: Any) -> Future[None]:
        found.events.append(item)
        return never

    config = LinkConfig(port, ping_interval_s=PING_INTERVAL_S, drop_before_start=False)
    link = BridgeLink(config, serial_factory=tap, sink=sink)
    link.start()
    try:
        found.connected = link.wait_connected(options.pico_timeout_s)
        found.hello = link.device
        if found.hello is not None:
            found.refusal = hello_refusal(found.hello)
        if found.connected and found.refusal is None:
            start = time.monotonic()
            link.set_lamp(Lamp.ALL, LampMode.OFF)
            while time.monotonic() - start < max(options.clock_s, LAMP_ACK_S):
                time.sleep(0.05)
                if tap.lamp_acks and time.monotonic() - start >= options.clock_s:
                    break
            found.listened_s = time.monotonic() - start
            found.lamps_acked = tap.lamp_acks > 0
        found.estimate = link.clock
        found.stats = link.stats()
        if not found.connected:
            found.reason = _reason(tap, options.pico_timeout_s, link)
            last = tap.last
            found.held_elsewhere = not tap.opened and last is not None and port_held_elsewhere(last)
            found.denied = not tap.opened and getattr(last, "errno", None) in (
                errno.EACCES,
                errno.EPERM,
            )
    finally:
        link.stop()
    return found


def check_pico(
    setup: Setup, host: Host, target: PicoTarget, options: DoctorOptions
) -> list[Verdict]:
    """``pico``, ``firmware``, ``pico_buttons``, ``pico_lamps``, ``clock``."""
    rest = ("firmware", "pico_buttons", "pico_lamps", "clock")
    if target.port is None:
        if len(target.found) > 1:
            boards = ", ".join(target.found)
            first = Verdict(
                "pico",
                WARN,
                Words.of("doctor.pico.several_micropython_boards_plugged", boards=boards),
                Words.of("doctor.pico.name_game_s_serial"),
                {"found": list(target.found)},
            )
            why = Words.of("doctor.pico.which_pico_game_s")  # fmt: skip
            return [first, *(skipped(check, why) for check in rest)]
        first = skipped(
            "pico",
            Words.of("doctor.pico.no_pico_none_config"),
        )
        return [first, *(skipped(check, Words.of("doctor.pico.no_pico")) for check in rest)]
    port = target.port
    presence = _presence(port, target, setup, host)
    if presence.status == FAIL:
        why = Words.of("doctor.pico.no_pico_found_see")
        return [presence, *(skipped(check, why) for check in rest)]
    probe = probe_pico(port, host, options)
    if probe.held_elsewhere and service_holds(setup):
        why = Words.of("doctor.pico.running_svoyak_service_holds")
        return [presence, *(Verdict(check, SKIP, why, STOP_SERVICE) for check in rest)]
    firmware = _firmware(port, probe)
    if firmware.status == FAIL:
        why = Words.of("doctor.pico.pico_does_not_play")
        return [presence, firmware, *(skipped(check, why) for check in rest[1:])]
    return [presence, firmware, _buttons(probe), _lamps(probe), _clock(probe, options)]


def _presence(port: str, target: PicoTarget, setup: Setup, host: Host) -> Verdict:
    from firmware_bridge.pico_devices import serial_ports, stable_name

    places = host.places
    data = {"port": port, "configured": target.configured, "from": target.where}
    if port.startswith("/") and not os.path.exists(port):
        ports = ", ".join(sorted(serial_ports(places))) or "—"
        return Verdict(
            "pico",
            FAIL,
            Words.of("doctor.pico.no_port_pico_plugged", port=port, ports=ports),
            Words.of("doctor.pico.plug_pico_usb_data"),
            data,
        )
    real = os.path.realpath(port) if port.startswith("/") else port
    data["device"] = real
    if not target.configured and setup.config_unknown:
        return Verdict(
            "pico",
            PASS,
            Words.of("doctor.pico.plugged_whether_config_names", port=port, real=real),
            None,
            data,
        )
    if not target.configured:
        return Verdict(
            "pico",
            WARN,
            Words.of("doctor.pico.pico_plugged_but_config", port=port, real=real),
            Words.of("doctor.pico.add_hardware_serial_etc", port=port),
            data,
        )
    if Path(port).parent == places.by_id:
        return Verdict("pico", PASS, Words(f"{port} → {real}", f"{port} → {real}"), None, data)
    stable = stable_name(port, places)
    if stable != port:
        return Verdict(
            "pico",
            WARN,
            Words.of("doctor.pico.name_may_change_after", port=port),
            Words.of("doctor.pico.name_it_stable_name", stable=stable),
            {**data, "stable": stable},
        )
    return Verdict(
        "pico",
        WARN,
        Words.of("doctor.pico.not_dev_serial_id", port=port),
        Words.of("doctor.pico.real_pico_name_it"),
        data,
    )


def _firmware(port: str, probe: PicoProbe) -> Verdict:
    from firmware_bridge.shipped import PICO2_REFUSAL, shipped_identity

    hello = probe.hello
    if hello is None:
        ru, en, *advice = probe.reason or (
            tr("doctor.pico.no_answer", "ru"),
            tr("doctor.pico.no_answer", "en"),
        )
        fix = (
            Words(*advice) if len(advice) == 2 else Words.of("doctor.pico.check_usb_cable_firmware")
        )
        if probe.denied:
            fix = Words.of("doctor.pico.dialout_group_needed_see")
        return Verdict(
            "firmware", FAIL, Words(f"{port}: {ru}", f"{port}: {en}"), fix, {"port": port}
        )
    data = {
        "firmware_id": hello.firmware_id.hex(),
        "expected": shipped_identity().hex(),
        "protocol": hello.protocol,
        "version": ".".join(str(v) for v in hello.firmware),
        "buttons": hello.buttons,
        "lamps": hello.lamps,
    }
    if probe.refusal is not None:
        if hello.unsupported_chip:
            return Verdict(
                "firmware",
                FAIL,
                Words(tr("doctor.pico.pico2", "ru"), PICO2_REFUSAL),
                Words.of("doctor.pico.connect_raspberry_pi_pico"),
                data,
            )
        return Verdict(
            "firmware",
            FAIL,
            Words(
                tr(
                    "doctor.pico.other_firmware",
                    "ru",
                    firmware_id=data["firmware_id"],
                    expected=data["expected"],
                ),
                probe.refusal,
            ),
            Words.of("doctor.pico.svoyak_pico_install_service"),
            data,
        )
    return Verdict(
        "firmware",
        PASS,
        Words.of(
            "doctor.pico.release_s_firmware_identity",
            firmware_id=data["firmware_id"],
            protocol=hello.protocol,
            buttons=hello.buttons,
            lamps=hello.lamps,
        ),
        None,
        data,
    )


def _gp(button: int) -> str:
    """A Pico button (0-based) as the technician finds it on the board: ``2 (GP3)``."""
    from firmware_bridge.firmware import logic

    pins = logic.BUTTON_PINS
    return f"{button + 1} (GP{pins[button]})" if button < len(pins) else str(button + 1)


def _buttons(probe: PicoProbe) -> Verdict:
    from buzzer.arbiter.events import Press

    hello = probe.hello
    at_boot = [i for i in range(hello.buttons) if hello.held_at_boot >> i & 1]
    last: dict[int, bool] = {}
    for item in probe.events:
        last[item.seat] = isinstance(item, Press)
    down = sorted(seat - 1 for seat, pressed in last.items() if pressed)
    data = {"held_at_boot": [b + 1 for b in at_boot], "down": [b + 1 for b in down]}
    if not at_boot and not down:
        return Verdict(
            "pico_buttons",
            PASS,
            Words.of("doctor.pico.no_button_held_pico"),
            None,
            data,
        )
    parts = []
    if at_boot:
        names = ", ".join(_gp(b) for b in at_boot)
        parts.append(Words.of("doctor.pico.held_pico_s_power", names=names))  # fmt: skip
    if down:
        names = ", ".join(_gp(b) for b in down)
        parts.append(Words.of("doctor.pico.down_now", names=names))
    found = Words("; ".join(p.ru for p in parts), "; ".join(p.en for p in parts))
    return Verdict(
        "pico_buttons",
        FAIL,
        found + Words.of("doctor.pico.held_stuck_cable_shorted"),
        Words.of("doctor.pico.let_go_if_it"),
        data,
    )


def _lamps(probe: PicoProbe) -> Verdict:
    lamps = probe.hello.lamps
    if probe.lamps_acked is None:
        return skipped(
            "pico_lamps",
            Words.of("doctor.pico.link_did_not_come"),
        )
    if probe.lamps_acked:
        return Verdict(
            "pico_lamps",
            PASS,
            Words.of("doctor.pico.all_lamps_switched_off", lamps=lamps),
            None,
            {"lamps": lamps},
        )
    return Verdict(
        "pico_lamps",
        FAIL,
        Words.of("doctor.pico.pico_did_not_acknowledge", listened_s=f"{probe.listened_s:.1f}"),
        Words.of("doctor.pico.replug_pico_check_again"),
        {"lamps": lamps},
    )


def _clock(probe: PicoProbe, options: DoctorOptions) -> Verdict:
    estimate = probe.estimate
    stats = probe.stats
    data: dict[str, Any] = {
        "listened_s": round(probe.listened_s, 2),
        "pongs": stats.pongs if stats is not None else 0,
        "heartbeats": stats.heartbeats if stats is not None else 0,
        "pass_us": CLOCK_PASS_US,
        "fail_us": CLOCK_FAIL_US,
        "drift_warn_ppm": DRIFT_WARN_PPM,
    }
    if estimate is None or estimate.samples == 0:
        waited = options.clock_s if probe.connected else options.pico_timeout_s
        return Verdict(
            "clock",
            FAIL,
            Words.of("doctor.pico.pico_answered_no_ping", waited=f"{waited:g}"),
            _CLOCK_FIX,
            data,
        )
    uncertainty_us = estimate.uncertainty_ns / 1000
    half_rtt_us = estimate.best_rtt_ns / 2000
    residual_us = max(0.0, uncertainty_us - half_rtt_us)
    drift = estimate.drift_ppm
    fitted = estimate.span_us >= 2_000_000
    data.update(
        samples=estimate.samples,
        span_s=round(estimate.span_us / 1e6, 2),
        uncertainty_us=round(uncertainty_us, 1),
        half_round_trip_us=round(half_rtt_us, 1),
        residual_us=round(residual_us, 1),
        drift_ppm=round(drift, 1) if fitted else None,
    )
    drift_words = (
        Words.of("doctor.pico.drift_ppm", drift=f"{drift:+.0f}")
        if fitted
        else Words.of("doctor.pico.drift_not_fitted_yet")
    )
    figures = (
        Words.of(
            "doctor.pico.uncertainty_ms_half_best",
            value=f"{uncertainty_us / 1000:.2f}",
            value_2=f"{half_rtt_us / 1000:.2f}",
            value_3=f"{residual_us / 1000:.2f}",
        )
        + drift_words
        + Words.of(
            "doctor.pico.pongs_heartbeats_s",
            pongs=data["pongs"],
            heartbeats=data["heartbeats"],
            listened_s=f"{probe.listened_s:.1f}",
        )
    )
    if uncertainty_us > CLOCK_FAIL_US:
        status = FAIL
    elif uncertainty_us > CLOCK_PASS_US or (fitted and abs(drift) > DRIFT_WARN_PPM):
        status = WARN
    else:
        status = PASS
    return Verdict("clock", status, figures, None if status == PASS else _CLOCK_FIX, data)


_CLOCK_FIX = Words.of("doctor.pico.plug_pico_straight_into")


__all__ = [
    "CLOCK_FAIL_US",
    "CLOCK_PASS_US",
    "DRIFT_WARN_PPM",
    "PicoProbe",
    "PicoTarget",
    "check_pico",
    "find_port",
    "probe_pico",
]
