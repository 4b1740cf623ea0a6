"""``svoyak selftest --generator GEN --serial PICO`` on two chip models: the order table.

The pulse generator's firmware on one emulated RP2040, the button firmware on
another, wired GP2-GP2, GP3-GP3 (:class:`firmware_bridge.chip.wiring.ChipWires`);
the self-test's fairness check presses seats 1 and 2 through the generator at
each offset, the Pico's presses come back through BridgeLink into a running
game. Prints the self-test's own table (BENCHMARKS.md, issues 14 and 15).

    .venv/bin/python bench/selftest_generator.py [--trials 20] [--offsets 0,2,5,10,20,100,1000]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # measure this checkout's code

from buzzer.cli import main as svoyak  # noqa: E402
from firmware_bridge.chip.model import ChipModel  # noqa: E402
from firmware_bridge.chip.wiring import ChipWires  # noqa: E402

GENERATOR = ROOT / "firmware_bridge" / "generator" / "main.py"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", default="20")
    parser.add_argument("--offsets", default="0,2,5,10,20,100,1000")
    args = parser.parse_args(argv)
    generator = ChipModel(
        files={"main.py": GENERATOR.read_bytes()},
        button_pins=(),
        lamp_pins=range(2, 10),
        pace=True,
    ).start()
    pico = ChipModel(pace=True).start()
    wires = ChipWires(generator, pico)
    try:
        generator.read_until(b"\n", timeout=60)
        pico.wait_firmware()
        return svoyak(
            [
                "selftest",
                "--generator",
                generator.open_pty(),
                "--serial",
                pico.open_pty(),
                "--checks",
                "fairness",
                "--trials",
                args.trials,
                "--offsets",
                args.offsets,
                "--no-png",
                "--no-progress",
            ]
        )
    finally:
        wires.close()
        generator.stop()
        pico.stop()


if __name__ == "__main__":
    raise SystemExit(main())
