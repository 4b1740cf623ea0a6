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
  const typed = {}; // values typed into the stage's inputs, kept across redraws
  const inFlight = new Set();
  const firstSeen = new Map(); // alert id → when this page first showed it

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

  /* The banner of a refusal (or a revealed stake). A popover: it is shown in the
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
    toastTimer = setTimeout(hideToast, kind === "info" ? 4000 : 6000);
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
      node.textContent = t("seconds", { s: Svoyak.seconds(Number(node.dataset.deadline)) });
    }
  }

  /* A number input whose value survives redraws. */
  function amountInput(key, value, min, step, max) {
    // the stepper's buttons move by the step, or by the round's smallest price when
    // the step is tiny (a final stake in steps of 1)
    const nudgeBy = Math.max(step, Math.min(...(snapshot.prices || [step])));
    if (typed[key] === undefined || typed[key] < min) typed[key] = value;
    const input = el("input", {
      type: "number", inputmode: "numeric", class: "amount", min, step, max,
      value: typed[key], dataset: { key },
      oninput: (e) => { typed[key] = Number(e.target.value); },
    });
    const nudged = [];
    const nudge = (d) => el("button", {
      type: "button", class: "step",
      onclick: () => {
        const next = Math.max(min, Number(input.value || 0) + d);
        input.value = String(max !== undefined ? Math.min(max, next) : next);
        typed[key] = Number(input.value);
        for (const f of nudged) f();
      },
    }, d > 0 ? "+" + d : String(d));
    return {
      input,
      box: el("span", { class: "stepper" }, nudge(-nudgeBy), input, nudge(nudgeBy)),
      onnudge: (f) => nudged.push(f),
    };
  }

  // -- the stage area ------------------------------------------------------------

  /* What the host reads comes from the server (panel.question, host-only): the
     question, the host's spoken lines, the answers, the comment, a cat's own theme
     and value, the final's theme names. The page shows it; it decides nothing. */
  const hostView = () => (panel && panel.question) || null;

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

  /* A cat in the bag's own theme and value, as its package states them (the value
     played is the engine's: the rule system may set it otherwise). */
  function catInfo(box) {
    const q = hostView();
    const cat = q && q.cat;
    if (!cat || snapshot.special !== "cat") return;
    const parts = [];
    if (cat.theme) parts.push(el("span", { class: "cat-theme" }, t("cat.theme", { theme: cat.theme })));
    if (cat.price !== null && cat.price !== undefined) {
      parts.push(el("span", { class: "cat-value" }, t("cat.value", { price: cat.price })));
    } else if (cat.range) {
      const [min, max, step] = cat.range;
      parts.push(el("span", { class: "cat-value" },
        t(step ? "cat.range.step" : "cat.range", { min, max, step })));
    }
    if (!parts.length) return;
    if (cat.announce === "before" && snapshot.stage === "cat_give") {
      parts.push(el("span", { class: "note" }, t("cat.before")));
    }
    box.append(el("p", { class: "cat-info", id: "cat-info" }, parts));
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

  /* The question card: what the host reads out, then the right answer and the comment. */
  function questionBlock(box) {
    const q = hostView();
    if (!q || !(q.text || q.say || (q.answer || []).length)) return;
    box.append(el("div", { class: "question-box", id: "question-text" },
      sayLine(q), textLine(q), answerLine(q), commentLine(q)));
  }

  function renderBoard(box) {
    const s = snapshot;
    const extras = (panel && panel.extras) || {};
    // A finished round: the next select opens the next round (the engine moves on
    // then); the server says which board that is and who will choose first.
    const next = extras.next_round;
    const themes = next ? next.themes : s.themes;
    const prices = next ? next.prices : s.prices;
    const chooser = next ? next.chooser : s.chooser;
    if (next) box.append(el("h2", { class: "next-round" }, t("next.round", { name: next.name })));
    if (s.shootout) {
      box.append(el("p", { class: "note" }, t("shootout", {
        n: s.shootout.number, names: s.shootout.seats.map(name).join(", "),
      })));
    }
    if (chooser && !s.shootout) {
      box.append(el("h2", { class: "chooser-line", id: "chooser" }, t("chooser", { name: name(chooser) })));
    }
    if (!extras.has_chooser || s.shootout) {
      box.append(el("p", { class: "note" }, t("in.order")));
      box.append(el("div", { class: "actions" },
        button("next-question", t("next.question"), { type: "select" }, "go")));
    }
    const played = new Set((next ? next.holes : s.played).map(([theme, price]) => theme + ":" + price));
    // a phone shows at most five prices a row (a theme's name above them)
    const grid = el("div", {
      class: "board", style: `--prices: ${prices.length}; --phone-cols: ${Math.min(prices.length, 5)}`,
    });
    themes.forEach((theme, i) => {
      grid.append(el("div", { class: "theme" }, theme));
      for (const price of prices) {
        const done = played.has(i + 1 + ":" + price);
        grid.append(el("button", {
          type: "button", class: "cell", disabled: done,
          dataset: { theme: String(i + 1), price: String(price) },
          "aria-label": `${theme} — ${price}`,
          onclick: (e) => send({ type: "select", theme: i + 1, price }, e.currentTarget),
        }, done ? "" : String(price)));
      }
    });
    box.append(grid);
  }

  function answeringBlock(box, deadline, label) {
    const s = snapshot;
    box.append(el("div", { class: "answering-box" },
      el("div", { class: "label" }, label || t("answering")),
      el("div", { class: "who", id: "answering-name", dataset: { seat: String(s.answering) } },
        name(s.answering)),
      deadline ? el("div", { class: "countdown-line" }, t("answer.time"), " ", countdown(deadline)) : null,
    ));
    const margins = Object.entries(s.margins_us || {});
    if (margins.length) {
      box.append(el("div", { class: "margins" }, t("margins") + ": ",
        margins.map(([seat, us]) => el("span", { class: "margin-item" },
          name(Number(seat)), " ", t("margin.ms", { ms: (us / 1000).toFixed(1) })))));
    }
  }

  function verdicts(box, command, seat) {
    const extra = seat === undefined ? {} : { seat };
    box.append(el("div", { class: "actions verdicts" },
      button("judge-correct", t("correct"), { ...command, verdict: "correct", ...extra }, "correct"),
      button("judge-wrong", t("wrong"), { ...command, verdict: "wrong", ...extra }, "wrong")));
  }

  function renderQuestion(box) {
    const s = snapshot;
    stageHead(box);
    const answering = s.phase === "answering";
    if (answering) {
      // The host has read the question: who answers, the right answer, the verdict.
      answeringBlock(box, s.answer_deadline);
      const actions = el("div", { class: "actions verdicts" },
        button("judge-correct", t("correct"), { type: "judge", verdict: "correct" }, "correct"),
        button("judge-wrong", t("wrong"), { type: "judge", verdict: "wrong" }, "wrong"));
      if (s.answer_deadline === null) {
        // the reading goes on while the early presser waits (TV-94): end it first
        actions.append(button("reading-end", t("reading.end"), { type: "reading_end" }, "signal"));
      }
      // the answer leads (next to the verdict); the text the host has read follows
      const q = hostView();
      if (q && (answerLine(q) || q.comment)) {
        box.append(el("div", { class: "question-box answer-first", id: "question-answer" },
          answerLine(q), commentLine(q)));
      }
      box.append(actions);
      if (q && (q.text || q.say)) {
        box.append(el("div", { class: "question-box read", id: "question-text" }, sayLine(q), textLine(q)));
      }
      return;
    }
    questionBlock(box);
    let phase = t("phase." + s.phase);
    if (s.phase === "reading" && resumedReading) phase = t("reading.resume");
    box.append(el("p", { class: "phase", id: "phase", dataset: { phase: s.phase } }, phase));
    if (s.phase === "open" && s.closes_at) {
      box.append(el("div", { class: "window-box" }, t("window"), " ", countdown(s.closes_at)));
    }
    const actions = el("div", { class: "actions" });
    if (s.phase === "selected") {
      actions.append(button("reading-start", t("reading.start"), { type: "reading_start" }, "go"));
      actions.append(button("reading-end", t("reading.end"), { type: "reading_end" }, "signal"));
    } else if (s.phase === "reading") {
      actions.append(button("reading-end", t("reading.end"), { type: "reading_end" }, "signal"));
    }
    box.append(actions);
    box.append(el("div", { class: "actions minor" },
      button("timeout", t("timeout"), { type: "timeout" }, "secondary")));
  }

  function renderBidding(box) {
    const s = snapshot;
    const b = s.bidding;
    const extras = panel.extras || {};
    stageHead(box);
    box.append(el("p", { class: "bid-current", id: "bid-current" },
      b.bid !== null ? t("bid.current", { amount: b.bid, name: name(b.leader) }) : t("bid.none")));
    const list = el("div", { class: "bidders" });
    for (const seat of b.order) {
      const passed = b.passed.includes(seat);
      const turn = b.turn === seat && !passed;
      const score = s.scores[String(seat)];
      const status = passed ? t("bid.passed") : b.leader === seat ? t("bid.leader") : turn ? t("bid.turn") : "";
      const row = el("div", {
        class: "bidder" + (turn ? " turn" : "") + (passed ? " passed" : ""), dataset: { seat: String(seat) },
      }, el("span", { class: "name" }, name(seat)), el("span", { class: "score" }, String(score)),
      el("span", { class: "status" }, status));
      if (turn) {
        const controls = el("div", { class: "bid-controls" });
        if (b.bid === null && extras.bid_forced) {
          for (const amount of extras.bid_forced) {
            controls.append(button(null, t("bid.forced", { amount }), { type: "bid", seat, amount }, "go"));
          }
        } else {
          const step = extras.bid_step || 1;
          const low = extras.bid_min ?? step;
          const amount = amountInput("bid-" + seat, low, low, step, score > 0 ? score : undefined);
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
    box.append(choices);
    questionBlock(box);
  }

  function renderCatPrice(box) {
    const s = snapshot;
    const extras = panel.extras || {};
    stageHead(box);
    box.append(el("h2", {}, t("cat.price", { name: name(s.answering) })));
    const choices = el("div", { class: "choices" });
    if (extras.cat_options) {
      for (const price of extras.cat_options) {
        choices.append(button("cat-price-" + price, String(price), { type: "cat_price", price }, "go"));
      }
    } else {
      // a value the host enters (the editors' fixed one): the package's, if it states one
      const q = hostView();
      const stated = q && q.cat && q.cat.price;
      const price = amountInput("cat-price", stated || (s.cell ? s.cell[1] : 0), 0, 1);
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
    // the host reads the question to the one who answers it, then judges
    questionBlock(box);
    answeringBlock(box, s.special_deadline, t("special.for", { value: s.value }));
    verdicts(box, { type: "judge" });
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

  function finalReading(box) {
    const extras = panel.extras || {};
    box.append(el("div", { class: "actions" },
      button("final-reading-start", t("final.reading.start"), { type: "reading_start" }, "secondary"),
      button("final-reading-end", t("final.reading.end"), { type: "reading_end" }, "signal")));
    if (extras.final_timer_until) {
      box.append(el("div", { class: "window-box" }, t("final.timer"), " ", countdown(extras.final_timer_until)));
    }
  }

  function renderFinalRemove(box) {
    const f = snapshot.final;
    const turn = (panel.extras || {}).final_turn;
    box.append(el("h2", {}, t("final.remove", { name: name(turn) })));
    const choices = el("div", { class: "choices final-themes" });
    for (const theme of f.themes_left) {
      choices.append(button("final-theme-" + theme, finalName(theme),
        { type: "final_remove", theme, seat: turn ?? null }, "wrong"));
    }
    box.append(choices);
  }

  /* A finalist's stake row. The limit (the score) is shown, and an amount above it
     (or below the minimum) is refused here, at entry: nothing is sent (the server
     refuses it too). */
  function stakeRow(seat, extras) {
    const s = snapshot;
    const score = s.scores[String(seat)];
    const staked = snapshot.final.staked.includes(seat);
    const row = el("div", { class: "bidder" + (staked ? " passed" : " turn"), dataset: { seat: String(seat) } },
      el("span", { class: "name" }, name(seat)), el("span", { class: "score" }, String(score)),
      el("span", { class: "status" }, staked ? "✓ " + t("final.staked") : ""));
    const step = extras.stake_step || 1;
    const low = extras.stake_min || 1;
    const amount = amountInput("stake-" + seat, low, low, step, score);
    const error = el("p", { class: "error stake-error", id: "stake-error-" + seat, role: "alert", hidden: true });
    const accept = el("button", {
      type: "button", class: "big go", id: "stake-" + seat,
      onclick: (e) => {
        if (check()) send({ type: "final_stake", seat, amount: Number(amount.input.value) }, e.currentTarget);
      },
    }, t("final.stake"));
    function check() {
      const value = Number(amount.input.value);
      let problem = "";
      if (!Number.isFinite(value) || amount.input.value === "") problem = t("final.stake.none");
      else if (value > score) problem = t("final.stake.over", { score });
      else if (value < low) problem = t("final.stake.under", { min: low });
      error.textContent = problem;
      error.hidden = !problem;
      amount.input.classList.toggle("invalid", Boolean(problem));
      amount.input.setAttribute("aria-invalid", problem ? "true" : "false");
      accept.classList.toggle("refused", Boolean(problem));
      return !problem;
    }
    amount.input.addEventListener("input", check);
    amount.onnudge(check);
    row.append(el("div", { class: "bid-controls" },
      amount.box,
      el("span", { class: "limit", id: "stake-limit-" + seat }, t("final.stake.limit", { score })),
      accept,
      button(null, t("final.nostake"), { type: "final_stake", seat, amount: null }, "secondary")),
    error);
    check(); // a value typed before a redraw is checked again
    return row;
  }

  function renderFinalStakes(box) {
    const extras = panel.extras || {};
    finalHead(box);
    box.append(el("p", { class: "note" }, t("final.question.later")));
    const list = el("div", { class: "bidders" });
    for (const seat of snapshot.final.seats) list.append(stakeRow(seat, extras));
    box.append(list);
  }

  function renderFinalJudging(box) {
    const s = snapshot;
    const f = s.final;
    finalHead(box);
    // every stake is in: the host reads the question now, then judges the answers
    questionBlock(box);
    finalReading(box);
    const next = f.judge_order[0];
    box.append(el("div", { class: "answering-box" },
      el("div", { class: "label" }, t("final.next", { name: "" })),
      el("div", { class: "who", id: "answering-name", dataset: { seat: String(next) } }, name(next)),
      el("div", { class: "note" }, t("final.hidden"))));
    verdicts(box, { type: "final_judge" }, next);
    box.append(el("p", { class: "note" }, t("final.order", { names: f.judge_order.map(name).join(" → ") })));
  }

  function renderOver(box) {
    const s = snapshot;
    box.append(el("h2", { class: "winner-line", id: "winner" },
      s.winner ? t("winner", { name: name(s.winner) }) : t("no.winner")));
  }

  /* A question closed with nobody right (the window closed with no press, every
     answer wrong, «Снять вопрос»): the host still has to say the right answer. Its
     card stays until the host taps «К табло» or the game moves on (the next select). */
  function renderHeld(box) {
    const h = held;
    box.append(el("h2", { class: "question-title" },
      h.special ? el("span", { class: "special" }, t("special." + h.special)) : null,
      t("question.for", { theme: h.theme, price: h.price })));
    box.append(el("p", { class: "phase" }, t("held.note")));
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
      if (q && !q.final_themes) {
        playing = { cell: s.cell.join(":"), theme: s.themes[theme - 1] ?? theme, price, special: s.special, q };
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

  function renderStage() {
    const box = $("stage");
    const key = JSON.stringify([Svoyak.lang, { ...snapshot, now: 0, version: 0, locked_until: 0 },
      panel && panel.extras, panel && panel.question, resumedReading, held && held.cell]);
    if (key === lastStageKey) return;
    lastStageKey = key;
    box.replaceChildren();
    box.dataset.stage = snapshot.stage;
    if (held) {
      box.dataset.held = "1";
      renderHeld(box);
      return;
    }
    delete box.dataset.held;
    (STAGES[snapshot.stage] || renderBoard)(box);
  }

  // -- the frame around it -------------------------------------------------------

  function commandLabel(c) {
    const n = (seat) => name(seat);
    switch (c.type) {
      case "select":
        return c.theme ? t("cmd.select", { theme: snapshot.themes[c.theme - 1] ?? c.theme, price: c.price })
          : t("cmd.select.next");
      case "judge": return t("cmd.judge." + c.verdict);
      case "final_judge": return t("cmd.final_judge." + c.verdict, { name: n(c.seat) });
      case "final_remove": return t("cmd.final_remove", { theme: finalName(c.theme) });
      case "correction":
        return t("cmd.correction", { name: n(c.seat), delta: (c.delta > 0 ? "+" : "") + c.delta, reason: c.reason });
      default:
        return t("cmd." + c.type, { name: n(c.seat), amount: c.amount, price: c.price, theme: c.theme });
    }
  }

  function lastCommand() {
    return ((panel && panel.commands) || []).find((c) => !c.undone) || null;
  }

  function undo(command, buttonNode) {
    if (!command) return;
    const what = commandLabel(command);
    if (!window.confirm(t("undo.confirm", { what, line: command.line }))) return;
    send({ type: "undo", line: command.line }, buttonNode);
  }

  function renderAlerts() {
    const box = $("alerts");
    box.replaceChildren();
    const now = performance.now();
    for (const alert of (panel && panel.alerts) || []) {
      if (!firstSeen.has(alert.id)) firstSeen.set(alert.id, now);
      if (alert.kind === "false_start" && now - firstSeen.get(alert.id) > 8000) continue;
      box.append(el("div", { class: "alert " + alert.kind, dataset: { kind: alert.kind, seat: String(alert.seat) } },
        el("span", {}, "⚠ ", Svoyak.alertText(snapshot, alert)),
        el("button", {
          type: "button", class: "dismiss", "aria-label": t("alert.dismiss"),
          onclick: () => post("/api/alerts/dismiss", { id: alert.id }),
        }, "✕")));
    }
  }

  function render() {
    if (!snapshot) return;
    document.title = t("title.host");
    $("round-name").textContent = snapshot.shootout ? t("shootout", {
      n: snapshot.shootout.number, names: snapshot.shootout.seats.map(name).join(", "),
    }) : snapshot.stage.startsWith("final_") ? t("final") : snapshot.round_name;
    $("stage-label").textContent = t("stage." + snapshot.stage);
    const paused = Boolean(panel && panel.paused);
    const pause = $("pause-btn");
    pause.hidden = false;
    pause.textContent = paused ? t("resume") : t("pause");
    $("paused-overlay").hidden = !paused;
    Svoyak.renderScores($("scores"), snapshot, panel);
    renderAlerts();
    const last = lastCommand();
    $("undo-btn").textContent = last ? t("undo.last", { what: commandLabel(last) }) : t("undo.none");
    $("undo-btn").disabled = !last;
    renderStage();
  }

  function onState(snap, pnl, decisions, kind) {
    snapshot = snap;
    panel = pnl;
    for (const d of decisions) {
      if (d.type === "final_stake") {
        toast(t("final.stake.revealed", { name: name(d.seat), stake: d.stake }), "info");
      }
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
      el("span", { class: "line" }, t("line", { n: c.line })), " ", commandLabel(c), " ",
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
    $("login").hidden = false;
    $("game").hidden = true;
    pin = "";
    showPin();
  }

  function showGame() {
    $("login").hidden = true;
    $("game").hidden = false;
  }

  async function login() {
    if (!pin) return;
    const response = await post("/api/login", { pin });
    if (!response) return;
    if (response.ok) {
      $("login-error").textContent = "";
      showGame();
      live.connect(); // reconnect: the server now knows this page is the host's
      return;
    }
    const body = await response.json().catch(() => ({}));
    $("login-error").textContent = response.status === 401 ? t("login.wrong") : messageOf(body);
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
  function watchBars() {
    const root = document.documentElement.style;
    const measure = () => {
      const bar = $("top-bar");
      const fixed = getComputedStyle(bar).position !== "static";
      root.setProperty("--bar-h", (fixed ? bar.offsetHeight : 0) + "px");
      root.setProperty("--tools-h", ($("game").hidden ? 0 : $("tools").offsetHeight) + "px");
    };
    new ResizeObserver(measure).observe($("top-bar"));
    new ResizeObserver(measure).observe($("tools"));
    new MutationObserver(measure).observe($("game"), { attributes: true, attributeFilter: ["hidden"] });
    measure();
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
    for (const key of document.querySelectorAll("[data-digit]")) {
      key.onclick = () => { if (pin.length < 6) pin += key.dataset.digit; showPin(); };
    }
    $("pin-clear").onclick = () => { pin = ""; showPin(); };
    $("pin-go").onclick = login;
    document.addEventListener("keydown", (e) => {
      if ($("login").hidden) return;
      if (/^[0-9]$/.test(e.key) && pin.length < 6) { pin += e.key; showPin(); }
      else if (e.key === "Backspace") { pin = pin.slice(0, -1); showPin(); }
      else if (e.key === "Enter") login();
    });
    $("pause-btn").onclick = (e) => send({ type: panel && panel.paused ? "resume" : "pause" }, e.currentTarget);
    $("resume-btn").onclick = (e) => send({ type: "resume" }, e.currentTarget);
    $("undo-btn").onclick = (e) => undo(lastCommand(), e.currentTarget);
    $("correction-btn").onclick = openCorrection;
    $("correction-form").onsubmit = applyCorrection;
    $("correction-cancel").onclick = () => $("correction-dialog").close();
    $("objection-btn").onclick = openObjection;
    $("objection-cancel").onclick = () => $("objection-dialog").close();
    $("log-btn").onclick = openLog;
    $("log-close").onclick = () => $("log-dialog").close();
    $("logout-btn").onclick = logout;
    $("toast").onclick = hideToast;
    if (popovers) $("toast").hidden = false; // a closed popover is not drawn anyway
    watchBars();
    setInterval(() => { tickCountdowns(); if (snapshot) Svoyak.renderScores($("scores"), snapshot, panel); }, 200);
    live = new Svoyak.Live(onState, setLink);
    fetch("/api/session", { credentials: "same-origin" })
      .then((r) => r.json())
      .then((session) => { if (session.host) showGame(); else showLogin(); })
      .catch(() => showLogin())
      .finally(() => live.connect());
  }

  start();
})();
