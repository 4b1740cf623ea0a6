"""The self-test's results: one row type per check, and the report as a table or JSON."""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from hardware.pinmap import describe_key

NS_PER_US = 1_000
BURST_EDGES = 5
BURST_SPACING_NS = 100 * NS_PER_US

#: What a self-test on gpiozero's mock pins proves, said on the report itself.
SOFTWARE_ONLY = (
    "simulated pins: this checks svoyak's software only, not the wiring, "
    "the pins or the Pi's timing; run it on the rig for those"
)


def quantile(ordered: Sequence[int], q: float) -> int:
    """The nearest-rank ``q`` quantile of sorted samples."""
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


@dataclass
class LatencyRow:
    key: str
    pin: int
    samples_ns: list[int] = field(default_factory=list)
    missed: int = 0

    @property
    def ok(self) -> bool:
        return self.missed == 0 and bool(self.samples_ns)

    def stats_us(self) -> dict[str, float | None]:
        s = sorted(self.samples_ns)
        if not s:
            return dict.fromkeys(("min_us", "median_us", "p99_us", "max_us", "jitter_us"))
        stats = {
            "min_us": s[0] / NS_PER_US,
            "median_us": quantile(s, 0.5) / NS_PER_US,
            "p99_us": quantile(s, 0.99) / NS_PER_US,
            "max_us": s[-1] / NS_PER_US,
            "jitter_us": (statistics.pstdev(s) / NS_PER_US) if len(s) > 1 else 0.0,
        }
        return {name: round(value, 3) for name, value in stats.items()}


@dataclass
class FairnessRow:
    offset_us: int
    trials: int = 0
    first_won: int = 0
    second_won: int = 0
    ties: int = 0
    late: int = 0
    #: Ruled a false start, or pressed before the question was open to presses.
    early: int = 0
    missed: int = 0
    gaps_ns: list[int] = field(default_factory=list)
    #: Delivery delay per trial: the earlier edge's stamp → the game's decision
    #: announced to its listeners (after the journal's commit).
    delays_ns: list[int] = field(default_factory=list)

    def delay_ms(self) -> dict[str, float | None]:
        """The delivery delay's p99 and max (ms), None with no decision."""
        s = sorted(self.delays_ns)
        if not s:
            return {"p99_ms": None, "max_ms": None}
        return {"p99_ms": round(quantile(s, 0.99) / 1e6, 3), "max_ms": round(s[-1] / 1e6, 3)}

    @property
    def decided(self) -> int:
        return self.first_won + self.second_won

    @property
    def correct_share(self) -> float | None:
        """The share of trials the first-pressed button won (None at 0 µs: no right answer)."""
        if self.offset_us == 0 or not self.trials:
            return None
        return self.first_won / self.trials

    @property
    def ok(self) -> bool:
        """Right every time from 100 µs up; never late, early or missed."""
        clean = self.late == 0 and self.early == 0 and self.missed == 0
        if self.offset_us >= 100:
            return clean and self.first_won == self.trials
        return clean


@dataclass
class BounceRow:
    key: str
    pin: int
    edges: int
    presses: int
    first_edge_stamp: bool
    #: Every try's burst took this machine longer to write than its edges and the
    #: glitch check allow (its writer was preempted): the row is no verdict on the
    #: input path, and the report says to run the check on an idle machine.
    stretched: bool = False

    @property
    def ok(self) -> bool:
        return self.presses == 1 and self.first_edge_stamp


@dataclass
class GlitchRow:
    """One button's spike: the output switched on and straight off again."""

    key: str
    pin: int
    #: Between the two output writes: roughly how long the line was at the pressed level.
    width_ns: int
    presses: int
    #: Raw edges the line saw meanwhile (the spike reached the pin), or None where
    #: the input path filters before the host sees an edge (the Pico's firmware).
    edges: int | None = None

    @property
    def reached(self) -> bool:
        """Whether the spike is known to have reached the pin (or cannot be seen)."""
        return self.edges is None or self.edges > 0

    @property
    def ok(self) -> bool:
        return self.presses == 0 and self.reached


@dataclass
class PhantomRow:
    """Every lamp switched on and off while nobody presses: presses that came anyway."""

    switches: int
    lamps: int
    #: Button key → presses seen while the lamps switched (nobody pressed anything).
    phantoms: dict[str, int] = field(default_factory=dict)
    #: Button key → raw edges on its line meanwhile, presses or spikes the glitch
    #: check kept out (only lines that had any); None where the input path
    #: filters before the host sees an edge (the Pico's firmware).
    edges: dict[str, int] | None = None

    @property
    def ok(self) -> bool:
        return not self.phantoms


