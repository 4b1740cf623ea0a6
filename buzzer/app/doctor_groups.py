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
    "gpio": Words("пины GPIO", "the GPIO pins"),
    "dialout": Words("порт Pico", "the Pico's serial port"),
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
            Words(
                "ни пины GPIO, ни Pico здесь не нужны (имитация или нет ни карты пинов, ни Pico)",
                "neither GPIO pins nor a Pico are needed here (simulated, or no pin map "
                "and no Pico)",
            ),
            **data,
        )
    if host.is_root:
        return Verdict(
            "groups",
            PASS,
            Words(
                "запущено от root: ему открыто всё (служба работает от svoyak со своими "
                "группами, SupplementaryGroups)",
                "running as root, to which every device is open (the service runs as svoyak "
                "with its own SupplementaryGroups)",
            ),
            None,
            data,
        )
    missing = [group for group in needed if group not in have]
    if not missing:
        return Verdict(
            "groups",
            PASS,
            Words(
                f"у процесса есть {', '.join(needed)}",
                f"the process has {', '.join(needed)}",
            ),
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
        fix = Words(
            f"sudo usermod -aG {','.join(missing)} {host.user}, затем выйдите из системы и "
            "войдите снова (или перезагрузите Pi)",
            f"sudo usermod -aG {','.join(missing)} {host.user}, then log out and back in "
            "(or reboot the Pi)",
        )
    else:
        fix = Words(
            f"{host.user} уже в {', '.join(later)}, но этот сеанс начат раньше: выйдите из "
            "системы и войдите снова (или перезагрузите Pi)",
            f"{host.user} is in {', '.join(later)} since after this login: log out and back "
            "in (or reboot the Pi)",
        )
    return Verdict(
        "groups",
        FAIL,
        Words(f"у процесса нет групп: {what.ru}", f"the process lacks the group(s) {what.en}"),
        fix,
        {**data, "missing": missing},
    )
