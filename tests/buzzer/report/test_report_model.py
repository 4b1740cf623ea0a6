"""The report's model on small journals built here: what each number is, exactly.

Margins (the winner over the runner-up, a tie the draw decided), reaction
times (from the signal; from the window's reopening after a wrong answer;
a pause not counted; only a seat's first press), false starts and presses
during the reading counted apart, late presses after the window, the score
chart's points and rounds, the verdicts per player.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from buzzer.journal.codec import JournalError
from buzzer.report.model import Report, build_report
from buzzer.report.words import TEXT, duration_text, seconds_text
from tests.support.lines import bad, ok, pr, re_, rs, sel, tick


def journal(header: dict[str, Any], *events: dict[str, Any]) -> list[str]:
    lines = [json.dumps({"type": "game", **header}, ensure_ascii=False)]
    return lines + [json.dumps(e, ensure_ascii=False) for e in events]


TV = {"rules": "tv-modern", "players": ["Анна", "Борис", "Вера"], "chooser": 2, "seed": 8}


def tv_game() -> Report:
    """tv-modern: a false start, a 700 µs margin, a wrong answer and a reopened window."""
    return build_report(
        journal(
            TV,
            sel(2.0, 3, 300),
            rs(2.5),
            pr(5.5, 1),  # a false start: 0.5 s before the signal, locked for 2 s
            re_(6.0),
            pr(6.4, 2),  # 400 ms: recognized
            pr(6.4007, 3),  # 700 µs later
            pr(7.2, 1),
            bad(9.0),  # the window reopens at 9.0
            pr(9.6, 1),
            ok(11.0),
            sel(15.0, 1, 500),
            rs(15.5),
            re_(20.0),
            pr(23.5, 3),  # after the window (20 + 3 s): late
            sel(25.0, 2, 100),
        )
    )


def test_the_winner_and_the_margin_to_the_runner_up() -> None:
    q = tv_game().questions[0]
    assert q.zero == "signal" and q.zero_at == 6.0
    first, second = q.attempts
    assert (first.seat, first.t, first.margin_us, first.runner_up) == (2, 0.4, 700, 3)
    assert (first.verdict, first.delta) == ("wrong", -300)
    assert (second.seat, second.verdict, second.delta, second.margin_us) == (1, "right", 300, None)


def test_every_press_is_a_mark_at_its_stamp_from_the_signal() -> None:
    marks = [(m.seat, m.t, m.kind) for m in tv_game().questions[0].marks]
    assert marks == [
        (1, -0.5, "false_start"),
        (2, 0.4, "won"),
        (3, 0.4007, "behind"),
        (1, 1.2, "behind"),
        (1, 3.6, "won"),
    ]
    fs = tv_game().questions[0].marks[0]
    assert fs.locked_until == 1.5  # the lockout span: −0.5 s … +1.5 s


def test_reaction_times_from_the_signal_and_the_reopened_window() -> None:
    stats = {p.name: p for p in tv_game().stats}
    # Анна: 1.2 s after the signal (behind Борис), then 0.6 s after the window reopened.
    assert stats["Анна"].reactions_us == (1_200_000, 600_000)
    assert stats["Борис"].reactions_us == (400_000,)
    assert stats["Вера"].reactions_us == (400_700,)  # the late press at 23.5 is no reaction
    assert stats["Анна"].median_us == 900_000 and stats["Анна"].best_us == 600_000


def test_false_starts_are_counted_apart_from_reactions() -> None:
    stats = {p.name: p for p in tv_game().stats}
    assert stats["Анна"].false_starts == 1
    assert all(us > 0 for us in stats["Анна"].reactions_us)
    assert stats["Борис"].false_starts == stats["Вера"].false_starts == 0


def test_a_late_press_is_after_the_window() -> None:
    q = tv_game().questions[1]
    (late,) = q.marks
    assert (late.seat, late.kind, late.reason, late.t) == (3, "late", "window_closed", 3.5)
    (window,) = q.windows
    assert window.empty and window.closes == 3.0 < late.t


def test_presses_won_verdicts_and_points_by_round() -> None:
    stats = {p.name: p for p in tv_game().stats}
    assert (stats["Анна"].won, stats["Анна"].right, stats["Анна"].wrong) == (1, 1, 0)
    assert (stats["Борис"].won, stats["Борис"].right, stats["Борис"].wrong) == (1, 0, 1)
    assert stats["Анна"].by_round == ((1, 300),)
    assert stats["Борис"].by_round == ((1, -300),)
    assert stats["Вера"].by_round == ()


def test_the_score_chart_has_a_point_per_question_and_the_start() -> None:
    report = tv_game()
    assert [p.kind for p in report.points] == ["start", "question", "question", "question"]
    assert report.points[0].scores == (0, 0, 0)
    assert report.points[1].scores == (300, -300, 0)
    assert [(r.number, r.first_point) for r in report.rounds] == [(1, 0)]
    assert report.scores == (300, -300, 0)


def test_only_a_seats_first_press_in_a_window_is_a_reaction() -> None:
    report = build_report(
        journal(
            TV,
            sel(1.0, 1, 100),
            rs(1.5),
            re_(2.0),
            pr(2.3, 2),
            pr(2.5, 3),
            pr(2.9, 3),  # Вера presses again: not a second reaction
            ok(4.0),
        )
    )
    stats = {p.name: p for p in report.stats}
    assert stats["Вера"].reactions_us == (500_000,)
    assert stats["Борис"].reactions_us == (300_000,)


def test_a_tie_is_level_and_the_draw_decides() -> None:
    report = build_report(
        journal(
            {"rules": "championship-2003", "players": ["A", "B", "C"], "chooser": 1, "seed": 1},
            sel(1.0, 1, 10),
            rs(1.5),
            re_(3.0),
            pr(3.5, 2),
            pr(3.5, 3),
            tick(4.0),
            ok(5.0),
        )
    )
    (attempt,) = report.questions[0].attempts
    assert attempt.margin_us == 0
    assert attempt.level == ({2: 3, 3: 2}[attempt.seat],)
    kinds = sorted(m.kind for m in report.questions[0].marks)
    assert kinds == ["behind", "won"]


def test_a_press_during_the_reading_is_apart_and_has_the_reading_as_zero() -> None:
    """championship-2003 interrupts the reading: no signal, 0 is the reading's start."""
    report = build_report(
        journal(
            {"rules": "championship-2003", "players": ["A", "B", "C"], "chooser": 1},
            sel(1.0, 1, 10),
            rs(2.0),
            pr(3.0, 2),
            tick(3.1),
            ok(5.0),
        )
    )
    q = report.questions[0]
    assert (q.zero, q.zero_at) == ("reading_start", 2.0)
    (attempt,) = q.attempts
    assert attempt.during_reading and attempt.t == 1.0
    assert [m.kind for m in q.marks] == ["early"]
    b = report.stats[1]
    assert (b.during_reading, b.reactions_us, b.won, b.right) == (1, (), 1, 1)


