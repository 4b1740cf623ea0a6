"""The built-in demo question package, used by ``svoyak run``'s built-in demo.

``demo.json`` is in the project's own format (``docs/packages.md``): two main
rounds of four themes and a final of five. Every question in it was written
by the svoyak project for this package; it contains no third-party content
(no questions taken from other packages, games or websites), so it ships
under the project's own licence.

:data:`DEMO_PACKAGE` is the file's path, for :func:`rules.packages.own.load_json`.
It assumes the package is installed as plain files (not inside a zip).
"""

from importlib.resources import files
from pathlib import Path
from typing import Final

__all__ = ["BUILTIN_DEMO", "DEMO_PACKAGE"]

#: The name a journal header, ``svoyak run --package`` and ``svoyak package inspect``
#: give the built-in package (one home: the journal's codec and the tools import it).
BUILTIN_DEMO: Final = "svoyak:demo"

#: The demo package file (``rules/packages/demo/demo.json``).
DEMO_PACKAGE: Final[Path] = Path(str(files(__package__) / "demo.json"))
