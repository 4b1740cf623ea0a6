/* svoyak: the host's tablet panel. Every host action is one tap; the state shown
   is always the server's (it arrives over the WebSocket); a command carries an
   id made from the state it was tapped on, so a double tap is applied once. */
"use strict";

(() => {
  const { t, el } = Svoyak;
  const $ = (id) => document.getElementById(id);
  const clientId = randomHex(6);
  let snapshot = null;
  let panel = null;
  let live = null;
  let lastStageKey = "";
  let resumedReading = false;
  let loggedIn = false; // the game's state shows only once the PIN is in
  const typed = {}; // values typed into the stage's inputs, kept across redraws
  const inFlight = new Set();
  const firstSeen = new Map(); // alert id → when this page first showed it (an alert without a time)

  function randomHex(bytes) {
    const a = new Uint8Array(bytes);
    crypto.getRandomValues(a);
    return Array.from(a, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function hash(text) {
    let h = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    return h.toString(16).padStart(8, "0");
  }

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const name = (seat) => Svoyak.playerName(snapshot, seat);

  function messageOf(body) {
    const d = body && body.detail;
    if (d && typeof d === "object" && !Array.isArray(d)) {
      return Svoyak.lang === "en" ? d.message_en : d.message;
    }
    if (body && body.message) return Svoyak.lang === "en" ? body.message_en : body.message;
    return JSON.stringify(body);
  }

  /* The banner of a refusal. A popover: it is shown in the
     top layer, above an open dialog and its dimmed backdrop, so that a refusal of a
     tap made in a dialog is read on top of it (shown again, it goes on top of any
     dialog opened since). A tap takes it down. */
  let toastTimer = 0;
  // a browser without popovers (before Chrome 114, Safari 17) gets a plain fixed banner
  const popovers = typeof HTMLElement.prototype.showPopover === "function";
  function hideToast() {
    const box = $("toast");
    clearTimeout(toastTimer);
    if (!popovers) box.hidden = true;
    else if (box.matches(":popover-open")) box.hidePopover();
  }

  function toast(text, kind) {
    const box = $("toast");
    hideToast();
    // Inside the open modal dialog, if any: the rest of the page is inert under it
    // (a tap could not take the banner down), its descendants are not.
    const modal = (d) => { try { return d.matches(":modal"); } catch (e) { return true; } };
    const dialogs = [...document.querySelectorAll("dialog[open]")].filter(modal);
    const home = dialogs.length ? dialogs[dialogs.length - 1] : document.body;
    if (box.parentNode !== home) home.append(box);
    box.textContent = text;
    box.className = "toast " + (kind || "error");
    if (popovers) box.showPopover();
    else box.hidden = false;
    toastTimer = setTimeout(hideToast, 6000);
  }

  /* One host command. The id is made from this page, the state's version and the
     command: tapping the same button twice on the same state sends the same id,
     and a retry after a network error repeats it; the server applies it once. */
  async function send(command, button) {
    if (!snapshot) return null;
    const version = live.version;
    const id = `${clientId}-${version}-${hash(JSON.stringify(command))}`;
    if (inFlight.has(id)) return null;
    inFlight.add(id);
    if (button) button.classList.add("busy");
    if (navigator.vibrate) navigator.vibrate(15);
    try {
      for (let attempt = 0; ; attempt++) {
        let response;
        try {
          response = await fetch("/api/command", {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify({ id, version, command }),
            credentials: "same-origin",
          });
        } catch (error) {
          if (attempt < 3) {
            await sleep(300 * (attempt + 1));
            continue;
          }
          toast(t("error.network"));
          return null;
        }
        const body = await response.json().catch(() => ({}));
        if (response.ok) return body;
        if (response.status === 401) {
          showLogin();
          toast(t("error.login"));
          return null;
        }
        toast(messageOf(body));
        return null;
      }
    } finally {
      inFlight.delete(id);
      if (button) button.classList.remove("busy");
    }
  }

  async function post(path, body) {
    try {
      const response = await fetch(path, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body || {}),
        credentials: "same-origin",
      });
      if (response.status === 401) showLogin();
      return response;
    } catch (error) {
      toast(t("error.network"));
      return null;
    }
  }

  function button(id, label, command, kind) {
    return el(
      "button",
      { id, type: "button", class: "big " + (kind || ""), onclick: (e) => send(command, e.currentTarget) },
      label,
    );
  }

  function countdown(deadline) {
    return el("span", { class: "countdown", dataset: { deadline: String(deadline) } },
      t("seconds", { s: Svoyak.seconds(deadline) }));
  }

  function tickCountdowns() {
    for (const node of document.querySelectorAll(".countdown")) {
      const text = t("seconds", { s: Svoyak.seconds(Number(node.dataset.deadline)) });
      if (node.textContent !== text) node.textContent = text; // unchanged: no relayout
    }
    const timer = $("final-timer");
    if (timer) finalTimerOut(timer);
  }

  /* A number input whose value survives redraws. Its ± buttons land on round numbers:
     they move by the nudge to the next multiple of it, so that after a minimum of 950
     a +100 gives 1000, 1100 (never 1050), and they stop at the minimum and the
     maximum. The nudge: `raise` when given (a bid's: the real raise, the bid's step),
     else the round's smallest price as a multiple of the step (a final stake, a cat's
     value). A value of null starts the box empty (a final stake: nothing is suggested). */
  function amountInput(key, value, min, step, max, raise) {
    const prices = (snapshot.prices || []).filter((p) => p > 0);
    const smallest = prices.length ? Math.min(...prices) : step;
    const nudgeBy = raise || step * Math.max(1, Math.round(smallest / step));
    const start = value === null || value === undefined ? "" : String(value);
    if (typed[key] === undefined || (typed[key] !== "" && Number(typed[key]) < min)) typed[key] = start;
    const input = el("input", {
      type: "number", inputmode: "numeric", class: "amount", min, step, max,
      value: typed[key], dataset: { key }, placeholder: t("amount.placeholder"),
      oninput: (e) => { typed[key] = e.target.value; },
    });
    const nudged = [];
    const clamp = (v) => Math.max(min, max !== undefined ? Math.min(max, v) : v);
    const nudge = (d) => el("button", {
      type: "button", class: "step", dataset: { nudge: d > 0 ? "up" : "down" },
      onclick: () => {
        const raw = input.value.trim();
        const now = Number(raw);
        let next;
        if (raw === "" || !Number.isFinite(now)) next = d > 0 ? nudgeBy : min;
        else if (d > 0) next = (Math.floor(now / nudgeBy) + 1) * nudgeBy;
        else next = (Math.ceil(now / nudgeBy) - 1) * nudgeBy;
        input.value = String(clamp(next));
        typed[key] = input.value;
        for (const f of nudged) f();
      },
    }, (d > 0 ? "+" : "−") + nudgeBy);
    return {
      input,
      box: el("span", { class: "stepper" }, nudge(-1), input, nudge(1)),
      onnudge: (f) => nudged.push(f),
    };
  }

  // -- the stage area ------------------------------------------------------------

  /* What the host reads comes from the server (panel.question, host-only): the
     question, the host's spoken lines, the answers, the comment, what the board
     shows with it, a cat's own theme and value, the final's theme names. The page
     shows it; it decides nothing. */
  const hostView = () => (panel && panel.question) || null;
  const extras = () => (panel && panel.extras) || {};

  /* The host's commands since the current question's select, newest first, none
     undone (null when the log no longer reaches back to it). */
  function sinceSelect() {
    const out = [];
    for (const c of (panel && panel.commands) || []) {
      if (c.undone) continue;
      if (c.type === "select") return out;
      out.push(c);
    }
    return null;
  }

  /* The stage's controls that must never need a scroll (the verdicts, who answers,
     the countdown): a bar fixed above the bottom bar, whose height the page keeps
     free below its content (--dock-h), so that it covers nothing. */
  let dock = null;

  function stageHead(box) {
    const s = snapshot;
    if (!s.cell) return;
    const [theme, price] = s.cell;
    const parts = [];
    if (s.special) parts.push(el("span", { class: "special" }, t("special." + s.special)));
    parts.push(t("question.for", { theme: s.themes[theme - 1] ?? theme, price }));
    box.append(el("h2", { class: "question-title" }, parts));
    catInfo(box);
  }

  /* The cat's value as its package states it: «700», «500 или 1000», a stepped range,
     or the round's extremes. */
  function packageValue(cat) {
    if (cat.price !== null && cat.price !== undefined) return String(cat.price);
    if (cat.range) {
      const [min, max, step] = cat.range;
      return step ? t("cat.range.step", { min, max, step }) : t("cat.or", { a: min, b: max });
    }
    return t("cat.extremes");
  }

  /* The values the package offers, as buttons (none when there are too many). */
  function packageOptions(cat) {
    if (!cat) return [];
    if (cat.price !== null && cat.price !== undefined) return [cat.price];
    if (!cat.range) return [];
    const [min, max, step] = cat.range;
    if (!step) return [min, max];
    if ((max - min) / step + 1 > 10) return [];
    const out = [];
    for (let v = min; v <= max; v += step) out.push(v);
    return out;
  }

  /* A cat in the bag: its theme and value as the package states them («в пакете:
     700»), and what the game's rules make of it (the engine plays the rules' value,
     not the package's): «По правилам игры: минимум или максимум раунда — 100 или
     500». A package's «можно оставить себе» the rules do not allow is said too. */
  function catInfo(box) {
    if (snapshot.special !== "cat") return;
    const q = hostView();
    const cat = q && q.cat;
    const rules = extras().cat_rules;
    const parts = [];
    if (cat && cat.theme) parts.push(el("span", { class: "cat-theme" }, t("cat.theme", { theme: cat.theme })));
    if (cat) {
      parts.push(el("span", { class: "cat-value", id: "cat-package-value" },
        t("cat.package", { value: packageValue(cat) })));
    }
    if (rules) {
      const prices = snapshot.prices || [];
      const line = rules.price === "min_or_max" && prices.length
        ? t("cat.rule.minmax", { min: Math.min(...prices), max: Math.max(...prices) })
        : t("cat.rule." + rules.price);
      parts.push(el("span", { class: "cat-rule", id: "cat-rule" }, line));
    }
    if (cat && cat.announce === "before" && snapshot.stage === "cat_give") {
      parts.push(el("span", { class: "note" }, t("cat.before")));
    }
    if (!parts.length) return;
    box.append(el("p", { class: "cat-info", id: "cat-info" }, parts));
    const receiver = q && q.cat_receiver;
    if (rules && !rules.may_keep && (receiver === "any" || receiver === "self")) {
      box.append(el("p", { class: "note cat-keep", id: "cat-keep-note" }, t("cat.keep.refused." + receiver)));
    }
  }

  function answerLine(q) {
    const answers = q.answer || [];
    if (!answers.length) return null;
    return el("p", { class: "answer" }, el("span", { class: "label" }, t("answer") + ": "),
      answers.join(" / "));
  }

  const commentLine = (q) => (q.comment ? el("p", { class: "comment" }, q.comment) : null);
  const sayLine = (q) => (q.say
    ? el("p", { class: "say" }, el("span", { class: "label" }, t("say") + ": "), q.say) : null);
  const textLine = (q) => (q.text ? el("p", { class: "text" }, q.text) : null);
  /* What the board shows with the question besides its text: «На табло: картинка, звук». */
  const mediaLine = (q) => ((q.media || []).length
    ? el("p", { class: "on-board", id: "on-board" }, t("media.on.board", {
      what: q.media.map((kind) => t("media." + kind)).join(", "),
    })) : null);

  /* The question card: what the host reads out, then the right answer and the comment.
     `answerFirst`: the answer above the text (a special question, the final), where
     the host reads the question and judges it straight away: on a tablet the text of
     a long question runs under the dock, and the answer must not run with it. */
  function questionBlock(box, answerFirst) {
    const q = hostView();
    if (!q || !(q.text || q.say || (q.answer || []).length || (q.media || []).length)) return;
    const parts = answerFirst
      ? [mediaLine(q), answerLine(q), sayLine(q), textLine(q), commentLine(q)]
      : [mediaLine(q), sayLine(q), textLine(q), answerLine(q), commentLine(q)];
    box.append(el("div", { class: "question-box" + (answerFirst ? " answer-top" : ""), id: "question-text" },
      parts));
  }

  /* How many prices a row of the board holds: all of them up to `most`, else rows as
     even as can be (15 on a tablet: 8 + 7; 20: 7 + 7 + 6; on a phone 5 + 5 + 5). */
  const boardColumns = (n, most) => (n <= most ? n : Math.ceil(n / Math.ceil(n / most)));

  function renderBoard(box) {
    const s = snapshot;
    const x = extras();
    // A finished round: the next select opens the next round (the engine moves on
    // then); the server says which board that is and who will choose first.
    const next = x.next_round;
    const themes = next ? next.themes : s.themes;
    const prices = next ? next.prices : s.prices;
    const chooser = next ? next.chooser : s.chooser;
    // the round's end and who chooses first share a line: a tablet shows the next
    // round's every theme (six and more) without a scroll
    const head = el("div", { class: "board-head" });
    if (next) {
      head.append(el("h2", { class: "next-round" },
        t("next.round", { name: Svoyak.roundName(next.name, next.round) })));
    }
    if (chooser && !s.shootout) {
      head.append(el("h2", { class: "chooser-line", id: "chooser" }, t("chooser", { name: name(chooser) })));
    }
    // SER-CC1-SUB: between round 2 and round 3 a player may be replaced (the server
    // says when: options.substitute)
    if (x.substitute) {
      head.append(el("button", { type: "button", class: "tool", id: "substitute-btn", onclick: openSubstitute },
        t("substitute")));
    }
    if (head.childElementCount) box.append(head);
    if (s.shootout) {
      box.append(el("p", { class: "note" }, t("shootout", {
        n: s.shootout.number, names: s.shootout.seats.map(name).join(", "),
      })));
    }
    if (!x.has_chooser || s.shootout) {
      box.append(el("p", { class: "note" }, t("in.order")));
      box.append(el("div", { class: "actions" },
        button("next-question", t("next.question"), { type: "select" }, "go")));
    }
    const played = new Set((next ? next.holes : s.played).map(([theme, price]) => theme + ":" + price));
    // A theme's name beside its prices on a tablet (above them on a phone); many
    // prices wrap into even rows, each price readable and a finger wide.
    const grid = el("div", {
      class: "board" + (themes.length > 5 ? " dense" : ""),
      style: `--cols: ${boardColumns(prices.length, 8)}; --phone-cols: ${boardColumns(prices.length, 5)}`,
    });
    // The rows in the board's order (TV-H-2001-09: alphabetical in that era); a cell
    // keeps its theme's number, which is the journal's.
    const order = (next ? next.theme_order : s.theme_order) || themes.map((_, i) => i + 1);
    order.forEach((number) => {
      const theme = themes[number - 1];
      const cells = el("div", { class: "prices" });
      for (const price of prices) {
        const done = played.has(number + ":" + price);
        cells.append(el("button", {
          type: "button", class: "cell", disabled: done,
          dataset: { theme: String(number), price: String(price) },
          "aria-label": `${theme} — ${price}`,
          onclick: (e) => send({ type: "select", theme: number, price }, e.currentTarget),
        }, done ? "" : String(price)));
      }
      grid.append(el("div", { class: "board-row" }, el("div", { class: "theme" }, theme), cells));
    });
    box.append(grid);
  }

  /* Who answers, for what, and the time left: in the dock. */
  function answeringBox(label, seat, deadline, ...more) {
    return el("div", { class: "answering-box", id: "answering-box" },
      el("div", { class: "label" }, label),
      el("div", { class: "who", id: "answering-name", dataset: { seat: String(seat) } }, name(seat)),
      deadline ? el("div", { class: "countdown-line" }, t("answer.time"), " ", countdown(deadline)) : null,
      ...more);
  }

  function marginsLine(box) {
    const margins = Object.entries(snapshot.margins_us || {});
    if (!margins.length) return;
    box.append(el("div", { class: "margins" }, t("margins") + ": ",
      margins.map(([seat, us]) => el("span", { class: "margin-item" },
        name(Number(seat)), " ", t("margin.ms", { ms: (us / 1000).toFixed(1) })))));
  }

  function verdictButtons(command, seat) {
    const extra = seat === undefined ? {} : { seat };
    return el("div", { class: "actions verdicts" },
      button("judge-correct", t("correct"), { ...command, verdict: "correct", ...extra }, "correct"),
      button("judge-wrong", t("wrong"), { ...command, verdict: "wrong", ...extra }, "wrong"));
  }

  function renderQuestion(box) {
    const s = snapshot;
    stageHead(box);
    const q = hostView();
    if (s.phase === "answering") {
      // The host has read the question: who answers and the verdict, in the dock;
      // the right answer first here, then the text the host has read.
      dock.append(answeringBox(t("answering"), s.answering, s.answer_deadline));
      const actions = verdictButtons({ type: "judge" });
      if (s.answer_deadline === null) {
        // the reading goes on while the early presser waits (TV-94): end it first
        actions.append(button("reading-end", t("reading.end"), { type: "reading_end" }, "signal"));
      }
      dock.append(actions);
      marginsLine(box);
      if (q && (answerLine(q) || q.comment)) {
        box.append(el("div", { class: "question-box answer-first", id: "question-answer" },
          answerLine(q), commentLine(q)));
      }
      if (q && (q.text || q.say || (q.media || []).length)) {
        box.append(el("div", { class: "question-box read", id: "question-text" },
          mediaLine(q), sayLine(q), textLine(q)));
      }
      return;
    }
    let phase = t("phase." + s.phase);
    if (s.phase === "reading" && resumedReading) phase = t("reading.resume");
    // the buttons open with a window: its countdown is the status, said once
    // («Кнопки открыты ещё 4.3 с», not «Кнопки открыты» above it as well)
    const windowLine = s.phase === "open" && s.closes_at
      ? el("span", { class: "window-box" }, t("window"), " ", countdown(s.closes_at))
      : null;
    box.append(el("p", { class: "phase", id: "phase", dataset: { phase: s.phase } }, windowLine || phase));
    questionBlock(box);
    // the signal and «Снять вопрос» (what ends or withdraws the question) are at
    // hand wherever the host has scrolled to in a long text, whatever the alerts and
    // the simulated buttons above it take: in the dock
    const actions = el("div", { class: "actions reading-actions" });
    if (s.phase === "selected") {
      actions.append(button("reading-start", t("reading.start"), { type: "reading_start" }, "go"));
      actions.append(button("reading-end", t("reading.end"), { type: "reading_end" }, "signal"));
    } else if (s.phase === "reading") {
      actions.append(button("reading-end", t("reading.end"), { type: "reading_end" }, "signal"));
    }
    actions.append(button("timeout", t("timeout"), { type: "timeout" }, "secondary withdraw"));
    dock.append(actions);
  }

  /* The auction as the engine played it, from the host's own commands since the
     select: the players who passed without a tap could not outbid (their score is
     not above the bid: the engine passes them, TV-S-AUC-4); no bid tapped at all is
     an opener below the nominal, who plays for it (TV-S-AUC-2). */
  function auctionFacts() {
    const s = snapshot;
    const since = sinceSelect();
    if (!since || s.special !== "stake") return null;
    const bids = since.filter((c) => c.type === "bid");
    const tapped = new Set(since.filter((c) => c.type === "pass").map((c) => c.seat));
    return { bids, tapped };
  }

  function auctionNote(box) {
    const s = snapshot;
    const facts = auctionFacts();
    if (!facts || s.stage !== "special") return;
    const x = extras();
    const others = s.players.map((_, i) => i + 1).filter((seat) => seat !== s.answering);
    const auto = others.filter((seat) => !facts.tapped.has(seat));
    if (!auto.length) return; // everyone else passed by the host's tap: nothing to explain
    let text;
    if (x.stake_opener_only) text = t("auction.opener.only", { name: name(s.answering), amount: s.value });
    else {
      const why = auto.length === others.length ? t("auction.others")
        : t("auction.some", { names: auto.map(name).join(", ") });
      text = t("auction.why", { why, name: name(s.answering), amount: s.value });
      if (!facts.bids.length) {
        // the engine's bid (TV-S-AUC-2): the nominal for a score below it; a score
        // that is the nominal has it as its only bid, the whole score (not «less»)
        const score = s.scores[String(s.answering)];
        text += " " + t(score === s.value ? "auction.forced.all" : "auction.forced", { amount: s.value });
      }
    }
    box.append(el("p", { class: "auction-note", id: "auction-note" }, text));
  }

  function renderBidding(box) {
    const s = snapshot;
    const b = s.bidding;
    const x = extras();
    const facts = auctionFacts();
    stageHead(box);
    box.append(el("p", { class: "bid-current", id: "bid-current" },
      b.bid !== null ? t("bid.current", { amount: b.bid, name: name(b.leader) }) : t("bid.none")));
    if (b.bid !== null && facts && !facts.bids.length) {
      // nobody tapped a bid: the engine placed the opener's forced one (the nominal,
      // or a score that is the lowest bid: the whole score)
      const all = s.scores[String(b.leader)] === b.bid;
      box.append(el("p", { class: "auction-note", id: "auction-note" },
        t(all ? "bid.forced.note.all" : "bid.forced.note", { name: name(b.leader), amount: b.bid })));
    }
    // TV-H-1995-01: the others buy the question by pressing their buttons; the
    // engine gives the floor to the first press, the host only enters the bid.
    const buying = b.by_button && b.turn === null;
    if (buying) {
      box.append(el("p", { class: "buy-note", id: "buy-note" }, t("bid.buy.open")));
      if (s.phase === "open" && s.closes_at) {
        box.append(el("div", { class: "window-box" }, t("bid.buy.window"), " ", countdown(s.closes_at)));
      }
    }
    const list = el("div", { class: "bidders" });
    for (const seat of b.order) {
      const passed = b.passed.includes(seat);
      const turn = b.turn === seat && !passed;
      const score = s.scores[String(seat)];
      // passed by the engine, not by a tap: their score is not above the bid (under
      // TV-94 nobody but the opener bids at all: a plain «пас»)
      const cannot = passed && facts && !facts.tapped.has(seat) && !x.stake_opener_only;
      const status = passed ? t(cannot ? "bid.cannot" : "bid.passed")
        : b.leader === seat ? t("bid.leader")
        : turn ? t(b.by_button ? "bid.claimed" : "bid.turn")
        : buying && b.buyers.includes(seat) ? t("bid.buyer") : "";
      const row = el("div", {
        class: "bidder" + (turn ? " turn" : "") + (passed ? " passed" : ""), dataset: { seat: String(seat) },
      }, el("span", { class: "name" }, name(seat)), el("span", { class: "score" }, String(score)),
      el("span", { class: "status" }, status));
      if (turn) {
        const controls = el("div", { class: "bid-controls" });
        if (b.bid === null && x.bid_forced) {
          for (const amount of x.bid_forced) {
            controls.append(button(null, t("bid.forced", { amount }), { type: "bid", seat, amount }, "go"));
          }
        } else {
          const step = x.bid_step || 1;
          const low = x.bid_min ?? step;
          // ± the bid's step: the smallest raise there is (TV-S-AUC-1: 100), never the
          // round's price (200, 300 in the later rounds)
          const amount = amountInput("bid-" + seat, low, low, step, score > 0 ? score : undefined, step);
          controls.append(amount.box);
          controls.append(el("button", {
            type: "button", class: "big go", id: "bid-" + seat,
            onclick: (e) => send({ type: "bid", seat, amount: Number(amount.input.value) }, e.currentTarget),
          }, t("bid.make")));
          if (score > 0) {
            controls.append(button(null, t("bid.allin", { score }), { type: "bid", seat, amount: score }, "signal"));
          }
          if (b.bid !== null) controls.append(button("pass-" + seat, t("bid.pass"), { type: "pass", seat }, "wrong"));
        }
        row.append(controls);
      } else if (b.bid !== null && !passed && b.leader !== seat) {
        // TV-S-AUC-4: any player may pass at any moment, not only in their turn.
        const controls = el("div", { class: "bid-controls" });
        // TV-S-AUC-3: «игрока выбирает ведущий» among equal scores (the engine lists them)
        if ((x.bidder_pick || []).includes(seat)) {
          controls.append(button("pick-" + seat, t("bid.pick"), { type: "bidder_pick", seat }, "go"));
        }
        controls.append(button("pass-" + seat, t("bid.pass"), { type: "pass", seat }, "wrong"));
        row.append(controls);
      }
      list.append(row);
    }
    box.append(list);
    // read out after the bidding, to its winner: here for the host to prepare
    questionBlock(box);
  }

  function renderCatGive(box) {
    const s = snapshot;
    stageHead(box);
    box.append(el("h2", {}, t("cat.give", { name: name(s.chooser) })));
    const choices = el("div", { class: "choices" });
    s.players.forEach((player, i) => {
      if (i + 1 === s.chooser) return;
      choices.append(button("cat-" + (i + 1), player, { type: "cat_give", seat: i + 1 }, "go"));
    });
    const rules = extras().cat_rules;
    if (rules && rules.may_keep) {
      // the rules of the era let the chooser keep it (TV-S-CAT-1, 1996–97)
      choices.append(button("cat-keep", t("cat.keep", { name: name(s.chooser) }),
        { type: "cat_give", seat: s.chooser }, "secondary"));
    }
    box.append(choices);
    questionBlock(box);
  }

  function renderCatPrice(box) {
    const s = snapshot;
    const x = extras();
    stageHead(box);
    box.append(el("h2", {}, t("cat.price", { name: name(s.answering) })));
    const choices = el("div", { class: "choices" });
    if (x.cat_options) {
      // the rules set the choice (TV-S-CAT-2): the round's minimum or maximum
      for (const price of x.cat_options) {
        choices.append(button("cat-price-" + price, String(price), { type: "cat_price", price }, "go"));
      }
    } else {
      // a value the host sets (the editors' fixed one, TV-S-CAT-4): the package's
      // values as buttons, and a free amount (the package's value filled in)
      const q = hostView();
      const offered = packageOptions(q && q.cat);
      if (offered.length > 1) {
        for (const price of offered) {
          choices.append(button("cat-price-" + price, String(price), { type: "cat_price", price }, "go"));
        }
      }
      const price = amountInput("cat-price", offered[0] || (s.cell ? s.cell[1] : 0), 0, 1);
      choices.append(price.box, el("button", {
        type: "button", class: "big go", id: "cat-price-set",
        onclick: (e) => send({ type: "cat_price", price: Number(price.input.value) }, e.currentTarget),
      }, t("cat.price.set")));
    }
    box.append(choices);
    questionBlock(box);
  }

  function renderSpecial(box) {
    const s = snapshot;
    stageHead(box);
    auctionNote(box);
    // the host reads the question to the one who answers it, then judges
    questionBlock(box, true);
    const series = s.cat_series;
    if (series) {
      // TV-S-CAT-5: each picture shown lowers what the answer is worth
      box.append(el("p", { class: "cat-series", id: "cat-series" },
        t("cat.series", { n: series.shown, of: series.values.length, value: s.value })));
      if (series.shown < series.values.length) {
        box.append(el("div", { class: "actions" }, button("cat-picture",
          t("cat.picture", { value: series.values[series.shown] }), { type: "cat_picture" }, "secondary")));
      }
    }
    const verdicts = verdictButtons({ type: "judge" });
    if (s.special_deadline === null) {
      // C2003-2.4.6e: the time to think starts once the host has read the question
      verdicts.append(button("special-read", t("special.read"), { type: "reading_end" }, "signal"));
    }
    dock.append(answeringBox(t("special.for", { value: s.value }), s.answering, s.special_deadline),
      verdicts);
  }

  /* TV-H-1995-03: the bonus contest after the Blue round. The offer goes to the
     leader, then second and third place; whoever accepts answers five questions
     alone, and the host judges each (the engine stops at the first wrong one). */
  function renderBonusOffer(box) {
    const b = snapshot.bonus;
    box.append(el("h2", { class: "question-title" }, t("bonus.title")));
    box.append(el("p", { class: "bonus-rules", id: "bonus-rules" }, t("bonus.rules")));
    box.append(el("p", { class: "bonus-offer", id: "bonus-offer" },
      t("bonus.offer", { name: name(b.offered), place: b.place })));
    box.append(el("div", { class: "actions" },
      button("bonus-accept", t("bonus.accept"), { type: "bonus", accept: true }, "go"),
      button("bonus-decline", t("bonus.decline"), { type: "bonus", accept: false }, "secondary")));
  }

  function renderBonus(box) {
    const b = snapshot.bonus;
    box.append(el("h2", { class: "question-title" }, t("bonus.title")));
    box.append(el("p", { class: "bonus-progress", id: "bonus-progress" },
      t("bonus.progress", { n: b.right + 1, of: b.questions, right: b.right })));
    dock.append(answeringBox(t("bonus.for"), b.player, null), verdictButtons({ type: "judge" }));
  }

  /* The final's theme names: the package's, from the server; a page that has seen
     them keeps them for the command log («Убрана тема …») after the final. */
  let finalNames = [];
  function finalName(n) {
    const q = hostView();
    if (q && q.final_themes) finalNames = q.final_themes;
    return finalNames[n - 1] || t("final.theme", { n });
  }

  function finalHead(box) {
    const f = snapshot.final;
    if (f && f.themes_left.length === 1) {
      box.append(el("h2", { class: "final-theme" }, t("final.theme.left") + " ",
        el("span", { id: "final-theme-name" }, finalName(f.themes_left[0]))));
    }
  }

  const finalReading = () => el("div", { class: "actions reading-row" },
    button("final-reading-start", t("final.reading.start"), { type: "reading_start" }, "secondary"),
    button("final-reading-end",
      t("final.reading.end", { s: (snapshot.final && snapshot.final.answer_time_s) || 30 }),
      { type: "reading_end" }, "signal"));

  /* The final's time to write; once it has run out the line says so («Время вышло»),
     never «0.0 с» left standing (tickCountdowns turns it when the time is out). */
  const finalTimer = () => {
    const until = extras().final_timer_until;
    if (!until) return null;
    const line = el("div", { class: "countdown-line", id: "final-timer", dataset: { until: String(until) } },
      t("final.timer"), " ", countdown(until));
    finalTimerOut(line);
    return line;
  };

  function finalTimerOut(line) {
    if (line.dataset.out !== undefined || Svoyak.gameNow() < Number(line.dataset.until)) return;
    line.dataset.out = "";
    line.replaceChildren(t("final.timer.out"));
  }

  function renderFinalRemove(box) {
    const f = snapshot.final;
    const turn = extras().final_turn;
    box.append(el("h2", {}, t("final.remove", { name: name(turn) })));
    // the themes already gone stay in their places, struck out, with who removed them
    const removedBy = new Map();
    for (const c of (panel && panel.commands) || []) {
      if (c.type === "final_remove" && !c.undone && !removedBy.has(c.theme)) removedBy.set(c.theme, c.seat);
    }
    finalName(1); // the package's names, if any
    const left = new Set(f.themes_left);
    const total = Math.max(finalNames.length, ...f.themes_left, ...removedBy.keys());
    const choices = el("div", { class: "choices final-themes" });
    for (let theme = 1; theme <= total; theme++) {
      if (left.has(theme)) {
        choices.append(button("final-theme-" + theme, finalName(theme),
          { type: "final_remove", theme, seat: turn ?? null }, "wrong"));
        continue;
      }
      const by = removedBy.get(theme);
      choices.append(el("button", {
        type: "button", class: "big removed", id: "final-removed-" + theme, disabled: true,
        "aria-label": t("final.removed", { theme: finalName(theme) }),
      }, el("s", {}, finalName(theme)),
      by ? el("span", { class: "by" }, t("final.removed.by", { name: name(by) })) : null));
    }
    box.append(choices);
  }

  /* A finalist's stake as the host accepted it, from the host's command log (never
     a viewer's): the amount, null for «без ставки», undefined when not known. */
  function acceptedStake(seat) {
    for (const c of (panel && panel.commands) || []) {
      if (c.type === "final_stake" && c.seat === seat && !c.undone) return c.amount ?? null;
    }
    return undefined;
  }

  const stakeWords = (amount) => (amount === null ? t("final.nostake.short")
    : amount === undefined ? "?" : String(amount));

  const editingStakes = new Set(); // finalists whose accepted stake the host is changing

  let lastRevealed = null; // the stake this page saw revealed last: {seat, stake}

  /* The finalist judged last, the verdict and the stake revealed: from the host's
     command log (a reload keeps it), else what this page saw; null before any. */
  function lastJudged() {
    for (const c of (panel && panel.commands) || []) {
      if (c.type !== "final_judge" || c.undone) continue;
      const seat = c.seat ?? (c.context && c.context.seat) ?? (lastRevealed && lastRevealed.seat);
      if (!seat) return null;
      const stake = lastRevealed && lastRevealed.seat === seat ? lastRevealed.stake : acceptedStake(seat);
      return { seat, verdict: c.verdict, stake };
    }
    return null;
  }

  /* After a stake was accepted: the state push may have come before the reply,
     so the row is redrawn here (the stage key holds the editing set). */
  function closeStakeEditor(seat) {
    if (editingStakes.delete(seat)) renderStage();
  }

  function redrawStage() {
    lastStageKey = "";
    renderStage();
  }

  /* A finalist's stake row. An accepted row shows its stake (to the host) and an
     «Изменить»; changing it asks to confirm, naming the old amount and the new. The
     limit (the score) is shown, and an amount above it (or below the minimum) is
     refused here, at entry: nothing is sent (the server refuses it too). */
  function stakeRow(seat, x) {
    const s = snapshot;
    const score = s.scores[String(seat)];
    const staked = s.final.staked.includes(seat);
    const old = staked ? acceptedStake(seat) : undefined;
    const editing = staked && editingStakes.has(seat);
    const key = "stake-" + seat;
    const row = el("div", {
      class: "bidder" + (staked && !editing ? " passed" : " turn"), dataset: { seat: String(seat) },
    }, el("span", { class: "name" }, name(seat)), el("span", { class: "score" }, String(score)),
    el("span", { class: "status", id: "stake-status-" + seat },
      staked ? "✓ " + t("final.staked.amount", { amount: stakeWords(old) }) : ""));
    if (staked && !editing) {
      row.append(el("div", { class: "bid-controls" }, el("button", {
        type: "button", class: "big secondary", id: "stake-edit-" + seat,
        onclick: () => {
          editingStakes.add(seat);
          typed[key] = old === null || old === undefined ? "" : String(old);
          redrawStage();
        },
      }, t("final.stake.edit"))));
      return row;
    }
    const step = x.stake_step || 1;
    const low = x.stake_min || 1;
    const amount = amountInput(key, null, low, step, score);
    const error = el("p", { class: "error stake-error", id: "stake-error-" + seat, role: "alert", hidden: true });
    let tried = false; // an empty box is pointed out only once «Принять» is tapped
    // a change of an accepted stake, confirmed first: «Анна: 500 → 300?»
    const confirmed = (next) => !staked
      || window.confirm(t("final.stake.change", { name: name(seat), old: stakeWords(old), new: stakeWords(next) }));
    const accept = el("button", {
      type: "button", class: "big go", id: "stake-" + seat,
      onclick: async (e) => {
        tried = true;
        if (!check()) return;
        const value = Number(amount.input.value);
        if (!confirmed(value)) return;
        if (await send({ type: "final_stake", seat, amount: value }, e.currentTarget)) closeStakeEditor(seat);
      },
    }, t("final.stake"));
    const none = el("button", {
      type: "button", class: "big secondary", id: "stake-none-" + seat,
      onclick: async (e) => {
        if (!confirmed(null)) return;
        if (await send({ type: "final_stake", seat, amount: null }, e.currentTarget)) closeStakeEditor(seat);
      },
    }, t("final.nostake"));
    function check() {
      const value = Number(amount.input.value);
      let problem = "";
      const empty = amount.input.value.trim() === "";
      if (empty || !Number.isFinite(value)) problem = tried || !empty ? t("final.stake.none") : "";
      else if (value > score) problem = t("final.stake.over", { score });
      else if (value < low) problem = t("final.stake.under", { min: low });
      error.textContent = problem;
      error.hidden = !problem;
      amount.input.classList.toggle("invalid", Boolean(problem));
      amount.input.setAttribute("aria-invalid", problem ? "true" : "false");
      accept.classList.toggle("refused", Boolean(problem) || empty);
      return !problem && !empty;
    }
    amount.input.addEventListener("input", check);
    amount.onnudge(check);
    const controls = el("div", { class: "bid-controls" },
      amount.box,
      el("span", { class: "limit", id: "stake-limit-" + seat }, t("final.stake.limit", { score })),
      accept, none);
    if (editing) {
      controls.append(el("button", {
        type: "button", class: "big secondary", id: "stake-keep-" + seat,
        onclick: () => { editingStakes.delete(seat); delete typed[key]; redrawStage(); },
      }, t("final.stake.keep", { amount: stakeWords(old) })));
    }
    row.append(controls, error);
    check(); // a value typed before a redraw is checked again
    return row;
  }

  function renderFinalStakes(box) {
    const x = extras();
    finalHead(box);
    box.append(el("p", { class: "note" }, t("final.question.later")));
    const list = el("div", { class: "bidders" });
    for (const seat of snapshot.final.seats) list.append(stakeRow(seat, x));
    box.append(list);
  }

  function renderFinalJudging(box) {
    const s = snapshot;
    const f = s.final;
    finalHead(box);
    // every stake is in: the host reads the question now, then judges the answers;
    // the reading's buttons (its end comes where the host has scrolled to), who
    // answers, the 30 s and the verdicts are in the dock
    questionBlock(box, true);
    const next = f.judge_order[0];
    // C2003-2.7.4/2.7.5, TV-F-4/5: the verdicts come once the answers are in, after
    // the reading and its 30 s; until then they are shown, but cannot be tapped
    const verdicts = verdictButtons({ type: "final_judge" }, next);
    let wait = null;
    if (!f.answers_in) {
      for (const b of verdicts.querySelectorAll("button")) b.disabled = true;
      wait = el("div", { class: "note", id: "final-wait" },
        t(f.answers_due === null ? "final.read.first" : "final.writing"));
    }
    if (f.answers_due === null) dock.append(finalReading());
    const judged = lastJudged();
    if (judged) {
      dock.append(el("p", { class: "stake-revealed " + judged.verdict, id: "stake-revealed" },
        t("final.revealed." + judged.verdict, { name: name(judged.seat), stake: stakeWords(judged.stake) })));
    }
    dock.append(answeringBox(t("final.next", { name: "" }), next, null,
      el("div", { class: "note" }, t("final.hidden")), finalTimer(), wait), verdicts);
    box.append(el("p", { class: "note" }, t("final.order", { names: f.judge_order.map(name).join(" → ") })));
  }

  function renderOver(box) {
    const s = snapshot;
    box.append(el("h2", { class: "winner-line", id: "winner" },
      s.winner ? t("winner", { name: name(s.winner) }) : t("no.winner")));
    // issue 38: the report (every press on its timeline, reaction times, the seal)
    box.append(el("p", {}, el("a", { class: "report-link", id: "report-link",
      href: "/report?lang=" + Svoyak.lang, target: "_blank", rel: "noopener" }, t("report.open"))));
    // the final as the host judged it (the host's log: stakes stay off the viewers')
    const judged = new Map();
    for (const c of (panel && panel.commands) || []) {
      if (c.type === "final_judge" && !c.undone && !judged.has(c.seat)) judged.set(c.seat, c.verdict);
    }
    if (!judged.size) return;
    box.append(el("ul", { class: "final-results", id: "final-results" },
      [...judged].reverse().map(([seat, verdict]) => {
        const stake = acceptedStake(seat);
        return el("li", {}, t("final.result." + verdict + (stake === null ? ".none" : ""),
          { name: name(seat), stake: stakeWords(stake) }));
      })));
  }

  /* A question closed with nobody right (the window closed with no press, every
     answer wrong, «Снять вопрос»): the host still has to say the right answer. Its
     card stays until the host taps «К табло» or the game moves on (the next select). */
  function renderHeld(box) {
    const h = held;
    box.append(el("h2", { class: "question-title" },
      h.special ? el("span", { class: "special" }, t("special." + h.special)) : null,
      t("question.for", { theme: h.theme, price: h.price })));
    box.append(el("p", { class: "phase" }, t(h.pressed ? "held.note" : "held.nobody")));
    box.append(el("div", { class: "question-box answer-first", id: "held-answer" },
      answerLine(h.q), commentLine(h.q)));
    box.append(el("div", { class: "actions" }, el("button", {
      type: "button", class: "big go", id: "to-board",
      onclick: () => { held = null; lastStageKey = ""; render(); },
    }, snapshot.stage === "board" ? t("held.board") : t("held.next"))));
    if (h.q.text || h.q.say) {
      box.append(el("div", { class: "question-box read" }, sayLine(h.q), textLine(h.q)));
    }
  }

  const STAGES = {
    board: renderBoard,
    question: renderQuestion,
    bidding: renderBidding,
    cat_give: renderCatGive,
    cat_price: renderCatPrice,
    special: renderSpecial,
    bonus_offer: renderBonusOffer,
    bonus: renderBonus,
    final_remove: renderFinalRemove,
    final_stakes: renderFinalStakes,
    final_judging: renderFinalJudging,
    over: renderOver,
  };

  /* Which question is on the screen, and whether it closed with nobody right. */
  const CELL_STAGES = new Set(["question", "special", "bidding", "cat_give", "cat_price"]);
  let playing = null; // the question being played, as the host sees it
  let held = null; // a question closed with nobody right, kept for its answer

  function followQuestion(decisions, kind) {
    const s = snapshot;
    if (CELL_STAGES.has(s.stage) && s.cell) {
      held = null;
      const q = hostView();
      const [theme, price] = s.cell;
      const cell = s.cell.join(":");
      // whether anyone got the floor: «Никто не ответил верно», else «Никто не нажал»
      const pressed = Boolean(playing && playing.cell === cell && playing.pressed) || Boolean(s.answering)
        || (s.answered || []).length > 0 || decisions.some((d) => d.type === "recognized");
      if (q && !q.final_themes) {
        playing = { cell, theme: s.themes[theme - 1] ?? theme, price, special: s.special, q, pressed };
      }
      return;
    }
    const right = decisions.some((d) => d.type === "score" && d.delta > 0);
    if (playing && kind === "update" && decisions.length && !right && !s.shootout) {
      held = { ...playing, stage: s.stage };
    }
    playing = null;
    if (held && s.stage !== held.stage) held = null;
  }

  /* A tap is a press and a release on the same control. A state pushed while the
     host's finger is down would redraw the stage and replace that control, and the
     browser would send the click nowhere: the tap lost, with nothing said. So the
     stage waits while a pointer is down, and is redrawn as it comes up (after its
     click) — or after HOLD_MS, for a finger that never lifts. */
  const HOLD_MS = 1000;
  let pointerDownAt = 0;
  let redrawHeld = 0;
  document.addEventListener("pointerdown", () => { pointerDownAt = performance.now(); }, true);
  function pointerReleased() {
    pointerDownAt = 0;
    if (redrawHeld) {
      clearTimeout(redrawHeld);
      redrawHeld = 0;
      setTimeout(renderStage, 0); // after this release's click
    }
  }
  document.addEventListener("pointerup", pointerReleased, true);
  document.addEventListener("pointercancel", pointerReleased, true);

  function holdForTap() {
    const downFor = pointerDownAt ? performance.now() - pointerDownAt : HOLD_MS;
    if (downFor >= HOLD_MS) return false;
    if (!redrawHeld) {
      redrawHeld = setTimeout(() => { redrawHeld = 0; pointerDownAt = 0; renderStage(); }, HOLD_MS - downFor);
    }
    return true;
  }

  function renderStage() {
    if (holdForTap()) return;
    const box = $("stage");
    if (snapshot.stage !== "final_stakes") editingStakes.clear();
    const key = JSON.stringify([Svoyak.lang, { ...snapshot, now: 0, version: 0, locked_until: 0 },
      panel && panel.extras, panel && panel.question, panel && panel.commands, resumedReading,
      held && held.cell, [...editingStakes]]);
    if (key === lastStageKey) return;
    lastStageKey = key;
    box.replaceChildren();
    dock = $("dock");
    dock.replaceChildren();
    box.dataset.stage = snapshot.stage;
    dock.dataset.stage = snapshot.stage;
    if (held) {
      box.dataset.held = "1";
      renderHeld(box);
    } else {
      delete box.dataset.held;
      (STAGES[snapshot.stage] || renderBoard)(box);
    }
    dock.hidden = !dock.childElementCount;
    measureBars();
  }

  // -- the frame around it -------------------------------------------------------

  /* A command's label. The server says what each applied command acted on
     (`context`: the round's own theme name, the price, who answered): a select is
     named by its own round's themes, never the current one's, and a verdict says whose. */
  function commandLabel(c) {
    const n = (seat) => name(seat);
    const context = c.context || {};
    switch (c.type) {
      case "select": {
        if (!c.theme) return t("cmd.select.next");
        const theme = context.theme_name ?? snapshot.themes[c.theme - 1] ?? c.theme;
        return t("cmd.select", { theme, price: c.price });
      }
      case "judge":
        return context.seat ? t("cmd.judge." + c.verdict + ".seat", { name: n(context.seat) })
          : t("cmd.judge." + c.verdict);
      case "bonus": return t(c.accept ? "cmd.bonus.accept" : "cmd.bonus.decline");
      case "cat_picture": return t("cmd.cat_picture");
      // a verdict sent without its seat (a host button, a script) is the next one's
      case "final_judge": return t("cmd.final_judge." + c.verdict, { name: n(c.seat ?? context.seat) });
      case "final_remove": return t("cmd.final_remove", { theme: finalName(c.theme) });
      // the amounts: the command log is the host's alone
      case "final_stake": return t("cmd.final_stake", { name: n(c.seat), amount: stakeWords(c.amount ?? null) });
      case "correction":
        return t("cmd.correction", { name: n(c.seat), delta: (c.delta > 0 ? "+" : "") + c.delta, reason: c.reason });
      case "substitute":
        return context.out ? t("cmd.substitute.out", { seat: c.seat, name: c.name, old: context.out })
          : t("cmd.substitute", { seat: c.seat, name: c.name });
      default:
        return t("cmd." + c.type, { name: n(c.seat), amount: c.amount, price: c.price, theme: c.theme });
    }
  }

  /* The question a command acted on («ЖЁЛТАЯ ТЕМА — 600»), when it was not a select
     (whose label names it already); "" when none. */
  function commandQuestion(c) {
    const context = c.context || {};
    if (c.type === "select" || !context.theme_name) return "";
    return t("question.for", { theme: context.theme_name, price: context.price });
  }

  function lastCommand() {
    return ((panel && panel.commands) || []).find((c) => !c.undone) || null;
  }

  function undo(command, buttonNode) {
    if (!command) return;
    // what will be undone, and on which question; never a journal line's number
    const what = commandLabel(command);
    const question = commandQuestion(command);
    const asked = question ? t("undo.confirm.question", { what, question }) : t("undo.confirm", { what });
    if (!window.confirm(asked)) return;
    send({ type: "undo", line: command.line }, buttonNode);
  }

  /* The alerts: a false start for 8 s, a late press for 30 s, of the game's clock
     (a reload does not bring them back); the others until taken down. Redrawn only
     when the list shown changes (a tap on ✕ is never lost to a redraw). */
  let alertsKey = "";
  function renderAlerts() {
    const box = $("alerts");
    const shown = ((panel && panel.alerts) || []).filter((a) => Svoyak.alertLive(a, firstSeen));
    const key = JSON.stringify([Svoyak.lang, snapshot.players, shown.map((a) => a.id)]);
    if (key === alertsKey) return;
    alertsKey = key;
    box.replaceChildren();
    for (const alert of shown) {
      box.append(el("div", { class: "alert " + alert.kind, dataset: { kind: alert.kind, seat: String(alert.seat) } },
        el("span", {}, "⚠ ", Svoyak.alertText(snapshot, alert)),
        el("button", {
          type: "button", class: "dismiss", "aria-label": t("alert.dismiss"),
          onclick: () => post("/api/alerts/dismiss", { id: alert.id }),
        }, "✕")));
    }
  }

  /* A game without real buttons (svoyak run --headless without --pins or --serial):
     the server serves /api/simulate (404 otherwise), and the host presses for the
     players here, one button each, with a «зажать» that raises the stuck-button
     alert (and «отпустить» that takes it down). Marked as a simulation; redrawn only
     when what it shows changes, so that a tap is never lost to a redraw. */
  let simulated = false;
  let simulateKey = "";

  async function askSimulated() {
    try {
      const response = await fetch("/api/simulate", { credentials: "same-origin" });
      simulated = response.ok;
    } catch (error) {
      simulated = false;
    }
    simulateKey = "";
    render();
  }

  async function simulate(path, body, node) {
    node.classList.add("busy");
    try {
      const response = await post(path, body);
      if (response && !response.ok && response.status !== 401) {
        toast(messageOf(await response.json().catch(() => ({}))));
      }
    } finally {
      node.classList.remove("busy");
    }
  }

  function renderSimulate() {
    const box = $("simulate");
    const show = simulated && loggedIn;
    const stuck = new Set(((panel && panel.alerts) || []).filter((a) => a.kind === "stuck").map((a) => a.seat));
    const key = JSON.stringify([show, Svoyak.lang, snapshot.players, [...stuck].sort()]);
    if (key === simulateKey) return;
    simulateKey = key;
    box.hidden = !show;
    box.replaceChildren();
    if (!show) return;
    box.append(el("p", { class: "sim-label" }, el("strong", {}, t("sim.title")),
      el("span", { class: "sep" }, " · "), t("sim.note")));
    const seats = el("div", { class: "sim-seats" });
    snapshot.players.forEach((player, i) => {
      const seat = i + 1;
      const held = stuck.has(seat);
      seats.append(el("div", { class: "sim-seat", dataset: { seat: String(seat) } },
        el("button", {
          type: "button", class: "sim-press", id: "sim-press-" + seat,
          "aria-label": t("sim.press.label", { name: player }),
          onclick: (e) => simulate("/api/simulate/press", { seat }, e.currentTarget),
        }, el("span", { class: "sim-name" }, player), el("span", { class: "sim-verb" }, t("sim.press"))),
        el("button", {
          type: "button", class: "sim-stuck" + (held ? " held" : ""), id: "sim-stuck-" + seat,
          "aria-pressed": held ? "true" : "false",
          "aria-label": t(held ? "sim.unstuck.label" : "sim.stuck.label", { name: player }),
          onclick: (e) => simulate("/api/simulate/stuck", { seat, stuck: !held }, e.currentTarget),
        }, t(held ? "sim.unstuck" : "sim.stuck"))));
    });
    box.append(seats);
  }

  function render() {
    if (!snapshot) return;
    document.title = t("title.host");
    // nothing of the game in the top bar before the PIN: not the round, not «Пауза»
    const title = loggedIn ? Svoyak.roundTitle(snapshot) : "";
    $("round-name").textContent = title;
    $("round-name").hidden = !title;
    // a finished question still on the screen is not «Выбор вопроса» yet
    $("stage-label").textContent = !loggedIn ? "" : held ? t("stage.held") : t("stage." + snapshot.stage);
    const paused = Boolean(panel && panel.paused);
    const pause = $("pause-btn");
    // a game that is over has nothing left to pause (a pause already given can still end)
    pause.hidden = !loggedIn || (snapshot.stage === "over" && !paused);
    pause.textContent = paused ? t("resume") : t("pause");
    $("paused-overlay").hidden = !(paused && loggedIn);
    Svoyak.renderScores($("scores"), snapshot, panel);
    renderAlerts();
    renderSimulate();
    const last = lastCommand();
    $("undo-btn").textContent = last ? t("undo.last", { what: commandLabel(last) }) : t("undo.none");
    $("undo-btn").disabled = !last;
    renderStage();
  }

  function onState(snap, pnl, decisions, kind) {
    snapshot = snap;
    panel = pnl;
    for (const d of decisions) {
      // a stake revealed as it is judged: said in the dock (never a pop-up over the
      // question's answer)
      if (d.type === "final_stake") lastRevealed = { seat: d.seat, stake: d.stake };
      if (d.type === "reading_resumed") resumedReading = true;
      if (d.type === "recognized" || d.type === "question" || d.type === "window_opened") resumedReading = false;
    }
    followQuestion(decisions, kind);
    render();
  }

  // -- dialogs ---------------------------------------------------------------------

  function openCorrection() {
    const select = $("correction-seat");
    select.replaceChildren(...snapshot.players.map((p, i) => el("option", { value: i + 1 }, `${i + 1}. ${p}`)));
    const steps = $("correction-steps");
    const unit = Math.min(...snapshot.prices) || 10;
    steps.replaceChildren(...[-5 * unit, -unit, unit, 5 * unit].map((d) => el("button", {
      type: "button", class: "step",
      onclick: () => { const input = $("correction-delta"); input.value = String(Number(input.value || 0) + d); },
    }, (d > 0 ? "+" : "") + d)));
    $("correction-delta").value = "0";
    $("correction-reason").value = "";
    $("correction-dialog").showModal();
  }

  async function applyCorrection(event) {
    event.preventDefault();
    const delta = Number($("correction-delta").value);
    const reason = $("correction-reason").value.trim();
    if (!delta || !reason) return;
    const result = await send({ type: "correction", seat: Number($("correction-seat").value), delta, reason },
      $("correction-apply"));
    if (result) $("correction-dialog").close();
  }

  function openSubstitute() {
    // no seat chosen until the host picks one: a name typed and applied in a hurry
    // must not replace whoever stands first in the list
    $("substitute-seat").replaceChildren(
      el("option", { value: "", disabled: true, selected: true }, t("substitute.choose")),
      ...snapshot.players.map((p, i) => el("option", { value: i + 1 }, `${i + 1}. ${p}`)));
    $("substitute-name").value = "";
    $("substitute-dialog").showModal();
  }

  async function applySubstitute(event) {
    event.preventDefault();
    const newName = $("substitute-name").value.trim();
    if (!newName || !$("substitute-seat").value) return;
    const result = await send({ type: "substitute", seat: Number($("substitute-seat").value), name: newName },
      $("substitute-apply"));
    if (result) $("substitute-dialog").close();
  }

  function openObjection() {
    $("objection-seats").replaceChildren(...snapshot.players.map((p, i) => el("button", {
      type: "button", class: "big",
      onclick: async (e) => {
        if (await send({ type: "objection", seat: i + 1 }, e.currentTarget)) $("objection-dialog").close();
      },
    }, p)));
    $("objection-dialog").showModal();
  }

  function openLog() {
    const list = $("log-list");
    list.replaceChildren(...((panel && panel.commands) || []).map((c) => el("li", { class: c.undone ? "undone" : "" },
      el("span", { class: "line" }, t("line", { n: c.line })), " ",
      el("span", { class: "what" }, commandLabel(c),
        commandQuestion(c) ? el("span", { class: "where" }, " · ", commandQuestion(c)) : null), " ",
      c.undone ? el("em", {}, t("undone"))
        : el("button", { type: "button", class: "step", onclick: (e) => { $("log-dialog").close(); undo(c, e.currentTarget); } }, t("undo")))));
    $("log-dialog").showModal();
  }

  // -- login -----------------------------------------------------------------------

  let pin = "";
  function showPin() {
    $("pin-display").textContent = "•".repeat(pin.length) || " ";
  }

  function showLogin() {
    loggedIn = false;
    $("login").hidden = false;
    $("game").hidden = true;
    pin = "";
    showPin();
    render();
  }

  function showGame() {
    loggedIn = true;
    $("login").hidden = true;
    $("game").hidden = false;
    render();
    askSimulated();
  }

  /* A PIN has PIN_DIGITS digits (buzzer/panel/auth.py): a shorter one is not sent
     (it could only be wrong, and would spend an attempt): the host is told how many. */
  const PIN_DIGITS = 6;
  function loginError(text) {
    $("login-error").textContent = text;
  }

  /* A key of the pad or the keyboard: the last refusal goes as the host types again. */
  function typePin(change) {
    loginError("");
    change();
    showPin();
  }

  async function login() {
    if (!pin) return;
    if (pin.length < PIN_DIGITS) {
      loginError(t("login.short", { n: PIN_DIGITS }));
      return;
    }
    const response = await post("/api/login", { pin });
    if (!response) return;
    if (response.ok) {
      loginError("");
      showGame();
      live.connect(); // reconnect: the server now knows this page is the host's
      return;
    }
    const body = await response.json().catch(() => ({}));
    loginError(response.status === 401 ? t("login.wrong") : messageOf(body));
    pin = "";
    showPin();
  }

  async function logout() {
    await post("/api/logout", {});
    showLogin();
    live.connect();
  }

  // -- start -----------------------------------------------------------------------

  function setLink(up) {
    // data-i18n follows the state: a language switch re-translates it as it is
    const link = $("link");
    link.className = "link " + (up ? "up" : "down");
    link.dataset.i18n = up ? "link.up" : "link.down";
    link.textContent = t(link.dataset.i18n);
  }

  /* The top and bottom bars are fixed: the page keeps room for them, whatever they
     wrap to (a phone, a long undo label, English), so that no control is ever left
     under them. */
  function measureBars() {
    const root = document.documentElement.style;
    const bar = $("top-bar");
    const fixed = getComputedStyle(bar).position !== "static";
    const shown = !$("game").hidden;
    root.setProperty("--bar-h", (fixed ? bar.offsetHeight : 0) + "px");
    root.setProperty("--tools-h", (shown ? $("tools").offsetHeight : 0) + "px");
    root.setProperty("--dock-h", (shown && !$("dock").hidden ? $("dock").offsetHeight : 0) + "px");
  }

  function watchBars() {
    for (const id of ["top-bar", "tools", "dock"]) new ResizeObserver(measureBars).observe($(id));
    new MutationObserver(measureBars).observe($("game"), { attributes: true, attributeFilter: ["hidden"] });
    measureBars();
  }

  function start() {
    document.documentElement.lang = Svoyak.lang;
    Svoyak.translate(document);
    $("lang-btn").textContent = t("lang.other");
    $("lang-btn").onclick = () => {
      Svoyak.setLang(Svoyak.lang === "ru" ? "en" : "ru");
      $("lang-btn").textContent = t("lang.other");
      $("viewer-link").href = "/view?lang=" + Svoyak.lang;
      lastStageKey = "";
      render();
    };
    $("viewer-link").href = "/view?lang=" + Svoyak.lang;
    const addDigit = (digit) => typePin(() => { if (pin.length < PIN_DIGITS) pin += digit; });
    for (const key of document.querySelectorAll("[data-digit]")) {
      key.onclick = () => addDigit(key.dataset.digit);
    }
    $("pin-clear").onclick = () => typePin(() => { pin = ""; });
    $("pin-go").onclick = login;
    document.addEventListener("keydown", (e) => {
      if ($("login").hidden) return;
      if (/^[0-9]$/.test(e.key)) addDigit(e.key);
      else if (e.key === "Backspace") typePin(() => { pin = pin.slice(0, -1); });
      else if (e.key === "Enter") login();
    });
    $("pause-btn").onclick = (e) => send({ type: panel && panel.paused ? "resume" : "pause" }, e.currentTarget);
    $("resume-btn").onclick = (e) => send({ type: "resume" }, e.currentTarget);
    $("undo-btn").onclick = (e) => undo(lastCommand(), e.currentTarget);
    $("correction-btn").onclick = openCorrection;
    $("correction-form").onsubmit = applyCorrection;
    $("correction-cancel").onclick = () => $("correction-dialog").close();
    $("substitute-form").onsubmit = applySubstitute;
    $("substitute-cancel").onclick = () => $("substitute-dialog").close();
    $("objection-btn").onclick = openObjection;
    $("objection-cancel").onclick = () => $("objection-dialog").close();
    $("log-btn").onclick = openLog;
    $("log-close").onclick = () => $("log-dialog").close();
    $("logout-btn").onclick = logout;
    $("toast").onclick = hideToast;
    if (popovers) $("toast").hidden = false; // a closed popover is not drawn anyway
    watchBars();
    setInterval(() => {
      tickCountdowns();
      if (!snapshot) return;
      Svoyak.renderScores($("scores"), snapshot, panel);
      renderAlerts(); // a false start goes after its 8 s
    }, 200);
    live = new Svoyak.Live(onState, setLink);
    fetch("/api/session", { credentials: "same-origin" })
      .then((r) => r.json())
      .then((session) => { if (session.host) showGame(); else showLogin(); })
      .catch(() => showLogin())
      .finally(() => live.connect());
  }

  start();
})();
