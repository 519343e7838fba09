/* Draws a position (the JSON of experiments/apps/serve/frames.py) as a card table. */
"use strict";

const SUITS = {S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663"};

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
}

/* "8S" -> "8♠", "any 8" stays, "JK" -> "joker" */
function prettyCard(code) {
  if (code === "JK") return "joker";
  if (code.startsWith("any ")) return code;
  return code.slice(0, -1) + SUITS[code.slice(-1)];
}

function cardEl(code, standsFor) {
  const joker = code === "JK";
  const suit = code.slice(-1);
  const red = !joker && (suit === "H" || suit === "D");
  const d = el("div", "card" + (red ? " red" : "") + (joker ? " joker" : ""));
  d.dataset.code = code;
  d.appendChild(el("span", "rank", joker ? "\u2605" : code.slice(0, -1)));
  d.appendChild(el("span", "suit", joker ? "JOKER" : SUITS[suit]));
  if (standsFor) {
    d.dataset.standsFor = standsFor;
    // a trio's joker stands for a rank ("any 8"): the badge shows the rank alone
    d.appendChild(el("span", "for", "=" + (standsFor.startsWith("any ") ? standsFor.slice(4) : prettyCard(standsFor))));
    d.title = "joker standing for " + prettyCard(standsFor);
  } else {
    d.title = prettyCard(code);
  }
  return d;
}

function backEl() { return el("div", "card back"); }

/* onMeld: the click handler, or null when the meld takes no click now */
function meldEl(meld, onMeld, marks) {
  const m = el("div", "meld " + meld.kind);
  m.dataset.ref = meld.ref;
  m.dataset.text = meld.text;
  m.appendChild(el("span", "ref", meld.ref + " " + meld.kind));
  for (const c of meld.cards) m.appendChild(cardEl(c.card, c.stands_for));
  if (marks && marks.last && marks.last.has(meld.ref)) m.classList.add("last");
  if (onMeld) {
    m.classList.add("clickable", "target");
    m.addEventListener("click", () => onMeld(meld));
  }
  return m;
}

function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }

/* opts.cardEnabled(code): whether a card of my hand takes a click now (all do when absent);
   opts.meldTargets: the refs of the melds that take a click now (all do when absent) */
function seatEl(frame, s, opts) {
  const seat = frame.seats[s];
  const last = frame.last;
  const box = el("div", "seat" + (frame.current_player === s && !frame.game_over ? " to-act" : "") +
    (last && last.seat === s ? " last-mover" : ""));
  box.id = "seat-" + s;
  const head = el("div", "seathead");
  head.appendChild(el("b", null, "seat " + s + " \u00b7 " + seat.name));
  head.appendChild(el("span", "muted", " " + plural(seat.hand_size, "card") + " \u00b7 total " + seat.total +
    (seat.opened ? " \u00b7 opened" : " \u00b7 not opened") + (frame.dealer === s ? " \u00b7 dealer" : "")));
  box.appendChild(head);
  const melds = el("div", "melds");
  const marks = {last: new Set(last ? last.refs : [])};
  for (const meld of seat.melds) {
    const takes = opts.onMeld && (!opts.meldTargets || opts.meldTargets.has(meld.ref));
    melds.appendChild(meldEl(meld, takes ? opts.onMeld : null, marks));
  }
  box.appendChild(melds);
  const hand = el("div", "hand");
  hand.id = "hand-" + s;
  if (seat.hand) {
    seat.hand.forEach((code, i) => {
      const c = cardEl(code);
      c.dataset.index = i;
      if (opts.selected && opts.selected.has(i)) c.classList.add("selected");
      if (opts.grouped && opts.grouped.has(i)) c.classList.add("grouped");
      if (opts.onCard && s === opts.mySeat) {
        if (!opts.cardEnabled || opts.cardEnabled(code, i)) {
          c.classList.add("clickable");
          c.addEventListener("click", () => opts.onCard(i, code));
        } else {
          c.classList.add("inert");
        }
      }
      hand.appendChild(c);
    });
  } else {
    for (let i = 0; i < seat.hand_size; i++) hand.appendChild(backEl());
  }
  box.appendChild(hand);
  if (seat.known.length) {
    box.appendChild(el("div", "muted small", "surely holds (taken from the pile): " + seat.known.map(prettyCard).join(" ")));
  }
  return box;
}

function pilesEl(frame, opts) {
  const piles = el("div", "piles");
  const stock = el("div", "pile");
  stock.id = "stock";
  stock.dataset.size = frame.stock_size;
  stock.appendChild(frame.stock_size ? backEl() : el("div", "card empty"));
  const last = frame.last;
  if (last && last.kind === "draw_stock") stock.classList.add("last");
  stock.appendChild(el("div", "count", "stock " + frame.stock_size));
  if (opts.onStock) { stock.classList.add("clickable"); stock.addEventListener("click", opts.onStock); }
  const disc = el("div", "pile");
  disc.id = "discard";
  const pile = frame.discard_pile;
  disc.dataset.top = pile.length ? pile[pile.length - 1] : "";
  disc.appendChild(pile.length ? cardEl(pile[pile.length - 1]) : el("div", "card empty"));
  if (last && last.kind === "discard") disc.classList.add("last");
  disc.appendChild(el("div", "count", "discard pile " + pile.length));
  if (opts.onDiscard) { disc.classList.add("clickable"); disc.addEventListener("click", opts.onDiscard); }
  piles.appendChild(stock);
  piles.appendChild(disc);
  const under = el("div", "pilelist small");
  under.appendChild(el("div", "muted", "pile, top first:"));
  under.appendChild(el("div", null, pile.slice().reverse().slice(0, 24).map(prettyCard).join(" ")));
  piles.appendChild(under);
  return piles;
}

