"""The word catalogue (buzzer/words): complete in every language, and every key
the code asks for is in it."""

from __future__ import annotations

import json
import re

import pytest

from buzzer import words
from tests.support.paths import REPO

FILES = {lang: REPO / "buzzer" / "words" / f"{lang}.json" for lang in words.LANGUAGES}


def test_there_is_a_file_per_language_and_nothing_else() -> None:
    found = {p.stem for p in (REPO / "buzzer" / "words").glob("*.json")}
    assert found == set(words.LANGUAGES)
    assert words.DEFAULT_LANGUAGE == words.LANGUAGES[0] == "ru"


def test_every_language_has_every_key_with_the_same_fields() -> None:
    ru = words.catalogue("ru")
    assert {"board", "report", "summary", "panel"} <= set(ru)
    for lang in words.LANGUAGES:
        other = words.catalogue(lang)
        assert list(other) == list(ru), lang  # the same namespaces, in the same order
        for namespace, table in ru.items():
            assert set(other[namespace]) == set(table), (lang, namespace)
            for name, text in table.items():
                theirs = other[namespace][name]
                assert words.fields(theirs) == words.fields(text), (lang, namespace, name)


def test_a_text_writes_its_fields_one_way_and_no_other_brace() -> None:
    for lang in words.LANGUAGES:
        for key in words.keys(lang):
            text = words.tr(key, lang)
            rest = words.FIELD.sub("", text)
            assert "{" not in rest and "}" not in rest, (lang, key, text)


def test_the_files_are_what_the_lookup_reads() -> None:
    for lang, path in FILES.items():
        raw = json.loads(path.read_text(encoding="utf-8"))
        assert {ns: dict(t) for ns, t in words.catalogue(lang).items()} == raw


def test_the_lookup_fills_fields_and_names_a_missing_key() -> None:
    assert words.tr("board.round", "ru", n=3) == "Раунд 3"
    assert words.tr("board.round", "en", n=3) == "Round 3"
    assert words.tr("report.col.median", "en") == "Median reaction"
    assert words.table("summary", "ru")["winner"] == "Победитель: {name}"
    with pytest.raises(words.MissingWord, match=r"'board\.nonesuch'.*ru\.json"):
        words.tr("board.nonesuch", "ru")
    with pytest.raises(KeyError):
        words.tr("nonesuch", "en")
    with pytest.raises(words.UnknownLanguage, match="known: ru, en"):
        words.tr("board.round", "de")
    with pytest.raises(words.MissingWord, match="nonesuch"):
        words.table("nonesuch", "ru")


def test_the_wrappers_read_the_catalogue() -> None:
    from buzzer.replay_summary.words import TEXT as SUMMARY
    from buzzer.report.words import words as report_words
    from display.i18n import tr

    assert tr("round", "en", n=2) == words.tr("board.round", "en", n=2)
    assert tr("round", "xx", n=2) == "Раунд 2"  # the board falls back to Russian
    assert report_words("en") == dict(words.table("report", "en"))
    assert SUMMARY["ru"] is words.table("summary", "ru")


# -- every key the code uses is in the catalogue (a static scan) ----------------

#: Where each namespace's keys are used, and how a use is written there.
USES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "board": (("display/*.py",), (r"\btr\(\s*\"([^\"]+)\"",)),
    "report": (
        ("buzzer/report/*.py",),
        (r"\btable\[\s*['\"]([^'\"]+)['\"]\s*\]", r"words\(lang\)\[\s*['\"]([^'\"]+)['\"]\s*\]"),
    ),
    "summary": (
        ("buzzer/replay_summary/*.py",),
        (
            r"self\.words\[\s*\"([^\"]+)\"\s*\]",
            r"self\.say\(\s*\"([^\"]+)\"",
            r"\bwords\[\s*'([^']+)'\s*\]",
        ),
    ),
    "refusal": (
        ("buzzer/runtime/refusals.py", "buzzer/panel/messages.py", "buzzer/panel/limits.py"),
        (
            r"\bsay\(\s*\"([^\"]+)\"",
            r"\bat_stage\(\s*\"([^\"]+)\"",
            r"\btr\(\s*\"refusal\.([^\"]+)\"",
            r"\btr\(\s*f\"refusal\.([^\"{]+\.)\{",  # tr(f"refusal.stage.{stage}", …)
        ),
    ),
    "doctor": (
        ("buzzer/app/doctor*.py",),
        (
            r"\bWords\.of\(\s*\"doctor\.([^\"]+)\"",  # a verdict's words, both languages
            r"\btr\(\s*\"doctor\.([^\"]+)\"",
        ),
    ),
    "run": (
        ("buzzer/app/inputs.py", "buzzer/app/game_report.py", "buzzer/app/run_command.py"),
        # Every "run.…" literal is a key, however it reaches tr (_both, a conditional).
        (r"\"run\.([a-z0-9_.]+)\"",),
    ),
    "journal": (("buzzer/cli.py",), (r"\"journal\.([a-z0-9_.]+)\"",)),
    "package": (
        ("rules/packages/inspect.py",),
        (r"\bwords\[\s*['\"]([^'\"]+)['\"]\s*\]", r"\(\s*\"(stake_[a-z]+)\","),
    ),
    "tournament": (
        ("buzzer/tournament/*.py", "buzzer/tournament/templates/*.html"),
        (r"\blabels\.(?!get\b)([a-z_]+)", r"\blabels\[\s*\"([^\"]+)\"\s*\]"),
    ),
    "panel": (
        ("buzzer/panel/static/*.js", "buzzer/panel/static/*.html"),
        (
            r"\bt\(\s*\"([^\"]+)\"",  # t("key", …)
            r"\bt\([^()\"]*\?\s*\"([^\"]+)\"\s*:\s*\"([^\"]+)\"",  # t(c ? "a" : "b")
            r"data-i18n(?:-placeholder)?=\"([^\"]+)\"",
            r"dataset\.i18n\s*=[^;\"]*\?\s*\"([^\"]+)\"\s*:\s*\"([^\"]+)\"",
        ),
    ),
}


