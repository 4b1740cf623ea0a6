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
    0: Words("пониженное напряжение сейчас", "under-voltage now"),
    1: Words("частота ARM ограничена сейчас", "ARM frequency capped now"),
    2: Words("процессор замедлен сейчас", "throttled now"),
    3: Words("мягкий температурный предел сейчас", "soft temperature limit now"),
    16: Words("было пониженное напряжение", "under-voltage has occurred"),
    17: Words("частота ARM ограничивалась", "ARM frequency capping has occurred"),
    18: Words("процессор замедлялся", "throttling has occurred"),
    19: Words("был мягкий температурный предел", "soft temperature limit has occurred"),
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
                Words("не Raspberry Pi (нет vcgencmd)", "not a Raspberry Pi (no vcgencmd)"),
            )
        return Verdict(
            "power",
            WARN,
            Words(
                "vcgencmd не установлен: питание не проверить",
                "vcgencmd is not installed: the power cannot be checked",
            ),
            Words(
                "sudo apt install raspi-utils (на старых образах libraspberrypi-bin)",
                "sudo apt install raspi-utils (libraspberrypi-bin on older images)",
            ),
        )
    match = re.search(r"throttled=(0x[0-9a-fA-F]+)", ran.stdout)
    if ran.returncode != 0 or match is None:
        answer = (ran.stderr or ran.stdout).strip()[:200]
        return Verdict(
            "power",
            WARN,
            Words(
                f"vcgencmd get_throttled не ответил: {answer}",
                f"vcgencmd get_throttled failed: {answer}",
            ),
            Words(
                f"пользователю {host.user} нужна группа video (/dev/vchiq)",
                f"{host.user} needs the video group (/dev/vchiq)",
            ),
        )
    value = int(match.group(1), 16)
    bits = [bit for bit in THROTTLED_BITS if value >> bit & 1]
    data = {"throttled": match.group(1), "bits": bits}
    if not bits:
        return Verdict(
            "power",
            PASS,
            Words(
                f"ни пониженного напряжения, ни замедления с загрузки ({match.group(1)})",
                f"no under-voltage or throttling since boot ({match.group(1)})",
            ),
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
        fix = Words(
            "блок питания проседает: официальный 5 В 3 А (Pi 4) / 5 А (Pi 5), короткий "
            "толстый кабель, лампы — от своего блока 12 В; затем перезагрузка (флаги «было» "
            "сбрасываются только так)",
            "the supply sags: the official 5 V 3 A (Pi 4) / 5 A (Pi 5) supply, a short thick "
            "cable, the lamps on their own 12 V supply; then reboot (the 'has occurred' bits "
            "clear only then)",
        )
    else:
        fix = Words(
            "Pi перегревается: радиатор или вентилятор, воздух вокруг корпуса; затем "
            "перезагрузка, чтобы сбросить флаги",
            "the Pi runs hot: a heatsink or a fan, air around the case; then reboot to clear "
            "the bits",
        )
    return Verdict("power", FAIL if undervolted or now else WARN, found, fix, data)
