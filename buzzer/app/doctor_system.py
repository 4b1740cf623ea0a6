"""``svoyak doctor``'s checks of the machine: groups, the service, the disk, the power, the LAN.

And the set-up they judge against: the config file, the service's own
command line (``systemctl show``), what the technician passed. Each check
reads the machine only through :class:`buzzer.app.doctor.Host`.

The names :mod:`buzzer.app.doctor` and the tests use, in one place; each job
in a module of its own: the real machine's readers (:mod:`.doctor_machine`),
the service and its threads' priority (:mod:`.doctor_service`), the config
and the set-up (:mod:`.doctor_config`), the groups (:mod:`.doctor_groups`),
the journal's disk (:mod:`.doctor_disk`), the power (:mod:`.doctor_power`),
the panel's address (:mod:`.doctor_lan`).
"""

from __future__ import annotations

from buzzer.app.doctor_config import (
    DEFAULT_PORT as DEFAULT_PORT,
)
from buzzer.app.doctor_config import (
    UNREADABLE as UNREADABLE,
)
from buzzer.app.doctor_config import (
    read_config,
    resolve,
)
from buzzer.app.doctor_disk import (
    DISK_FAIL_MB,
    DISK_WARN_MB,
    FSYNC_P99_FAIL_MS,
    FSYNC_P99_PASS_MS,
    check_journal_disk,
)
from buzzer.app.doctor_disk import (
    FSYNC_RECORD as FSYNC_RECORD,
)
from buzzer.app.doctor_disk import (
    quantile as quantile,
)
from buzzer.app.doctor_groups import (
    check_groups,
)
from buzzer.app.doctor_lan import (
    check_lan,
)
from buzzer.app.doctor_machine import (
    board_model as board_model,
)
from buzzer.app.doctor_machine import (
    is_raspberry_pi as is_raspberry_pi,
)
from buzzer.app.doctor_machine import (
    list_gpiochips,
)
from buzzer.app.doctor_machine import (
    listed_groups as listed_groups,
)
from buzzer.app.doctor_machine import (
    process_groups as process_groups,
)
from buzzer.app.doctor_machine import (
    run_command as run_command,
)
from buzzer.app.doctor_machine import (
    user_name as user_name,
)
from buzzer.app.doctor_power import (
    THROTTLED_BITS,
    check_power,
)
from buzzer.app.doctor_power import (
    UNDERVOLTAGE_BITS as UNDERVOLTAGE_BITS,
)
from buzzer.app.doctor_service import (
    POLICY_NAMES as POLICY_NAMES,
)
from buzzer.app.doctor_service import (
    RT_POLICY,
    RT_PRIORITY,
    Service,
    check_realtime,
    query_service,
)
from buzzer.app.doctor_service import (
    STOP_SERVICE as STOP_SERVICE,
)
from buzzer.app.doctor_service import (
    UNIT as UNIT,
)
from buzzer.app.doctor_service import (
    ThreadPriority as ThreadPriority,
)
from buzzer.app.doctor_service import (
    read_threads as read_threads,
)
from buzzer.app.doctor_service import (
    service_holds as service_holds,
)

__all__ = [
    "DISK_FAIL_MB",
    "DISK_WARN_MB",
    "FSYNC_P99_FAIL_MS",
    "FSYNC_P99_PASS_MS",
    "RT_POLICY",
    "RT_PRIORITY",
    "THROTTLED_BITS",
    "Service",
    "check_groups",
    "check_journal_disk",
    "check_lan",
    "check_power",
    "check_realtime",
    "list_gpiochips",
    "query_service",
    "read_config",
    "resolve",
]
