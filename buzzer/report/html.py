"""The report as one self-contained HTML page: the model laid out, the pictures inline.

Self-contained means a jury can open it years later on a machine with no
network: the CSS and the SVG are inline, nothing is fetched (a
Content-Security-Policy of ``default-src 'none'`` says so to the browser
too), and no script is needed — there is none. It prints to A4: each part
starts a page, a question's picture never splits across pages, and every
picture scales to the page's width.

Every text from the journal or its package goes through :func:`buzzer.report.svg.esc`.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Final

from buzzer import __version__
from buzzer.report import svg
from buzzer.report.model import Attempt, Player, Question, Report
from buzzer.report.svg import esc
from buzzer.report.words import (
    duration_text,
    number,
    reaction_text,
    seconds_text,
    signed,
    words,
)


class Safe(str):
    """Text already escaped for HTML (a name through :func:`esc`, a piece of markup)."""


def fmt(template: str, **values: object) -> Safe:
    """Our own ``template`` (escaped) filled with ``values``: each escaped, unless :class:`Safe`."""
    filled = {k: v if isinstance(v, Safe) else esc(v) for k, v in values.items()}
    return Safe(html.escape(template, quote=False).format(**filled))


_CSS: Final = """
@page { size: A4; margin: 12mm; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0 auto; padding: 16px; max-width: 980px; font: 14px/1.45 "DejaVu Sans",
  Arial, sans-serif; color: #111; background: #fff; overflow-wrap: anywhere;
  print-color-adjust: exact; -webkit-print-color-adjust: exact; }
h1, h2, h3 { color: BOARD; margin: 0.6em 0 0.3em; line-height: 1.2; }
h1 { font-size: 24px; } h2 { font-size: 19px; border-bottom: 3px solid GOLD; }
h3 { font-size: 15px; }
dl.head { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0; }
dl.head dt { font-weight: bold; } dl.head dd { margin: 0; }
.seal { margin: 10px 0; padding: 8px 12px; border: 2px dashed BOARD; display: flex;
  flex-wrap: wrap; gap: 4px 12px; align-items: baseline; }
.seal code { font-size: 18px; font-weight: bold; letter-spacing: 0.08em; }
.seal .hint, .note, .meta { color: #555; font-size: 12px; }
.result { font-weight: bold; }
figure { margin: 8px 0; }
svg { display: block; max-width: 100%; height: auto; }
figure svg { width: 100%; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(300px, 1fr));
  gap: 12px; }
.card { border: 1px solid #ccd; border-left: 6px solid var(--seat); padding: 8px 10px;
  break-inside: avoid; }