@dataclass
class StuckRow:
    key: str
    pin: int
    reported: bool
    excluded: bool
    freed: bool

    @property
    def ok(self) -> bool:
        return self.reported and self.excluded and self.freed


@dataclass
class SelftestReport:
    mode: str
    source: str
    pinmap: str
    hold_off_ms: float
    stuck_threshold_s: float | None
    #: The input path's glitch check (the Pi's glitch_ms, the Pico's GLITCH_US), or None.
    glitch_ms: float | None = None
    latency: list[LatencyRow] = field(default_factory=list)
    fairness: list[FairnessRow] = field(default_factory=list)
    fairness_rules: str = ""
    fairness_pair: tuple[str, str] | None = None
    #: The running game's wait bound (ms) the fairness presses went through.
    fairness_wait_bound_ms: float | None = None
    #: Whether the offsets were exact on the wires (a generator, the chip model), or
    #: only the start of this host's second write (loopback pins): then the gap
    #: column, not the offset, is where the presses fell.
    fairness_offsets_exact: bool = True
    bounce: list[BounceRow] = field(default_factory=list)
    glitch: list[GlitchRow] = field(default_factory=list)
    phantom: list[PhantomRow] = field(default_factory=list)
    stuck: list[StuckRow] = field(default_factory=list)
    held_at_start: list[str] = field(default_factory=list)
    png: str | None = None
    png_size: tuple[int, int] | None = None
    #: Checks asked for that this input path cannot do, and why: shown as not
    #: run, never as passed (``ok`` is about the checks that ran).
    not_run: dict[str, str] = field(default_factory=dict)
    #: A stand-in for the metal (the chip model) this machine's load kept from being
    #: one during the run, in words (None: it kept its pace): the figures are then
    #: the load's, not the firmware's.
    stand_in_starved: str | None = None

    @property
    def ok(self) -> bool:
        rows: list[Any] = [
            *self.latency,
            *self.fairness,
            *self.bounce,
            *self.glitch,
            *self.phantom,
            *self.stuck,
        ]
        return all(r.ok for r in rows) and not self.held_at_start

    @property
    def software_only(self) -> bool:
        """Mock pins: the report proves svoyak's code, never the wiring or the Pi."""
        return self.mode == "simulate"

    def verdict(self) -> str:
        """The report's last line: a check that did not run is never counted as passed,
        and a pass on mock pins never reads as a pass of the rig."""
        if not self.ok:
            line = "SOME CHECKS FAILED"
        elif self.not_run:
            line = f"the checks that ran passed; NOT RUN: {', '.join(self.not_run)}"
        else:
            line = "all checks passed"
        if self.software_only:
            line += f" ({SOFTWARE_ONLY})"
        return line

    def to_json(self) -> dict[str, Any]:
        specs = {r.key: r.pin for r in self.latency}
        return {
            "ok": self.ok,
            "not_run": dict(self.not_run),
            "stand_in_starved": self.stand_in_starved,
            "mode": self.mode,
            "software_only": self.software_only,
            "source": self.source,
            "pin_map": self.pinmap,
            "hold_off_ms": self.hold_off_ms,
            "glitch_ms": self.glitch_ms,
            "latency": {
                "what": "input edge stamp minus output drive time",
                "unit": "us",
                "buttons": [
                    {
                        "key": r.key,
                        "button": describe_key(r.key),
                        "pin": specs[r.key],
                        "n": len(r.samples_ns),
                        "missed": r.missed,
                        **r.stats_us(),
                        "ok": r.ok,
                    }
                    for r in self.latency
                ],
            },
            "fairness": {
                "rules": self.fairness_rules,
                "pair": list(self.fairness_pair) if self.fairness_pair else None,
                "through": "the live runtime (sources, wait bound, SQLite journal, listeners)",
                "wait_bound_ms": self.fairness_wait_bound_ms,
                "offsets_exact": self.fairness_offsets_exact,
                "rows": [
                    {
                        "offset_us": r.offset_us,
                        "trials": r.trials,
                        "first_won": r.first_won,
                        "second_won": r.second_won,
                        "ties": r.ties,
                        "late": r.late,
                        "early": r.early,
                        "missed": r.missed,
                        "order_errors": r.second_won,
                        "correct_share": r.correct_share,
                        "delivery_delay": r.delay_ms(),
                        "gap_median_us": (
                            round(statistics.median(r.gaps_ns) / NS_PER_US, 3)
                            if r.gaps_ns
                            else None
                        ),
                        "ok": r.ok,
                    }
                    for r in self.fairness
                ],
            },
            "bounce": [
                {
                    "key": r.key,
                    "pin": r.pin,
                    "edges": r.edges,
                    "presses": r.presses,
                    "first_edge_stamp": r.first_edge_stamp,
                    "stretched": r.stretched,
                    "ok": r.ok,
                }
                for r in self.bounce
            ],
            "glitch": {
                "run": "glitch" not in self.not_run,
                "check_ms": self.glitch_ms,
                "buttons": [
                    {
                        "key": r.key,
                        "pin": r.pin,
                        "width_us": r.width_ns / NS_PER_US,
                        "presses": r.presses,
                        "edges": r.edges,
                        "ok": r.ok,
                    }
                    for r in self.glitch
                ],
            },
            "phantom": {
                "run": "phantom" not in self.not_run,
                "rows": [
                    {
                        "switches": r.switches,
                        "lamps": r.lamps,
                        "phantoms": dict(r.phantoms),
                        "edges": None if r.edges is None else dict(r.edges),
                        "ok": r.ok,
                    }
                    for r in self.phantom
                ],
            },
            "stuck": {
                "run": "stuck" not in self.not_run,
                "threshold_s": self.stuck_threshold_s,
                "held_at_start": self.held_at_start,
                "buttons": [
                    {
                        "key": r.key,
                        "pin": r.pin,
                        "reported": r.reported,
                        "excluded": r.excluded,
                        "freed": r.freed,
                        "ok": r.ok,
                    }
                    for r in self.stuck
                ],
            },
            "png": self.png,
        }

    def table(self) -> str:
        lines = [
            f"svoyak selftest: {self.source}",
            f"pin map {self.pinmap}; hold-off {self.hold_off_ms:g} ms"
            + ("" if self.glitch_ms is None else f"; glitch check {self.glitch_ms:g} ms"),
        ]
        if self.software_only:
            lines.append(f"NOTE: {SOFTWARE_ONLY}.")
        if self.stand_in_starved:
            lines.append(
                f"NOTE: {self.stand_in_starved}: this machine's load, not the firmware, "
                "made the figures below; run it again with nothing else running."
            )
        if self.latency:
            lines += [
                "",
                "latency (µs): input edge stamp − output drive time",
                f"{'button':<22}{'pin':>7}{'n':>6}{'missed':>8}{'min':>9}{'median':>9}"
                f"{'p99':>9}{'max':>9}{'jitter':>9}",
            ]
            for lat in self.latency:
                s = lat.stats_us()
                cells = "".join(f"{v:9.1f}" if v is not None else f"{'-':>9}" for v in s.values())
                lines.append(
                    f"{describe_key(lat.key):<22}{'GPIO' + str(lat.pin):>7}{len(lat.samples_ns):>6}"
                    f"{lat.missed:>8}{cells}{'' if lat.ok else '  FAIL'}"
                )
            lines.append("(jitter: standard deviation)")
        if self.fairness:
            a, b = self.fairness_pair or ("?", "?")
            bound = self.fairness_wait_bound_ms
            lines += [
                "",
                f"fairness: {describe_key(a)} and {describe_key(b)} pressed an offset apart "
                f"(the first alternating), into a running {self.fairness_rules} game "
                + ("" if bound is None else f"(wait bound {bound:g} ms, SQLite journal)"),
                f"{'offset µs':>10}{'trials':>8}{'right':>8}{'wrong':>8}{'ties':>6}{'late':>6}"
                f"{'early':>7}{'missed':>8}{'share':>8}{'gap µs':>10}"
                f"{'delay p99':>11}{'max ms':>9}",
            ]
            for fr in self.fairness:
                share = "n/a" if fr.correct_share is None else f"{fr.correct_share:.0%}"
                gap = f"{statistics.median(fr.gaps_ns) / NS_PER_US:.1f}" if fr.gaps_ns else "-"
                delay = ["-" if v is None else f"{v:.2f}" for v in fr.delay_ms().values()]
                lines.append(
                    f"{fr.offset_us:>10}{fr.trials:>8}{fr.first_won:>8}{fr.second_won:>8}{fr.ties:>6}"
                    f"{fr.late:>6}{fr.early:>7}{fr.missed:>8}{share:>8}{gap:>10}"
                    f"{delay[0]:>11}{delay[1]:>9}{'' if fr.ok else '  FAIL'}"
                )
            lines.append(
                "(right: the first-pressed won, as commanded; wrong: an order error; at 0 µs "
                "there is no right answer: ties and either winner are fair; gap: the stamps' "
                "median difference; delay: the earlier edge's stamp → the game's decision, ms)"
            )
            if not self.fairness_offsets_exact:
                lines.append(
                    "NOTE: this host wrote each pair one pin after the other, so an offset is "
                    "only when the second write began: the presses fell the gap column apart. "
                    "Small offsets here test the order of two writes, not the input path's "
                    "resolution; for that, press through a pulse generator (--generator PORT)."
                )
        if self.bounce:
            lines += [
                "",
                f"bounce: {BURST_EDGES} edges {BURST_SPACING_NS // NS_PER_US} µs apart, "
                "inside the hold-off",
            ]
            for br in self.bounce:
                verdict = "ok" if br.ok else "FAIL"
                stamp = "first edge" if br.first_edge_stamp else "NOT the first edge"
                lines.append(
                    f"  {describe_key(br.key):<22}{br.presses} press(es), "
                    f"stamped at {stamp}: {verdict}"
                )
                if br.stretched and not br.ok:
                    lines.append(
                        "    (this machine was too busy to write the burst on time in every "
                        "try: run the self-test again with nothing else running)"
                    )
        if self.glitch:
            lines += [
                "",
                f"glitch: each output on and straight off; the level check "
                f"{self.glitch_ms or 0:g} ms on must not take the spike for a press",
            ]
            for gr in self.glitch:
                if gr.edges is None:
                    seen = "edges not seen by this host (the Pico filters them)"
                else:
                    seen = f"{gr.edges} raw edge(s) at the pin"
                lines.append(
                    f"  {describe_key(gr.key):<22}a {gr.width_ns / NS_PER_US:.0f} µs spike, "
                    f"{seen}, {gr.presses} press(es): {'ok' if gr.ok else 'FAIL'}"
                )
                if not gr.reached:
                    lines.append(
                        f"  {'':<22}the spike never reached the pin, so this proved nothing: "
                        "the series resistor and the cable swallowed it; connect the "
                        "generator or the loopback output at the pin end"
                    )
        for pr in self.phantom:
            lines += [
                "",
                f"phantom: all {pr.lamps} lamps switched on and off {pr.switches} times, "
                "nobody pressing",
            ]
            if pr.ok:
                lines.append("  no press came: ok")
            for key, count in sorted(pr.phantoms.items()):
                lines.append(f"  {describe_key(key):<22}{count} phantom press(es): FAIL")
            if pr.edges is None:
                lines.append("  edges on the lines: not seen by this host (the Pico filters them)")
            elif not pr.edges:
                lines.append("  no edge on any button line")
            for key, count in sorted((pr.edges or {}).items()):
                if key not in pr.phantoms:
                    lines.append(
                        f"  {describe_key(key):<22}{count} edge(s), no press: the glitch check "
                        "kept them out; check the star ground and the pull-ups before a game"
                    )
        if self.stuck or self.held_at_start:
            lines += ["", f"stuck: held past {self.stuck_threshold_s:g} s (the test's threshold)"]
            for sr in self.stuck:
                parts = [
                    "reported" if sr.reported else "NOT reported",
                    "excluded" if sr.excluded else "NOT excluded",
                    "freed on release" if sr.freed else "NOT freed",
                ]
                lines.append(
                    f"  {describe_key(sr.key):<22}{', '.join(parts)}: {'ok' if sr.ok else 'FAIL'}"
                )
            for key in self.held_at_start:
                lines.append(
                    f"  {describe_key(key):<22}was down when the test started: stuck or shorted?"
                )
        for check, why in self.not_run.items():
            lines += ["", f"{check}: NOT RUN: {why}"]
        if self.png:
            lines += ["", f"histogram: {self.png}"]
        lines += ["", self.verdict()]
        return "\n".join(lines)


def report_output(report: SelftestReport, as_json: bool) -> str:
    return json.dumps(report.to_json(), indent=2, ensure_ascii=False) if as_json else report.table()
