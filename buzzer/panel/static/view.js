/* svoyak: the read-only scoreboard for a phone or a second screen. It needs no PIN
   and can do nothing but show the state the server sends. */
"use strict";

(() => {
  const { t, el } = Svoyak;
  const $ = (id) => document.getElementById(id);
  let snapshot = null;
  let panel = null;
  const firstSeen = new Map();

  function countdown(deadline) {
    return el("span", { class: "countdown", dataset: { deadline: String(deadline) } },
      t("seconds", { s: Svoyak.seconds(deadline) }));
  }

  function renderNow() {
    const s = snapshot;
    const box = $("now");
    box.replaceChildren();
    const name = (seat) => Svoyak.playerName(s, seat);
    if (s.stage === "over") {
      box.append(el("h1", { class: "winner-line", id: "winner" }, s.winner ? t("winner", { name: name(s.winner) }) : t("no.winner")));
      box.append(el("p", {}, el("a", { class: "report-link", id: "report-link",
        href: "/report?lang=" + Svoyak.lang, target: "_blank", rel: "noopener" }, t("report.open"))));
      return;
    }
    if (s.cell) {
      const [theme, price] = s.cell;
      box.append(el("h1", { class: "question-title" },
        s.special ? el("span", { class: "special" }, t("special." + s.special)) : null,
        t("question.for", { theme: s.themes[theme - 1] ?? theme, price })));
    } else if (s.stage === "board") {
      const next = panel && panel.extras && panel.extras.next_round;
      const chooser = next ? next.chooser : s.chooser;
      if (next) {
        box.append(el("h2", { class: "next-round" },
          t("next.round", { name: Svoyak.roundName(next.name, next.round) })));
      }
      box.append(el("h1", { class: "note" }, chooser ? t("chooser", { name: name(chooser) }) : t("viewer.waiting")));
    } else {
      box.append(el("h1", {}, t("stage." + s.stage)));
    }
    if (s.answering) {
      const deadline = s.stage === "special" ? s.special_deadline : s.answer_deadline;
      box.append(el("div", { class: "answering-box" },
        el("div", { class: "label" }, t("answering")),
        el("div", { class: "who", id: "answering-name" }, name(s.answering)),
        deadline ? el("div", { class: "countdown-line" }, countdown(deadline)) : null));
    } else if (s.stage === "question" && s.phase === "open" && s.closes_at) {
      box.append(el("div", { class: "window-box" }, t("window"), " ", countdown(s.closes_at)));
    } else if (s.stage === "question") {
      box.append(el("p", { class: "phase" }, t("phase." + s.phase)));
    }
    if (s.bidding && s.bidding.bid !== null) {
      box.append(el("p", { class: "bid-current" }, t("bid.current", { amount: s.bidding.bid, name: name(s.bidding.leader) })));
    }
    const timer = panel && panel.extras && panel.extras.final_timer_until;
    if (timer) {
      const line = el("div", { class: "window-box", id: "final-timer", dataset: { until: String(timer) } },
        t("final.timer"), " ", countdown(timer));
      box.append(line);
      timerOut(line);
    }
  }

  /* The final's time to write, once out, says so («Время вышло»), never «0.0 с». */
  function timerOut(line) {
    if (line.dataset.out !== undefined || Svoyak.gameNow() < Number(line.dataset.until)) return;
    line.dataset.out = "";
    line.replaceChildren(t("final.timer.out"));
  }

  /* Five times a second (a false start goes after its 5 s): redrawn only when the
     alerts shown change, so that an idle screen is not laid out again and again. */
  let alertsKey = "";
  function renderAlerts() {
    const box = $("alerts");
    // a false start shows for 5 s of the game's clock: a reload does not bring it back
    const shown = ((panel && panel.alerts) || []).filter(
      (alert) => alert.kind === "false_start" && Svoyak.alertLive(alert, firstSeen, 5000));
    const texts = shown.map((alert) => Svoyak.alertText(snapshot, alert));
    const key = JSON.stringify([Svoyak.lang, texts]);
    if (key === alertsKey) return;
    alertsKey = key;
    box.replaceChildren(...texts.map((text) => el("div", { class: "alert false_start" }, "⚠ ", text)));
  }

  function render() {
    if (!snapshot) return;
    document.title = t("title.view");
    $("round-name").textContent = Svoyak.roundTitle(snapshot);
    $("round-name").hidden = !$("round-name").textContent;
    $("stage-label").textContent = t("stage." + snapshot.stage);
    $("paused-overlay").hidden = !(panel && panel.paused);
    renderNow();
    renderAlerts();
    Svoyak.renderScores($("scores"), snapshot, panel);
  }

  function setLink(up) {
    const link = $("link");
    link.className = "link " + (up ? "up" : "down");
    link.dataset.i18n = up ? "link.up" : "link.down"; // a language switch re-translates it
    link.textContent = t(link.dataset.i18n);
  }

  document.documentElement.lang = Svoyak.lang;
  Svoyak.translate(document);
  $("lang-btn").textContent = t("lang.other");
  $("lang-btn").onclick = () => {
    Svoyak.setLang(Svoyak.lang === "ru" ? "en" : "ru");
    $("lang-btn").textContent = t("lang.other");
    render();
  };
  const live = new Svoyak.Live((snap, pnl) => { snapshot = snap; panel = pnl; render(); }, setLink);
  live.connect();
  setInterval(() => {
    for (const node of document.querySelectorAll(".countdown")) {
      const text = t("seconds", { s: Svoyak.seconds(Number(node.dataset.deadline)) });
      if (node.textContent !== text) node.textContent = text; // unchanged: no relayout
    }
    const timer = $("final-timer");
    if (timer) timerOut(timer);
    if (!snapshot) return;
    renderAlerts();
    Svoyak.renderScores($("scores"), snapshot, panel); // a «блок» goes when its time is up
  }, 200);
})();