.card dl { display: grid; grid-template-columns: 1fr max-content; gap: 1px 10px; margin: 4px 0; }
.card dd { margin: 0; text-align: right; font-variant-numeric: tabular-nums; }
.card svg { margin-top: 6px; }
table.rounds { border-collapse: collapse; margin-top: 6px; font-size: 12px; }
table.rounds th, table.rounds td { border: 1px solid #ccd; padding: 1px 6px; text-align: right; }
article.question { break-inside: avoid; page-break-inside: avoid; margin: 14px 0 18px; }
article.question ul { margin: 4px 0; padding-left: 20px; }
.right { color: #17803d; } .wrong { color: #b3261e; }
footer { margin-top: 24px; color: #555; font-size: 11px; }
@media print {
  body { max-width: none; padding: 0; font-size: 12px; }
  section.page { break-before: page; page-break-before: always; }
}
"""


def render_report(
    report: Report, lang: str = "ru", seal: str | None = None, played: str | None = None
) -> str:
    """The whole page. ``seal``: the journal's seal in its short form, shown in the
    header's marked place (None: the journal has none yet). ``played``: a date to
    show when the header names none (the CLI passes the journal file's)."""
    table = words(lang)
    css = _CSS.replace("BOARD", svg.BACKGROUND).replace("GOLD", svg.GOLD)
    parts = [
        "<!DOCTYPE html>",
        f'<html lang="{lang}">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">",
        f"<title>{esc(table['title'])} — {esc(', '.join(report.players), 120)}</title>",
        f"<style>{css}</style>",
        "</head>",
        "<body>",
        _header(report, table, lang, seal, played),
        '<section id="scores">',
        f"<h2>{esc(table['scores.title'])}</h2>",
        f"<figure>{svg.score_chart(report, lang)}</figure>",
        "</section>",
        '<section id="players" class="page">',
        f"<h2>{esc(table['players.title'])}</h2>",
        f'<p class="note">{esc(table["reaction.note"])}</p>',
        '<div class="cards">',
        *(_player(p, table, lang, _before(report, p.seat)) for p in report.stats),
        "</div>",
        "</section>",
        '<section id="questions" class="page">',
        f"<h2>{esc(table['questions.title'])}</h2>",
        f"<figure>{svg.legend(lang)}</figure>",
    ]
    if not report.questions:
        parts.append(f'<p class="note">{esc(table["questions.none"])}</p>')
    rounds = {r.number: r.name for r in report.rounds}
    parts.extend(_question(q, rounds, table, lang) for q in report.questions)
    parts += [
        "</section>",
        f"<footer>{esc(table['footer'].format(version=__version__))}</footer>",
        "</body>",
        "</html>",
        "",
    ]
    return "\n".join(parts)


def _scores(names: Sequence[str], scores: Sequence[int]) -> str:
    return " · ".join(f"{esc(n, 40)} {number(s)}" for n, s in zip(names, scores, strict=False))


def _header(
    report: Report, table: dict[str, str], lang: str, seal: str | None, played: str | None
) -> str:
    if report.date:
        date = esc(report.date)
    elif played:
        date = esc(table["file_date"].format(date=played))
    else:
        date = esc(table["date.none"])
    players = ", ".join(f"{seat}. {esc(name, 60)}" for seat, name in enumerate(report.players, 1))
    rows = [
        (table["rules"], f"{esc(report.rules_title)} (<code>{esc(report.rules)}</code>)"),
        (table["package"], esc(report.package) if report.package else esc(table["none"])),
        (table["date"], date),
        (table["players"], players),
    ]
    if report.start_scores and any(report.start_scores):
        rows.append((table["start_scores"], _scores(report.players, report.start_scores)))
    for seat, old, new in report.substitutes:
        rows.append(
            (
                table["substitute.label"],
                esc(table["substitute"].format(seat=seat, new=new, old=old)),
            )
        )
    rows.append((table["lines"], str(report.lines)))
    names = [p.name for p in report.stats]
    rows.append((table["result"], _scores(names, report.scores)))
    if not report.over:
        verdict = table["not_over"]
    elif report.winner is None or not 1 <= report.winner <= len(names):
        verdict = table["no_winner"]
    else:
        verdict = table["winner"].format(name=names[report.winner - 1])
    seal_html = (
        f"<code>{esc(seal, 80)}</code>"
        if seal
        else f'<span class="hint">{esc(table["seal.none"])}</span>'
    )
    dl = "".join(f"<dt>{esc(k)}</dt><dd>{v}</dd>" for k, v in rows)
    return (
        "<header>"
        f"<h1>{esc(table['title'])}</h1>"
        f'<dl class="head">{dl}</dl>'
        f'<p class="result">{esc(verdict)}</p>'
        f'<div class="seal" id="seal"><strong>{esc(table["seal"])}</strong>{seal_html}'
        f'<span class="hint">{esc(table["seal.hint"])}</span></div>'
        "</header>"
    )


def _before(report: Report, seat: int) -> tuple[str, ...]:
    """Who played ``seat`` before a substitute took it (SER-CC1-SUB), earliest first."""
    return tuple(old for s, old, _ in report.substitutes if s == seat)


def _player(p: Player, table: dict[str, str], lang: str, before: tuple[str, ...] = ()) -> str:
    """One seat's card: its statistics are the seat's, whoever played it (a
    substitute carries on with the seat's score), so the card names them all."""
    none = table["none"]

    def us(value: int | None) -> str:
        return esc(reaction_text(value, lang)) if value is not None else none

    stats = [
        (table["col.median"], us(p.median_us)),
        (table["col.best"], us(p.best_us)),
        (table["col.n"], str(len(p.reactions_us))),
        (table["col.fs"], str(p.false_starts)),
        (table["col.reading"], str(p.during_reading)),
        (table["col.won"], str(p.won)),
        (table["col.right"], str(p.right)),
        (table["col.wrong"], str(p.wrong)),
        (table["col.score"], esc(number(p.score))),
    ]
    dl = "".join(f"<dt>{esc(k)}</dt><dd>{v}</dd>" for k, v in stats)
    heads = "".join(
        f"<th>{esc(table['round.final'] if k == 0 else table['round.n'].format(n=k))}</th>"
        for k, _ in p.by_round
    )
    cells = "".join(f"<td>{esc(signed(v))}</td>" for _, v in p.by_round)
    rounds = (
        f'<div class="meta">{esc(table["col.rounds"])}</div>'
        f'<table class="rounds"><tr>{heads}</tr><tr>{cells}</tr></table>'
        if p.by_round
        else ""
    )
    earlier = (
        f' <small class="before">({esc(table["before"].format(names=", ".join(before)))})</small>'
        if before
        else ""
    )
    return (
        f'<div class="card" style="--seat: {svg.seat_colour(p.seat)}">'
        f"<h3>{p.seat}. {esc(p.name, 60)}{earlier}</h3><dl>{dl}</dl>"
        f'<div class="meta">{esc(table["col.dist"])}</div>'
        f"{svg.reaction_histogram(p, lang)}{rounds}</div>"
    )


def _question(q: Question, rounds: dict[int, str], table: dict[str, str], lang: str) -> str:
    names = q.names

    def name(seat: int | None) -> Safe:
        if seat is not None and 1 <= seat <= len(names):
            return Safe(esc(names[seat - 1], 60))
        return Safe("—")

    if q.theme_title:
        theme = fmt(table["theme.named"], n=q.theme, title=q.theme_title)
    else:
        theme = fmt(table["theme"], n=q.theme)
    heading = fmt(table["question"], n=q.number, theme=theme, price=q.price)
    meta: list[str] = []
    if q.shootout:
        meta.append(esc(table["shootout"]))
    else:
        meta.append(fmt(table["question.round"], n=q.round, name=rounds.get(q.round, "")))
    if q.chooser is not None:
        meta.append(fmt(table["chosen_by"], name=name(q.chooser)))
    if q.special:
        meta.append(f"<strong>{esc(table.get('special.' + q.special, q.special))}</strong>")
    items: list[str] = []
    if q.special and not q.marks:
        items.append(esc(table["special.note"]))
    if q.zero != "signal" and q.marks:
        items.append(esc(table["zero.note." + q.zero]))
    items.extend(_attempt(a, name, table, lang) for a in q.attempts)
    for m in q.marks:
        if m.kind == "false_start":
            until = m.locked_until if m.locked_until is not None else m.t
            items.append(
                fmt(
                    table["false_start"],
                    name=name(m.seat),
                    t=seconds_text(m.t, lang),
                    until=seconds_text(until, lang),
                )
            )
        elif m.kind == "late":
            reason = table.get(f"reason.{m.reason}", m.reason or "")
            items.append(
                fmt(table["late"], name=name(m.seat), t=seconds_text(m.t, lang), reason=reason)
            )
    for w in q.windows:
        if w.empty:
            items.append(fmt(table["window.empty"], t=seconds_text(w.closes, lang)))
    if q.withdrawn:
        answered = any(a.verdict is not None for a in q.attempts)
        items.append(esc(table["withdrawn.after_wrong" if answered else "withdrawn"]))
    for c in q.changes:
        items.append(fmt(table[f"change.{c.kind}"], name=name(c.seat), delta=signed(c.delta)))
    items.append(fmt(table["scores.after"], scores=Safe(_scores(names, q.scores))))
    lis = "".join(f"<li>{item}</li>" for item in items)
    return (
        f'<article class="question" id="q{q.number}">'
        f"<h3>{heading}</h3>"
        f'<div class="meta">{" · ".join(meta)}</div>'
        f"<figure>{svg.press_timeline(q, names, lang)}</figure>"
        f"<ul>{lis}</ul>"
        "</article>"
    )


def _attempt(
    a: Attempt, name: Callable[[int | None], Safe], table: dict[str, str], lang: str
) -> str:
    """One recognition: who, when, by how much, and the verdict."""
    who = name(a.seat)
    if not a.pressed:
        line = fmt(table["attempt.special"], name=who)
    else:
        key = "attempt.reading" if a.during_reading else "attempt"
        line = fmt(table[key], name=who, t=seconds_text(a.t, lang))
        if a.level:
            others = Safe(", ".join(name(s) for s in a.level))
            line = Safe(line + "; " + fmt(table["level"], names=others))
        elif a.margin_us is not None:
            margin = duration_text(a.margin_us, lang)
            line = Safe(line + "; " + fmt(table["margin"], margin=margin, name=name(a.runner_up)))
        else:
            line = Safe(line + "; " + esc(table["alone"]))
    if a.verdict is None:
        verdict = f"<span>{esc(table['verdict.none'])}</span>"
    else:
        css = "right" if a.verdict == "right" else "wrong"
        text = table[f"verdict.{a.verdict}"].format(delta=signed(a.delta or 0))
        verdict = f'<span class="{css}">{esc(text)}</span>'
    return f"{line} — {verdict}"
