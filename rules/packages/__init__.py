"""Question packages: SIGame ``.siq`` archives and the project's own JSON, as one model.

:mod:`rules.packages.model` is the pure data (``Package`` → ``Round`` →
``Theme`` → ``Question``); :mod:`rules.packages.siq` and
:mod:`rules.packages.own` read files into it, turning every problem into
:class:`PackageError`. ``Package.board_rounds()`` gives the board its rounds.
"""

from rules.packages.model import (
    CatAnnounce,
    CatParams,
    CatReceiver,
    MediaKind,
    MediaRef,
    Package,
    PackageError,
    PackageSource,
    PriceChoice,
    Question,
    QuestionKind,
    Round,
    RoundKind,
    StakeParams,
    Theme,
)
from rules.packages.own import load_json
from rules.packages.siq import SiqArchive, load_siq

__all__ = [
    "CatAnnounce",
    "CatParams",
    "CatReceiver",
    "MediaKind",
    "MediaRef",
    "Package",
    "PackageError",
    "PackageSource",
    "PriceChoice",
    "Question",
    "QuestionKind",
    "Round",
    "RoundKind",
    "SiqArchive",
    "StakeParams",
    "Theme",
    "load_json",
    "load_siq",
]