function scoresEl(frame) {
  const t = el("table", "list scores");
  t.id = "scores";
  const head = el("tr");
  head.appendChild(el("th", null, "deal"));
  frame.seats.forEach((s) => head.appendChild(el("th", null, "seat " + s.seat)));
  t.appendChild(head);
  for (const r of frame.deal_results) {
    const tr = el("tr");
    tr.appendChild(el("td", null, r.deal + (r.cancelled ? " (cancelled)" : "")));
    r.scores.forEach((v, s) => tr.appendChild(el("td", r.closer === s ? "closer" : null, String(v))));
    t.appendChild(tr);
  }
  const tot = el("tr", "totals");
  tot.appendChild(el("th", null, "totals"));
  frame.totals.forEach((v) => tot.appendChild(el("th", null, String(v))));
  t.appendChild(tot);
  return t;
}

function historyEl(frame) {
  // the numbers are spans, not list markers: a marker of 100 or more spills out of the box
  const h = el("ol", "history small");
  h.id = "history";
  frame.history.forEach((e, k) => {
    const li = el("li", k === frame.history.length - 1 && frame.last ? "last" : null);
    li.appendChild(el("span", "num", String(frame.history_start + k)));  // the deal's event numbers
    li.appendChild(el("span", null, "seat " + e.seat + ": " + e.text));
    h.appendChild(li);
  });
  return h;
}

/* opts: {mySeat, selected: Set, grouped: Set, onCard(i, code), cardEnabled(code, i), onMeld(meld), meldTargets: Set,
          onStock(), onDiscard()} */
function renderTable(root, frame, opts) {
  opts = opts || {};
  root.innerHTML = "";
  const head = el("div", "tablehead");
  head.id = "tablehead";
  head.textContent = frame.game_over ? "game over \u00b7 the final table, every hand as the last deal ended" :
    frame.contract + " \u00b7 turn " + frame.turn + " \u00b7 seat " + frame.current_player + " to " + frame.phase +
    (frame.viewer === null ? " \u00b7 all hands" : " \u00b7 seat " + frame.viewer + "'s view");
  root.appendChild(head);
  const felt = el("div", "felt");
  const seats = el("div", "seats");
  frame.seats.forEach((_, s) => seats.appendChild(seatEl(frame, s, opts)));
  felt.appendChild(seats);
  const side = el("div", "side");
  side.appendChild(pilesEl(frame, opts));
  side.appendChild(scoresEl(frame));
  side.appendChild(historyEl(frame));
  felt.appendChild(side);
  root.appendChild(felt);
}

/* What an agent weighed at one decision (carioca_env/explanations.py): its ranked
   candidates, each with a bar, its score and note, the move played marked.  Bars are a
   probability's share, or the score's place between the worst and the best candidate
   (which way is better comes with the explanation). */
function explanationEl(exp, title) {
  const box = el("div", "explanation");
  box.dataset.agent = exp.agent;
  box.dataset.move = exp.move;
  if (title) box.appendChild(el("h3", null, title));
  box.appendChild(el("div", "muted small", exp.agent + " \u00b7 " + exp.meaning + " (" + exp.better + " is better)"));
  const scores = exp.candidates.map((c) => c.score);
  const lo = Math.min(...scores), hi = Math.max(...scores);
  const share = exp.kind === "probability" || exp.kind === "uniform";
  const t = el("table", "list cands");
  exp.candidates.forEach((c, i) => {
    const played = i === exp.chosen;
    const tr = el("tr", played ? "played" : null);
    tr.dataset.move = c.move;
    tr.appendChild(el("td", "rank", String(i + 1)));
    tr.appendChild(el("td", "cmove", c.move + (played ? "  \u2190 played" : "")));
    let w = share ? c.score : hi === lo ? 1 : (exp.better === "higher" ? (c.score - lo) / (hi - lo) : (hi - c.score) / (hi - lo));
    const bar = el("td", "barcell");
    const b = el("span", "bar");
    b.style.width = Math.max(2, Math.round(100 * Math.max(0, Math.min(1, w)))) + "%";
    bar.appendChild(b);
    tr.appendChild(bar);
    let score = share ? (100 * c.score).toFixed(1) + "%" : String(c.score);
    if (c.se !== undefined) score += " \u00b1 " + c.se + " (n=" + c.n + ")";
    tr.appendChild(el("td", "score", score));
    tr.appendChild(el("td", "note small", c.note || ""));
    t.appendChild(tr);
  });
  box.appendChild(t);
  if (exp.chosen === null) box.appendChild(el("div", "small", "played: " + exp.move));
  if (exp.omitted) box.appendChild(el("div", "muted small", exp.omitted + " more weighed, not listed"));
  if (exp.note) box.appendChild(el("div", "small", exp.note));
  return box;
}
