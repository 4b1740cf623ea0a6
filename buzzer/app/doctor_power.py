"""``svoyak doctor``'s check of the Pi's power: under-voltage and throttling.

Read from ``vcgencmd get_throttled``: a sagging supply or a hot Pi makes
every stamp and every lamp late, and is invisible until it is asked.
"""

from __future__ import annotations

import re

from buzzer.app.doctor import (
    FAIL,
    PASS,
    WARN,
    Host,
    Verdict,
    Words,
    skipped,
)
from buzzer.app.doctor_machine import is_raspberry_pi

#: ``vcgencmd get_throttled``'s bits (Raspberry Pi documentation, *vcgencmd*).
THROTTLED_BITS: dict[int, Words] = {
    0: Words.of("doctor.power.under_voltage_now"),
    1: Words.of("doctor.power.arm_frequency_capped_now"),
    2: Words.of("doctor.power.throttled_now"),
    3: Words.of("doctor.power.soft_temperature_limit_now"),
    16: Words.of("doctor.power.under_voltage_has_occurred"),
    17: Words.of("doctor.power.arm_frequency_capping_has"),
    18: Words.of("doctor.power.throttling_has_occurred"),
    19: Words.of("doctor.power.soft_temperature_limit_has"),
}
UNDERVOLTAGE_BITS = frozenset({0, 16})


# -- power ---------------------------------------------------------------------------------


def check_power(host: Host) -> Verdict:
    """Under-voltage or throttling now or since boot, from ``vcgencmd get_throttled``."""
    pi = is_raspberry_pi(host)
    ran = host.run(["vcgencmd", "get_throttled"])
    if ran is None:
        if not pi:
            return skipped(
                "power",
                Words.of("doctor.power.not_raspberry_pi_no"),
            )
        return Verdict(
            "power",
            WARN,
            Words.of("doctor.power.vcgencmd_not_installed_power"),
            Words.of("doctor.power.sudo_apt_install_raspi"),
        )
    match = re.search(r"throttled=(0x[0-9a-fA-F]+)", ran.stdout)
    if ran.returncode != 0 or match is None:
        answer = (ran.stderr or ran.stdout).strip()[:200]
        return Verdict(
            "power",
            WARN,
            Words.of("doctor.power.vcgencmd_get_throttled_failed", answer=answer),
            Words.of("doctor.power.needs_video_group_dev", user=host.user),
        )
    value = int(match.group(1), 16)
    bits = [bit for bit in THROTTLED_BITS if value >> bit & 1]
    data = {"throttled": match.group(1), "bits": bits}
    if not bits:
        return Verdict(
            "power",
            PASS,
            Words.of("doctor.power.no_under_voltage_throttling", group=match.group(1)),
            None,
            data,
        )
    said = Words(
        ", ".join(THROTTLED_BITS[b].ru for b in bits), ", ".join(THROTTLED_BITS[b].en for b in bits)
    )
    found = said + Words(f" ({match.group(1)})", f" ({match.group(1)})")
    undervolted = bool(UNDERVOLTAGE_BITS & set(bits))
    now = any(bit < 16 for bit in bits)
    if undervolted:
        fix = Words.of("doctor.power.supply_sags_official_5")
    else:
        fix = Words.of("doctor.power.pi_runs_hot_heatsink")
    return Verdict("power", FAIL if undervolted or now else WARN, found, fix, data)
