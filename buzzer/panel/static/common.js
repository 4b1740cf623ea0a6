/* svoyak panel: what the host page and the viewer page share.
   No framework, no build step: the state arrives over the WebSocket and the
   page is redrawn from it. */
"use strict";

const Svoyak = (() => {
  const params = new URLSearchParams(location.search);
  let lang = params.get("lang") || localStorage.getItem("svoyak.lang") || "ru";
  if (!I18n.has(lang)) lang = I18n.FALLBACK;

  function t(key, vars) {
    return I18n.t(lang, key, vars);
  }

  function setLang(next) {
    lang = I18n.has(next) ? next : I18n.FALLBACK;
    localStorage.setItem("svoyak.lang", lang);
    const url = new URL(location.href);
    url.searchParams.set("lang", lang);
    history.replaceState(null, "", url);
    document.documentElement.lang = lang;
    translate(document);
  }

  function translate(root) {
    for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
    for (const node of root.querySelectorAll("[data-i18n-placeholder]")) {
      node.placeholder = t(node.dataset.i18nPlaceholder);
    }
  }

  /* el("button", {class: "big", onclick: f}, "text", child...) — never innerHTML. */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (k === "class") node.className = v;
      // Through the CSSOM: a style="" attribute is inline style, which the CSP refuses.
      else if (k === "style") node.style.cssText = v;
      else if (k === "dataset") Object.assign(node.dataset, v);
      else if (v === true) node.setAttribute(k, "");
      else node.setAttribute(k, String(v));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function playerName(snapshot, seat) {
    const players = (snapshot && snapshot.players) || [];
    return seat >= 1 && seat <= players.length ? players[seat - 1] : "?";
  }

  /* The game clock, in ns, as the server sees it now (for countdowns). */
  const clock = { serverNow: 0, at: 0 };
  function gameNow() {
    return clock.serverNow + (performance.now() - clock.at) * 1e6;
  }
  function seconds(deadlineNs) {
    const left = Math.max(0, (deadlineNs - gameNow()) / 1e9);
    return left.toFixed(1);
  }

  /* The live state: a snapshot on connect, then updates; reconnects by itself. */
  class Live {
    constructor(onState, onLink) {
      this.onState = onState;
      this.onLink = onLink;
      this.version = -1;
      this.snapshot = null;
      this.panel = null;
      this.socket = null;
      this.delay = 250;
      this.lastHeard = 0;
      setInterval(() => this.keepAlive(), 5000);
    }
    connect() {
      if (this.socket) {
        this.socket.onclose = null;
        this.socket.close();
      }
      const scheme = location.protocol === "https:" ? "wss" : "ws";
      const socket = new WebSocket(`${scheme}://${location.host}/ws`);
      this.socket = socket;
      socket.onopen = () => {
        this.delay = 250;
        this.lastHeard = performance.now();
        this.onLink(true);
      };
      socket.onmessage = (event) => this.receive(JSON.parse(event.data));
      socket.onclose = () => {
        this.onLink(false);
        setTimeout(() => this.connect(), this.delay);
        this.delay = Math.min(this.delay * 2, 4000);
      };
    }
    keepAlive() {
      const socket = this.socket;
      if (!socket || socket.readyState !== WebSocket.OPEN) return;
      if (performance.now() - this.lastHeard > 15000) {
        socket.close(); // silent for too long: reconnect and resynchronize
        return;
      }
      socket.send(JSON.stringify({ type: "ping" }));
    }
    receive(message) {
      this.lastHeard = performance.now();
      let decisions = [];
      if (message.type === "state" || message.type === "update") {
        if (message.type === "state" || message.version >= this.version) {
          this.version = message.version;
          this.snapshot = message.snapshot;
          clock.serverNow = message.snapshot.now;
          clock.at = performance.now();
        }
        decisions = message.decisions || [];
        if (message.panel) this.panel = message.panel;
      } else if (message.type === "panel") {
        this.panel = message.panel;
      } else if (message.type === "version") {
        // an input was journaled but changed nothing visible yet (held for the settle window)
        if (message.version > this.version) {
          this.version = message.version;
          clock.serverNow = message.now;
          clock.at = performance.now();
        }
        return;
      } else {
        return;
      }
      this.onState(this.snapshot, this.panel, decisions, message.type);
    }
  }

  /* The scores strip, shared by both pages. Called on every state and five times a
     second (a false start's «блок» goes when its time is up): the strip is rebuilt
     only when what it shows changed. Rebuilt every time, it kept a tablet's browser
     laying out and painting the top bar five times a second all night. */
  const shownScores = new WeakMap();
  function renderScores(container, snapshot, panel) {
    const now = gameNow();
    const stuck = new Set(
      ((panel && panel.alerts) || []).filter((a) => a.kind === "stuck").map((a) => a.seat),
    );
    const next = panel && panel.extras && panel.extras.next_round;
    // the chooser's ★ means nothing in the final and after the game
    const choosing = !snapshot.stage.startsWith("final_") && snapshot.stage !== "over";
    const chooser = !choosing ? null : next && snapshot.stage === "board" ? next.chooser : snapshot.chooser;
    const inQuestion = snapshot.stage === "question";
    // a margin is the race for the floor now taken: not once the window reopens
    // after a wrong answer (the engine keeps it until the next press is recognized)
    const racing = inQuestion && snapshot.phase === "answering";
    const rows = snapshot.players.map((player, i) => {
      const seat = i + 1;
      const classes = ["player"];
      if (snapshot.answering === seat) classes.push("answering");
      if (chooser === seat && snapshot.stage === "board") classes.push("chooser");
      if (snapshot.winner === seat) classes.push("winner");
      if (inQuestion && (snapshot.answered || []).includes(seat)) classes.push("answered");
      const locked = (snapshot.locked_until || {})[seat];
      return {
        seat, player, classes: classes.join(" "), chooser: chooser === seat,
        locked: Boolean(locked && locked > now), stuck: stuck.has(seat),
        score: String(snapshot.scores[String(seat)]),
        margin: racing ? (snapshot.margins_us || {})[seat] : undefined,
      };
    });
    const key = JSON.stringify([lang, rows]);
    if (shownScores.get(container) === key) return;
    shownScores.set(container, key);
    container.replaceChildren(...rows.map((row) => {
      const marks = [];
      if (row.chooser) marks.push(el("span", { class: "mark chooser-mark" }, "★"));
      if (row.locked) marks.push(el("span", { class: "mark locked" }, t("locked")));
      if (row.stuck) marks.push(el("span", { class: "mark stuck" }, "⚠"));
      return el(
        "div",
        { class: row.classes, dataset: { seat: String(row.seat) } },
        // on a narrow card (a phone) the marks wrap below the name (panel.css)
        el("div", { class: "name" }, el("span", { class: "who" }, row.player), marks),
        el("div", { class: "score" }, row.score),
        row.margin !== undefined
          ? el("div", { class: "margin" }, t("margin.ms", { ms: (row.margin / 1000).toFixed(1) }))
          : null,
      );
    }));
  }

  /* How long a transient alert shows (ms), on every page: a reload included. The
     server says it (`ttl_ms`, its one policy); its age is the game clock's (the
     server's: a tablet's own clock may differ), from the alert's `t`; an alert
     without a ttl (a stuck button) stays until taken down. */
  function alertLive(alert, firstSeen, ttlMs) {
    const ttl = ttlMs ?? alert.ttl_ms;
    if (ttl === undefined) return true;
    if (typeof alert.t === "number") return (gameNow() - alert.t) / 1e6 <= ttl;
    if (!firstSeen.has(alert.id)) firstSeen.set(alert.id, performance.now());
    return performance.now() - firstSeen.get(alert.id) <= ttl;
  }

  /* The round's name as the board shows it: a bare number ("1", as SIGame packages
     often name rounds) is «Раунд 1»; in the final and after the game the stage says
     it all (the top bar says «Финал: темы» once, «Игра окончена»). */
  function roundName(name, number) {
    const text = String(name ?? "").trim();
    if (/^\d+$/.test(text)) return t("round", { n: text });
    return text || t("round", { n: number ?? 1 });
  }

  function roundTitle(snapshot) {
    if (snapshot.shootout) {
      return t("shootout", {
        n: snapshot.shootout.number, names: snapshot.shootout.seats.map((s) => playerName(snapshot, s)).join(", "),
      });
    }
    if (snapshot.stage.startsWith("final_") || snapshot.stage === "over") return "";
    return roundName(snapshot.round_name, snapshot.round);
  }

  function alertText(snapshot, alert) {
    // A source's fault: the reason in the page's language (the journal's detail is English).
    // The journal's outage: its cause ("full", "readonly", "io", "other") picks the sentence.
    const key = (alert.kind === "source" || alert.kind === "journal") && alert.why
      ? "alert." + alert.kind + "." + alert.why : "alert." + alert.kind;
    return t(key, {
      ms: alert.ms === undefined ? "" : String(alert.ms),
      count: alert.count === undefined ? "" : String(alert.count),
      button: alert.button === undefined ? "" : String(alert.button),
      seats: alert.seats === undefined ? "" : String(alert.seats),
      line: alert.line === undefined ? "" : String(alert.line),
      presses: alert.presses === undefined ? "" : String(alert.presses),
      commands: alert.commands === undefined ? "" : String(alert.commands),
      name: playerName(snapshot, alert.seat),
      winner: alert.ahead_of === undefined ? "" : playerName(snapshot, alert.ahead_of),
      ahead: alert.ahead_ms === undefined ? "" : String(alert.ahead_ms),
      late: alert.late_s === undefined ? "" : String(alert.late_s),
      source: alert.source || "",
      detail: alert.detail || "",
    });
  }

  return {
    t, el, setLang, translate, playerName, gameNow, seconds, Live, renderScores, alertText,
    alertLive, roundName, roundTitle,
    get lang() { return lang; },
  };
})();
