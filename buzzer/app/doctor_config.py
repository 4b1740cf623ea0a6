"""``svoyak doctor``'s set-up: the config file ``svoyak run`` reads, what the checks judge by.

:func:`read_config` reads and judges the config file; :func:`resolve` makes
the :class:`~buzzer.app.doctor.Setup` from the technician's options, the
service's own command line and the config, in ``svoyak run``'s order of
precedence.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from buzzer.app.doctor import (
    FAIL,
    PASS,
    WARN,
    DoctorOptions,
    Host,
    Setup,
    Verdict,
    Words,
    skipped,
)
from buzzer.app.doctor_service import Service

#: The panel's port when nothing sets another (svoyak run's default).
DEFAULT_PORT = 8000


# -- the config and the set-up ------------------------------------------------------


#: In :func:`read_config`'s values: the config exists but this user cannot read it.
UNREADABLE = "unreadable"


def read_config(
    options: DoctorOptions, host: Host, service: Service | None
) -> tuple[Verdict, dict[str, Any]]:
    """The config file ``svoyak run`` reads ([hardware], [journal], [panel]) and its verdict;
    its values by option name (``{UNREADABLE: True}`` when this user cannot read it)."""
    import tomllib

    from buzzer.app.run_command import _CONFIG_KEYS

    named = options.config or (service.option("config") if service is not None else None)
    if named is not None:
        path = Path(named)
        where = (
            Words("--config", "--config")
            if options.config
            else Words.of("doctor.config.from_svoyak_service_s")
        )
    elif host.config_file.is_file():
        path, where = host.config_file, Words.of("doctor.config.default")
    else:
        return (
            skipped(
                "config",
                Words.of("doctor.config.no_svoyak_run_takes", config_file=host.config_file),
            ),
            {},
        )
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except PermissionError:
        return (
            Verdict(
                "config",
                WARN,
                Words.of("doctor.config.cannot_read_it_holds", user=host.user, path=path),
                Words.of("doctor.config.run_it_sudo_sudo"),
                {"path": str(path)},
            ),
            {UNREADABLE: True},
        )
    except FileNotFoundError:
        return _config_failed(path, Words.of("doctor.config.no_such_file")), {}
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return _config_failed(path, Words(reason, reason)), {}
    except tomllib.TOMLDecodeError as exc:
        return _config_failed(path, Words.of("doctor.config.not_valid_toml", exc=exc)), {}
    found: dict[str, Any] = {}
    unknown = []
    for section, table in data.items():
        if not isinstance(table, dict):
            unknown.append(f"[{section}]")
            continue
        for key, value in table.items():
            option = _CONFIG_KEYS.get((section, key))
            if option is None:
                unknown.append(f"[{section}] {key}")
            else:
                found[option] = value
    if unknown:
        return _config_failed(
            path,
            Words.of("doctor.config.unknown_key_s_svoyak", unknown=", ".join(unknown)),
        ), found
    if "pin" in found:
        from buzzer.panel.auth import check_pin

        try:
            check_pin(str(found["pin"]))
        except ValueError as exc:  # a PIN svoyak run refuses (4 digits, letters): say so now
            first = str(exc).splitlines()[0]
            return _config_failed(
                path,
                Words.of("doctor.config.panel_pin_refused_svoyak", first=first),
            ), found
    used = [
        f"{key} {found[option]}"
        for key, option in (("pins", "pins"), ("serial", "serial"), ("journal", "journal"))
        if option in found
    ]
    about = ", ".join(used)
    return (
        Verdict(
            "config",
            PASS,
            Words(
                f"{path} ({where.ru}){': ' + about if about else ''}",
                f"{path} ({where.en}){': ' + about if about else ''}",
            ),
            None,
            {"path": str(path), **{k: str(v) for k, v in found.items() if k != "pin"}},
        ),
        found,
    )


def _config_failed(path: Path, why: Words) -> Verdict:
    return Verdict(
        "config",
        FAIL,
        Words(f"{path}: ", f"{path}: ") + why,
        Words.of("doctor.config.fix_file_keys_game"),
        {"path": str(path)},
    )


def resolve(
    options: DoctorOptions, host: Host, service: Service | None, config: dict[str, Any]
) -> Setup:
    """What the box uses: the technician's options first, then what the service is
    started with (its command line, then its config file), then svoyak run's defaults."""
    from hardware.pinmap import example_path

    def service_option(name: str) -> str | None:
        return service.option(name) if service is not None else None

    simulate = options.simulate or host.env.get("GPIOZERO_PIN_FACTORY") == "mock"
    pins: str | None = None
    pins_from = ""
    for value, where in (
        (options.pins, "--pins"),
        (host.env.get("SVOYAK_PINS"), "$SVOYAK_PINS"),
        (service_option("pins"), "the service's --pins"),
        (config.get("pins"), "[hardware] pins"),
    ):
        if value:
            pins, pins_from = str(value), where
            break
    else:
        if host.system_pinmap.is_file():
            pins, pins_from = str(host.system_pinmap), "the system's"
        elif simulate:
            pins, pins_from = str(example_path()), "the example (--simulate)"
    serial: str | None = None
    serial_from = ""
    for value, where in (
        (options.serial, "--serial"),
        (host.env.get("SVOYAK_SERIAL"), "$SVOYAK_SERIAL"),
        (service_option("serial"), "the service's --serial"),
        (config.get("serial"), "[hardware] serial"),
    ):
        if value:
            serial, serial_from = str(value), where
            break
    journal: Path | None = None
    journal_from = ""
    for value, where in (
        (options.journal, "--journal"),
        (service_option("journal"), "the service's --journal"),
        (config.get("journal"), "[journal] path"),
    ):
        if value:
            given = Path(str(value)).expanduser()
            journal = given if given.is_dir() else given.parent
            journal_from = where
            break
    if journal is None:
        journal, journal_from = host.games_dir(), "svoyak run's default"
    port = DEFAULT_PORT
    for value in (service_option("port"), config.get("port")):
        if value is not None:
            with contextlib.suppress(ValueError, TypeError):
                port = int(value)
            break
    return Setup(
        pins=pins,
        pins_from=pins_from,
        serial=serial,
        serial_from=serial_from,
        journal_dir=journal,
        journal_from=journal_from,
        panel_port=port,
        simulate=simulate,
        config_unknown=bool(config.get(UNREADABLE)),
        gpiochip=options.gpiochip,
        service=service,
    )