def test_a_pause_is_not_part_of_a_reaction() -> None:
    report = build_report(
        journal(
            TV,
            sel(1.0, 1, 100),
            rs(1.5),
            re_(2.0),
            {"t": 2.2, "type": "pause"},
            {"t": 12.2, "type": "resume"},
            pr(12.5, 3),
            ok(14.0),
        )
    )
    assert report.stats[2].reactions_us == (500_000,)


def test_a_broken_journal_is_refused_with_its_line() -> None:
    with pytest.raises(JournalError) as caught:
        build_report(journal(TV, sel(1.0, 1, 100), {"t": 2.0, "type": "nonsense"}))
    assert caught.value.line == 3


def test_both_languages_have_the_same_words() -> None:
    assert TEXT["ru"].keys() == TEXT["en"].keys()


def test_durations_and_times_as_they_are_read() -> None:
    assert duration_text(700, "ru") == "700 мкс"
    assert duration_text(3200, "en") == "3.2 ms"
    assert duration_text(1_200_000, "en") == "1.200 s"
    assert seconds_text(-0.5, "en") == "−0.500 s"
    assert seconds_text(0.0, "ru") == "0"


def test_SER_CC1_SUB_a_question_before_the_substitute_keeps_the_names_it_was_played_by() -> None:
    """The substitute comes between round 2's last question and round 3's first: that
    question was Борис's, the next one is Друзь's (the seat's score carries on)."""
    header = {
        "type": "game",
        "rules": "tv-modern",
        "players": ["Аня", "Борис", "Вера"],
        "chooser": 1,
        "board": {
            "rounds": [
                {"name": f"Раунд {n}", "themes": ["Тема"], "prices": [100 * n]} for n in (1, 2, 3)
            ]
        },
    }
    lines = [json.dumps(header, ensure_ascii=False)]
    for t, price in ((1.0, 100), (2.0, 200)):
        lines.append(json.dumps({"t": t, "type": "select", "theme": 1, "price": price}))
        lines.append(json.dumps({"t": t + 0.5, "type": "timeout"}))
    lines.append(
        json.dumps({"t": 3.0, "type": "substitute", "seat": 2, "name": "Друзь"}, ensure_ascii=False)
    )
    lines.append(json.dumps({"t": 4.0, "type": "select", "theme": 1, "price": 300}))
    lines.append(json.dumps({"t": 4.5, "type": "timeout"}))
    report = build_report(lines)
    assert [q.names[1] for q in report.questions] == ["Борис", "Борис", "Друзь"]
    assert report.substitutes == ((2, "Борис", "Друзь"),)
    # the seat's card is the seat's, whoever played it: it names both
    from buzzer.report.html import render_report

    page = render_report(report, "ru")
    assert '<h3>2. Друзь <small class="before">(до замены: Борис)</small></h3>' in page
    assert "<dt>Замена</dt><dd>место 2: Друзь вместо Борис</dd>" in page
