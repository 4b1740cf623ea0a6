"""``svoyak doctor``'s check of this process's groups against what the set-up opens.

gpio for a GPIO pin map on the Pi's pins, dialout for a Pico on a serial
port: a missing group is the most common "it worked as root" fault.
"""

from __future__ import annotations

from buzzer.app.doctor import (
    FAIL,
    PASS,
    Host,
    Setup,
    Verdict,
    Words,
    skipped,
)

# -- groups --------------------------------------------------------------------------

_GROUP_USE = {
    "gpio": Words.of("doctor.groups.gpio_pins"),
    "dialout": Words.of("doctor.groups.pico_s_serial_port"),
}


def check_groups(setup: Setup, host: Host, pico_port: str | None) -> Verdict:
    """The groups this process has against those the set-up needs: gpio for a GPIO pin
    map on the Pi's pins, dialout for a Pico on a serial port."""
    needed = []
    if setup.pins is not None and not setup.simulate:
        needed.append("gpio")
    if pico_port is not None:
        needed.append("dialout")
    have = host.groups()
    data = {"user": host.user, "needed": needed, "have": sorted(have)}
    if not needed:
        return skipped(
            "groups",
            Words.of("doctor.groups.neither_gpio_pins_nor"),
            **data,
        )
    if host.is_root:
        return Verdict(
            "groups",
            PASS,
            Words.of("doctor.groups.running_root_which_every"),
            None,
            data,
        )
    missing = [group for group in needed if group not in have]
    if not missing:
        return Verdict(
            "groups",
            PASS,
            Words.of("doctor.groups.process_has", needed=", ".join(needed)),
            None,
            data,
        )
    listed = host.listed_groups()
    later = [group for group in missing if group in listed]
    absent = [group for group in missing if group not in listed]
    what = Words(
        ", ".join(f"{g} ({_GROUP_USE[g].ru})" for g in missing),
        ", ".join(f"{g} ({_GROUP_USE[g].en})" for g in missing),
    )
    if absent:
        fix = Words.of(
            "doctor.groups.sudo_usermod_ag_then", missing=",".join(missing), user=host.user
        )
    else:
        fix = Words.of(
            "doctor.groups.since_after_login_log", user=host.user, later=", ".join(later)
        )
    return Verdict(
        "groups",
        FAIL,
        Words.of("doctor.groups.process_lacks_group_s", what=what),
        fix,
        {**data, "missing": missing},
    )
