"""The device's clock onto the host's: tick unwrapping and ping/pong offset-and-drift.

Pure and deterministic: fed numbers, returns numbers; never reads a clock.

The device stamps each edge with its own microsecond counter, which wraps
(``2**30`` µs ≈ 17.9 min for MicroPython on the RP2040) and runs at its own
crystal's rate (±tens of ppm from the host's). The decisions are taken on
the host's monotonic clock in integer ns, so each stamp must be mapped:

1. :class:`TickUnwrapper` turns the wrapping counter into an unbounded
   count of µs, relative to the latest value seen (so a resent, older event
   lands before it, not a whole period later).
2. :class:`ClockMapper` fits ``host_ns ≈ a + r · (device_us − d_ref)`` from
   ping/pong samples ``(host_send_ns, device_us, host_recv_ns, hold_us)``.
   The device stamped when it began to read the ping and how long it held
   it before answering (NTP's four timestamps); the hold is taken out of the
   round trip, and the host's midpoint stands for the hold's midpoint: right
   when the two legs of the wire took equally long, and off by at most half
   the wire's round trip otherwise.

   **The answer's leg is the one fitted.** The ping's leg includes a wait
   the device cannot stamp: the ping sits in its USB buffer until the main
   loop's next round finds it (up to a round, ~1 ms, uniformly), and only
   then is it stamped. The answer leaves at a tick the device knows
   exactly and travels straight to the host. So each sample is placed at
   the answer: device tick ``device_us + hold_us``, host time ``recv_ns``
   less half the window's shortest round trip (the legs taken as equal at
   their shortest, as the midpoint does, but without the round's wait in
   every sample). Delays only ever add, so the least delayed answers are
   the truest: the sliding window is cut into bins, each bin keeps the
   answer that came earliest against the current fit (its shortest round
   trip until there is one), and only those within a small margin of the
   best are fitted (least squares). Spreading the kept samples over the
   window, rather than taking the best few globally, keeps the drift
   estimate's lever arm long. (Measured on the chip model: the ping's leg
   spreads 520 µs at its median, the answer's 37 µs; bench/chip_clock.py.)
3. :meth:`ClockMapper.map_event` preserves the device's own spacing between
   events close together: two presses 100 µs apart on the device stay 100 µs
   apart (±0.1 %) on the host even when a new fit arrived between them, so a
   model update can never swap their order.
4. :meth:`ClockMapper.map_event_at_least` is the same with a floor: the
   link's watermark already reported (see ``link.py``), as the device tick
   it stands for and its host time. A stamp the moved model would put below
   the floor is raised to the floor *plus its device distance from the
   floor's tick*, and remembered as raised: events after the floor keep
   their device order and spacing, and never share a stamp they did not
   share on the device (a false tie would be settled by lot).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

NS_PER_US = 1_000


class TickUnwrapper:
    """A wrapping counter of ``bits`` bits → an unbounded integer.

    Each value is placed within half a period of the largest value seen so
    far. Old values (resends after a reconnect) may be at most half a period
    behind: 8.9 minutes for a 30-bit µs counter.
    """

    def __init__(self, bits: int) -> None:
        if not 1 <= bits <= 64:
            raise ValueError("bits must be 1..64")
        self.bits = bits
        self.period = 1 << bits
        self._half = self.period >> 1
        self._latest: int | None = None

    @property
    def latest(self) -> int | None:
        """The largest unwrapped value so far (the reference for the next one)."""
        return self._latest

    def unwrap(self, raw: int) -> int:
        raw &= self.period - 1
        latest = self._latest
        if latest is None:
            self._latest = raw
            return raw
        delta = ((raw - latest + self._half) & (self.period - 1)) - self._half
        value = latest + delta
        if delta > 0:
            self._latest = value
        return value

    def place(self, raw: int) -> int:
        """What :meth:`unwrap` would make of ``raw``, without making it the reference.

        For a value the host does not take on trust (an event's stamp, which
        the device may have got wrong): a stamp placed far ahead must not
        carry the reference, and every later value, with it.
        """
        latest = self._latest
        if latest is None:
            return raw & (self.period - 1)
        delta = ((raw - latest + self._half) & (self.period - 1)) - self._half
        return latest + delta

    def rebase(self, raw: int, near: int) -> int:
        """Unwrap ``raw`` as the value congruent to it that is nearest ``near``,
        and make it the reference.

        After a long outage (more than half a period) the counter may have
        wrapped any number of times; the host's own clock says roughly how far
        the device's has run (``near``), which picks the right period.
        """
        raw &= self.period - 1
        value = near + (((raw - near + self._half) & (self.period - 1)) - self._half)
        self._latest = value
        return value


@dataclass(frozen=True, slots=True)
class ClockSample:
    """One ping/pong: the host sent at ``send_ns``, the device began to read
    the ping at ``device_us`` (unwrapped) and answered ``hold_us`` later, the
    host received the answer at ``recv_ns``.

    The hold is the device's own delay (its main loop reading the ping,
    handling edges, writing): known exactly on its clock, so it is taken out
    of the round trip, and the host's midpoint is the midpoint of the hold
    on the device (NTP's four timestamps).
    """

    send_ns: int
    device_us: int
    recv_ns: int
    hold_us: int = 0

    @property
    def rtt_ns(self) -> int:
        """The wire's round trip: the host's wait less the device's hold."""
        return self.recv_ns - self.send_ns - self.hold_us * NS_PER_US

    @property
    def device_sent_us(self) -> int:
        """The device's tick when it wrote the answer (the start of the wire's down leg)."""
        return self.device_us + self.hold_us

    @property
    def device_mid_us(self) -> float:
        """The device's tick halfway through its hold (what ``mid_ns`` stands for)."""
        return self.device_us + self.hold_us / 2

    @property
    def mid_ns(self) -> float:
        return self.send_ns + (self.recv_ns - self.send_ns) / 2


@dataclass(frozen=True, slots=True)
class ClockEstimate:
    """The current fit: ``host_ns = host_ref_ns + rate · (device_us − device_ref_us)``.

    ``rate`` is host ns per device µs (1000 for clocks that agree);
    ``drift_ppm`` is how much faster the device's counter runs than the
    host's clock, in parts per million (positive: the device runs fast, so
    fewer host ns pass per device µs). ``uncertainty_ns`` bounds
    the error of a mapped time near ``device_ref_us``: half the best kept
    round trip (the midpoint's worst case if the two legs differed) plus the
    fit's RMS residual. ``samples`` is how many samples the fit used
    (0: only the rough seed from the handshake).
    """

    device_ref_us: int
    host_ref_ns: float
    rate: float
    uncertainty_ns: int
    samples: int
    span_us: int
    best_rtt_ns: int

    @property
    def drift_ppm(self) -> float:
        return (NS_PER_US / self.rate - 1.0) * 1e6

    def host_ns(self, device_us: int) -> float:
        return self.host_ref_ns + self.rate * (device_us - self.device_ref_us)

    def device_us(self, host_ns: int) -> float:
        return self.device_ref_us + (host_ns - self.host_ref_ns) / self.rate


class ClockMapper:
    """Offset-and-drift estimation from ping/pong samples (see the module docstring).

    ``window``: how many recent samples are considered (a sliding window,
    so a drift that changes with temperature is followed); ``bins``: how
    many groups the window is cut into, each contributing its shortest
    round trip. A drift is fitted only once the kept samples span
    ``min_drift_span_us`` (before that the rate stays nominal or as last
    fitted) and is clamped to ±``max_drift_ppm``.
    """

    def __init__(
        self,
        *,
        window: int = 96,
        bins: int = 12,
        min_drift_span_us: int = 2_000_000,
        max_drift_ppm: float = 500.0,
        rtt_margin_ns: int = 100_000,
        spacing_tolerance: float = 1e-3,
        spacing_horizon_us: int = 50_000,
    ) -> None:
        if window < bins or bins < 1:
            raise ValueError("need window >= bins >= 1")
        self.window = window
        self.bins = bins
        self.min_drift_span_us = min_drift_span_us
        self.max_drift_ppm = max_drift_ppm
        self.rtt_margin_ns = rtt_margin_ns
        self.spacing_tolerance = spacing_tolerance
        self.spacing_horizon_us = spacing_horizon_us
        self._samples: deque[ClockSample] = deque(maxlen=window)
        self._estimate: ClockEstimate | None = None
        self._last_event: tuple[int, int] | None = None

    # -- feeding ---------------------------------------------------------------------

    def seed(self, device_us: int, host_ns: int, uncertainty_ns: int = 5_000_000) -> None:
        """A rough placement before any ping/pong: the device's tick as it sent
        its HELLO, and when the host read it. Replaced by the first real fit."""
        if self._samples:
            return
        self._estimate = ClockEstimate(
            device_us, float(host_ns), float(NS_PER_US), uncertainty_ns, 0, 0, uncertainty_ns
        )

    def add_sample(self, send_ns: int, device_us: int, recv_ns: int, hold_us: int = 0) -> None:
        """One ping/pong (see :class:`ClockSample`). Impossible samples are
        ignored: an answer before its question, a negative hold, or a hold
        longer than the host waited."""
        sample = ClockSample(send_ns, device_us, recv_ns, hold_us)
        if recv_ns < send_ns or hold_us < 0 or sample.rtt_ns < 0:
            return
        self._samples.append(sample)
        self._estimate = self._fit()

    def reset(self) -> None:
        """Forget everything (the device rebooted: a different clock)."""
        self._samples.clear()
        self._estimate = None
        self._last_event = None

    # -- reading ---------------------------------------------------------------------

    @property
    def estimate(self) -> ClockEstimate | None:
        return self._estimate

    @property
    def ready(self) -> bool:
        """True once at least one real ping/pong is in the fit."""
        return self._estimate is not None and self._estimate.samples > 0

    def to_host_ns(self, device_us: int) -> int:
        """The model's host time of a device tick (no spacing correction)."""
        estimate = self._estimate
        if estimate is None:
            raise LookupError("no clock estimate yet: no HELLO and no ping/pong")
        return round(estimate.host_ns(device_us))

    def to_device_us(self, host_ns: int) -> int:
        """The inverse: the device's (unwrapped) tick at a host instant."""
        estimate = self._estimate
        if estimate is None:
            raise LookupError("no clock estimate yet: no HELLO and no ping/pong")
        return round(estimate.device_us(host_ns))

    def map_event(self, device_us: int) -> int:
        """Map an event's tick, keeping the device's spacing to the previous event.

        When the previous mapped event is less than ``spacing_horizon_us``
        away on the device, the result is clamped so that the host-side gap
        equals the device-side gap (at the fitted rate) within
        ``spacing_tolerance``: order and spacing of near-simultaneous presses
        come from the device's own counter, never from a model update that
        happened between them.
        """
        return self.map_event_at_least(device_us, None)[0]

    def map_event_at_least(self, device_us: int, floor: tuple[int, int] | None) -> tuple[int, bool]:
        """:meth:`map_event`, never below the ``floor``; and whether it had to be raised.

        ``floor`` is ``(device_us, host_ns)``: the host promised (its
        watermark) that nothing stamped before ``host_ns`` would still come,
        and that promise covered the device's events up to ``device_us``. An
        event it did not cover is later on the device, so only a model that
        moved in between can map it below. It is raised to the floor plus its
        device distance from the floor's tick (at the fitted rate, at least
        1 ns): the promise is kept, and so are the device's order and spacing
        among the events after the floor. The raised stamp is what the next
        close event is spaced from.
        """
        mapped = self._spaced(device_us)
        raised = False
        if floor is not None:
            floor_us, floor_ns = floor
            estimate = self._estimate
            rate = estimate.rate if estimate is not None else float(NS_PER_US)
            least = floor_ns + max(math.ceil(rate * (device_us - floor_us)), 0)
            if device_us > floor_us:
                least = max(least, floor_ns + 1)
            if mapped < least:
                mapped = least
                raised = True
        self._last_event = (device_us, mapped)
        return mapped, raised

    def _spaced(self, device_us: int) -> int:
        """The model's host time of ``device_us``, held to the device's spacing
        from the previous mapped event (see :meth:`map_event`)."""
        mapped = self.to_host_ns(device_us)
        last = self._last_event
        if last is not None:
            last_us, last_ns = last
            gap_us = device_us - last_us
            if 0 < abs(gap_us) <= self.spacing_horizon_us:
                estimate = self._estimate
                assert estimate is not None
                expected = estimate.rate * gap_us
                slack = abs(expected) * self.spacing_tolerance
                low = last_ns + math.ceil(expected - slack)
                high = last_ns + math.floor(expected + slack)
                # A gap of at least one µs never maps to zero ns (no false tie).
                if gap_us > 0:
                    low = max(low, last_ns + 1)
                else:
                    high = min(high, last_ns - 1)
                mapped = min(max(mapped, low), high)
        return mapped

    # -- fitting ---------------------------------------------------------------------

    def _select(self) -> list[ClockSample]:
        """Per bin, the answer that came earliest against the current fit (the
        shortest round trip while there is none)."""
        samples = list(self._samples)
        n = len(samples)
        bins = min(self.bins, n)
        previous = self._estimate
        if previous is None or previous.samples == 0:

            def delay(s: ClockSample) -> float:
                return float(s.rtt_ns)
        else:
            # How late each answer came against the current fit: its down leg's
            # delay, up to a constant (see the module docstring).
            def delay(s: ClockSample) -> float:
                return s.recv_ns - previous.host_ns(s.device_sent_us)

        chosen: list[ClockSample] = []
        for b in range(bins):
            group = samples[b * n // bins : (b + 1) * n // bins]
            chosen.append(min(group, key=lambda s: (delay(s), s.send_ns)))
        return chosen

    def _fit(self) -> ClockEstimate:
        kept = self._select()
        # The legs, taken as equal at their shortest: half the window's best round trip.
        best_rtt = min(s.rtt_ns for s in self._samples)
        half = best_rtt / 2
        ref = kept[-1]
        d_ref = ref.device_sent_us
        # Arrivals less the down leg, relative to the reference's, so the sums stay small.
        base = ref.recv_ns - half
        points = [(float(s.device_sent_us - d_ref), s.recv_ns - half - base) for s in kept]
        previous = self._estimate
        rate = previous.rate if previous is not None else float(NS_PER_US)
        intercept, rate = self._line(points, rate)
        # A bin whose every answer was held up (a stalled host) lies above the
        # line: keep the answers within the margin of the earliest, and refit.
        residuals = [y - (intercept + rate * x) for x, y in points]
        limit = min(residuals) + max(self.rtt_margin_ns, best_rtt)
        close = [p for p, r in zip(points, residuals, strict=True) if r <= limit]
        if len(close) < len(points):
            points = close
            intercept, rate = self._line(points, rate)
            residuals = [y - (intercept + rate * x) for x, y in points]
        xs = [x for x, _ in points]
        span = int(max(xs) - min(xs))
        count = len(points)
        rms = math.sqrt(sum(r * r for r in residuals) / count)
        uncertainty = int(best_rtt / 2 + rms)
        return ClockEstimate(d_ref, base + intercept, rate, uncertainty, count, span, best_rtt)

    def _line(self, points: list[tuple[float, float]], rate: float) -> tuple[float, float]:
        """Least squares ``y = intercept + rate * x``; the rate only once the
        points span ``min_drift_span_us`` (else ``rate`` is kept), clamped."""
        count = len(points)
        xs = [x for x, _ in points]
        ys = [y for _, y in points]
        span = max(xs) - min(xs)
        if count >= 3 and span >= self.min_drift_span_us:
            mean_x = sum(xs) / count
            mean_y = sum(ys) / count
            sxx = sum((x - mean_x) ** 2 for x in xs)
            sxy = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
            rate = sxy / sxx
            low = NS_PER_US * (1 - self.max_drift_ppm * 1e-6)
            high = NS_PER_US * (1 + self.max_drift_ppm * 1e-6)
            rate = min(max(rate, low), high)
            return mean_y - rate * mean_x, rate
        # Offset only, at the current rate: the mean of the points.
        return sum(y - rate * x for x, y in points) / count, rate


__all__ = ["ClockEstimate", "ClockMapper", "ClockSample", "TickUnwrapper"]