#: A namespace with fewer words than the usual floor: all it has (a scan that
#: found fewer would be one whose pattern no longer matches the code).
FEWEST = {"journal": 6}


def used(namespace: str) -> dict[str, set[str]]:
    globs, patterns = USES[namespace]
    found: dict[str, set[str]] = {}
    for pattern in globs:
        for path in sorted(REPO.glob(pattern)):
            text = path.read_text(encoding="utf-8")
            for regex in patterns:
                for match in re.findall(regex, text):
                    for key in (match,) if isinstance(match, str) else match:
                        found.setdefault(key, set()).add(str(path.relative_to(REPO)))
    return found


@pytest.mark.parametrize("namespace", sorted(USES))
def test_every_key_the_code_uses_is_in_the_catalogue(namespace: str) -> None:
    keys = set(words.table(namespace, words.DEFAULT_LANGUAGE))
    uses = used(namespace)
    assert len(uses) >= FEWEST.get(namespace, 10), (
        f"the scan for {namespace} found only {sorted(uses)}"
    )
    # A key ending in a dot is the fixed part of one made at run time
    # (t("stage." + stage)): some key must start with it.
    missing = {
        key: sorted(where)
        for key, where in uses.items()
        if not (any(k.startswith(key) for k in keys) if key.endswith(".") else key in keys)
    }
    assert not missing, f"used but not in buzzer/words/*.json [{namespace}]: {missing}"


def test_the_scan_would_see_a_missing_key() -> None:
    """The scan's patterns match the way the code writes a use."""
    assert re.findall(USES["board"][1][0], 'x = tr("nonesuch", lang)') == ["nonesuch"]
    assert re.findall(USES["report"][1][0], "esc(table['nonesuch'])") == ["nonesuch"]
    assert re.findall(USES["summary"][1][1], 'self.say("nonesuch", a=1)') == ["nonesuch"]
    assert re.findall(USES["panel"][1][0], 'el("b", {}, t("nonesuch", {n}))') == ["nonesuch"]
    assert re.findall(USES["doctor"][1][0], 'Words.of("doctor.x.y", n=1)') == ["x.y"]
    assert re.findall(USES["run"][1][0], 'k = "run.a_b" if one else "run.c"') == ["a_b", "c"]
    assert re.findall(USES["panel"][1][1], 't(on ? "a.b" : "c")') == [("a.b", "c")]
    assert re.findall(USES["panel"][1][2], '<h1 data-i18n="nonesuch">') == ["nonesuch"]
    assert re.findall(USES["panel"][1][3], 'n.dataset.i18n = up ? "a" : "b";') == [("a", "b")]


def test_every_full_key_written_in_python_is_in_the_catalogue() -> None:
    """``tr("namespace.name", …)`` anywhere in the Python packages."""
    namespaces = "|".join(words.catalogue(words.DEFAULT_LANGUAGE))
    full = re.compile(rf"\btr\(\s*\"((?:{namespaces})\.[^\"]+)\"")
    found: dict[str, set[str]] = {}
    for pattern in ("buzzer/**/*.py", "display/*.py"):
        for path in REPO.glob(pattern):
            for key in full.findall(path.read_text(encoding="utf-8")):
                found.setdefault(key, set()).add(str(path.relative_to(REPO)))
    known = words.keys()
    assert len(found) >= 3, found
    assert not {k: w for k, w in found.items() if k not in known}


def test_the_package_tables_words_made_at_run_time_are_in_the_catalogue() -> None:
    """``svoyak package inspect`` names a question's kind and its media's kinds by
    their values (``words[question_kind(q)]``, ``words[kind.value]``)."""
    from rules.packages.inspect import KIND_NAMES, LANGUAGES
    from rules.packages.model import MediaKind

    assert LANGUAGES == words.LANGUAGES
    made = {*KIND_NAMES.values(), "other", *(kind.value for kind in MediaKind)}
    for lang in words.LANGUAGES:
        assert made <= set(words.table("package", lang)), made - set(words.table("package", lang))


def test_every_host_command_has_its_label_in_the_command_log() -> None:
    """The host's command log and undo button name every command the server takes:
    ``commandLabel`` in host.js words some by a case of its own and the rest by
    ``cmd.<type>``. A type with neither showed its raw key («↶ Отменить: cmd.pause»)."""
    from buzzer.arbiter.events import COMMAND_TYPES

    host_js = (REPO / "buzzer" / "panel" / "static" / "host.js").read_text(encoding="utf-8")
    body = host_js[host_js.index("function commandLabel(") :]
    body = body[: body.index("\n  }\n")]
    own_case = set(re.findall(r'case "([a-z_]+)":', body))
    panel = words.table("panel", "ru")
    labelled = own_case | {key.removeprefix("cmd.") for key in panel if key.startswith("cmd.")}
    unlabelled = [kind for kind in COMMAND_TYPES if kind not in labelled]
    assert own_case, "the scan found no case in commandLabel: the function moved?"
    assert unlabelled == []
