/* The play page: the person's seat against the bots, through /api/games/ID.

   Only what is legal now takes a click: the page reads the legal moves it receives and
   enables the draw sources, the cards that can be discarded, laid off or opened with,
   the melds the selected card lays off on, and the group and open buttons only for
   groups that make a legal opening.  The last move is highlighted.  When a deal ends
   its summary (every hand, the scores) is shown before the next deal; when the game
   ends, the final table (every hand, the standings) replaces the controls.
   Every move carries the version (moves played) the page shows. */
"use strict";

(function () {
  const box = document.getElementById("play");
  const gameId = box.dataset.game;
  const api = "/api/games/" + encodeURIComponent(gameId);
  const $ = (id) => document.getElementById(id);
  const st = {game: null, legal: null, selected: new Set(), groups: [], sending: false, seen: null};
  const SEEN_KEY = "carioca-deals-seen:" + gameId;

  /* a multiset of cards as one string: the order of the clicks does not matter */
  const key = (codes) => codes.slice().sort().join(" ");

  function hand() { return st.game.frame.seats[st.game.human_seat].hand || []; }
  function grouped() { return new Set(st.groups.flat()); }
  function who(seat) { return seat === st.game.human_seat ? "you" : "seat " + seat + " (" + st.game.names[seat] + ")"; }

  /* the legal moves sorted by what they take a click on */
  function legalInfo(legal) {
    const info = {drawStock: false, drawDiscard: false, discard: new Set(), lay: new Map(), opens: [], openCards: new Set()};
    for (const m of legal) {
      if (m.kind === "draw_stock") info.drawStock = true;
      else if (m.kind === "draw_discard") info.drawDiscard = true;
      else if (m.kind === "discard") info.discard.add(m.card);
      else if (m.kind === "lay_off" || m.kind === "swap") {
        if (!info.lay.has(m.card)) info.lay.set(m.card, []);
        info.lay.get(m.card).push(m);
      } else if (m.kind === "open") {
        info.opens.push({move: m, melds: m.melds.map((t) => key(t.split(" ")))});
        m.cards.forEach((c) => info.openCards.add(c));
      }
    }
    return info;
  }

  function selectedCodes() { const h = hand(); return [...st.selected].sort((a, b) => a - b).map((i) => h[i]); }
  function groupCodes() { const h = hand(); return st.groups.map((g) => g.map((i) => h[i])); }
  /* the groups, with the selected cards as one more */
  function pendingGroups() { const gs = groupCodes(); const sel = selectedCodes(); if (sel.length) gs.push(sel); return gs; }

  /* the legal openings that hold every group as a different one of their melds */
  function openingsWith(groups) {
    return st.legal.opens.filter((o) => {
      const left = o.melds.slice();
      return groups.every((g) => {
        const i = left.indexOf(key(g));
        if (i < 0) return false;
        left.splice(i, 1);
        return true;
      });
    });
  }

  function canGroup() { return st.selected.size > 0 && openingsWith(pendingGroups()).length > 0; }
  function canOpen() {
    const gs = pendingGroups();
    return gs.length > 0 && openingsWith(gs).some((o) => o.melds.length === gs.length);
  }
  function canDiscard() { const sel = selectedCodes(); return sel.length === 1 && st.legal.discard.has(sel[0]); }
  /* the melds the one selected card lays off on or swaps into */
  function layMoves() { const sel = selectedCodes(); return sel.length === 1 ? st.legal.lay.get(sel[0]) || [] : []; }
  function cardEnabled(code, i) {
    if (grouped().has(i)) return false;
    if (st.selected.has(i)) return true;  // a click takes it back
    return st.legal.discard.has(code) || st.legal.lay.has(code) || st.legal.openCards.has(code);
  }

  function say(text, isError) {
    const m = $("message");
    m.textContent = text || "";
    m.className = isError ? "error" : "";
  }

  /* ------------------------------------------------------------ deal summaries */

  function seenDeals() {
    if (st.seen === null) {
      try { st.seen = Number(localStorage.getItem(SEEN_KEY) || 0); } catch (e) { st.seen = 0; }
    }
    // more deals seen than played: the count is another folder's game of the same id
    if (!(st.seen <= st.game.deals.length)) markSeen(st.game.deals.length);
    return st.seen;
  }

  function markSeen(n) {
    st.seen = n;
    try { localStorage.setItem(SEEN_KEY, String(n)); } catch (e) { /* the summary shows again after a reload */ }
  }

  /* the summary the person has not dismissed yet (the last finished deal), or null */
  function pendingSummary() {
    const deals = st.game.deals;
    if (st.game.game_over || !deals.length || deals.length <= seenDeals()) return null;
    return deals[deals.length - 1];
  }

  function dealTitle(d) {
    const name = d.contract.charAt(0).toUpperCase() + d.contract.slice(1);  // "Deal 1: 2 trios (6 cards)"
    if (d.cancelled) {
      return name + " was cancelled: the stock ran out with nothing to recycle (R13). " +
        "Nobody scores and the same deal is dealt again.";
    }
    return name + " is over: " + who(d.closer) + " went out (" + d.last_move.text + ").";
  }

  function summarySeats(d) {
    const list = el("div", "summary-seats");
    d.hands.forEach((h, s) => {
      const row = el("div", "summary-seat" + (s === d.closer ? " closer" : ""));
      row.dataset.seat = String(s);
      row.dataset.score = String(d.scores[s]);
      const head = el("div", "summary-head");
      head.appendChild(el("b", null, "seat " + s + " \u00b7 " + st.game.names[s]));
      head.appendChild(el("span", null, s === d.closer ? " went out: 0 points" :
        " " + plural(h.length, "card") + " left: " + plural(d.scores[s], "point")));
      head.appendChild(el("span", "muted", " \u00b7 total " + d.totals[s]));
      row.appendChild(head);
      if (d.melds[s].length) {
        row.appendChild(el("div", "muted small summary-melds", "on the table: " +
          d.melds[s].map((m) => m.cards.map((c) => prettyCard(c.card)).join(" ")).join(" \u00b7 ")));
      }
      const cards = el("div", "hand summary-hand");
      h.forEach((c) => cards.appendChild(cardEl(c)));
      row.appendChild(cards);
      list.appendChild(row);
    });
    return list;
  }

  function renderSummary(d) {
    const sec = $("deal-summary");
    sec.innerHTML = "";
    sec.hidden = !d;
    if (!d) return;
    sec.dataset.deal = String(d.number);
    sec.appendChild(el("h2", null, dealTitle(d)));
    if (!d.cancelled) sec.appendChild(summarySeats(d));
    const next = el("button", null, "continue to the next deal");
    next.id = "next-deal";
    next.addEventListener("click", () => { markSeen(st.game.deals.length); render(); });
    sec.appendChild(next);
  }

  function renderFinal() {
    const g = st.game;
    const sec = $("final");
    sec.hidden = false;
    sec.innerHTML = "";
    const best = g.frame.totals[g.winners[0]];
    sec.appendChild(el("h2", null, "Game over: " + (g.winners.length > 1 ? "a tie between " : "the winner is ") +
      g.winners.map(who).join(" and ") + " with a total of " + best + "."));
    const t = el("table", "list standings");
    t.id = "standings";
    const head = el("tr");
    ["place", "seat", "player", "total"].forEach((h) => head.appendChild(el("th", null, h)));
    t.appendChild(head);
    const order = g.frame.totals.map((v, s) => [v, s]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    order.forEach(([v, s]) => {
      const tr = el("tr", g.winners.includes(s) ? "winner" : null);
      tr.appendChild(el("td", null, String(1 + order.filter(([w]) => w < v).length)));
      tr.appendChild(el("td", null, String(s)));
      tr.appendChild(el("td", null, g.names[s]));
      tr.appendChild(el("td", null, String(v)));
      t.appendChild(tr);
    });
    sec.appendChild(t);
    const d = g.deals[g.deals.length - 1];
    if (d) sec.appendChild(el("p", "muted", "The last deal: " + dealTitle(d) + " Every hand is shown below as it ended."));
  }

  /* ------------------------------------------------------------ the table */

  function hint() {
    const g = st.game;
    if (!g.your_turn) return "";
    const sel = selectedCodes();
    if (g.frame.phase === "draw") return "";
    if (sel.length === 1) {
      const c = sel[0];
      const can = [];
      if (st.legal.discard.has(c)) can.push("discard it");
      const lays = st.legal.lay.get(c) || [];
      if (lays.length) can.push("lay it off on " + [...new Set(lays.map((m) => m.ref))].join(", ") + " (click the meld)");
      if (st.legal.openCards.has(c)) can.push("group it into a meld of an opening");
      return prettyCard(c) + ": " + (can.length ? can.join(" \u00b7 ") : "nothing now");
    }
    if (sel.length > 1) return canGroup() ? "group these cards as a meld" : "these cards are no meld of a legal opening";
    if (st.legal.opens.length) return "you can open: select the cards of a meld, group them, then open";
    return "select a card";
  }

  function render() {
    const g = st.game;
    const over = g.game_over;
    const summary = pendingSummary();
    st.legal = legalInfo(summary ? [] : g.legal);  // nothing takes a click under a summary
    const L = st.legal;
    if (over) {
      const c = $("controls");
      if (c) c.remove();  // the game is over: no more moves
      renderFinal();
      renderTable($("table"), g.frame, {mySeat: g.human_seat});
    } else {
      renderTable($("table"), g.frame, {
        mySeat: g.human_seat, selected: st.selected, grouped: grouped(),
        onCard: toggle, cardEnabled: cardEnabled,
        onMeld: meldClicked, meldTargets: new Set(layMoves().map((m) => m.ref)),
        onStock: L.drawStock ? () => send("draw stock") : null,
        onDiscard: L.drawDiscard ? () => send("draw discard") : canDiscard() ? discardSelected : null,
      });
      $("draw-stock").disabled = !L.drawStock;
      $("draw-discard").disabled = !L.drawDiscard;
      $("discard").disabled = !canDiscard();
      $("group").disabled = !canGroup();
      $("open").disabled = !canOpen();
      $("clear").disabled = !(st.selected.size || st.groups.length || $("choices").childElementCount);
      $("hint-ask").disabled = !g.your_turn;
      $("hint").textContent = hint();
      renderGroups();
    }
    renderSummary(summary);
    $("table").hidden = !!summary;
    if ($("controls")) $("controls").hidden = !!summary;
    let turn;
    if (over) turn = "Game over.";
    else if (summary) turn = "The deal is over: read the summary, then continue.";
    else if (g.your_turn) turn = "Your turn (seat " + g.human_seat + "): " + (g.frame.phase === "draw" ? "draw from the stock or take the discard" :
      g.frame.phase === "discard" ? "you opened: discard a card" : "open, lay off, swap, or discard");
    else turn = "seat " + g.frame.current_player + " to play";
    $("turn").textContent = turn;
    const last = g.frame.last;
    $("last-move").textContent = last ? "Last move: " + who(last.seat) + " \u2014 " + last.text : "";
    box.dataset.version = String(g.version);
    box.dataset.phase = g.frame.phase;
    box.dataset.yourTurn = String(g.your_turn && !summary);
    box.dataset.over = String(over);
  }

  function renderGroups() {
    const gr = $("groups");
    gr.innerHTML = "";
    const h = hand();
    st.groups.forEach((idx, n) => {
      const d = el("div", "group");
      d.dataset.group = n;
      d.appendChild(el("span", "muted", "meld " + (n + 1) + ": "));
      idx.forEach((i) => d.appendChild(cardEl(h[i])));
      gr.appendChild(d);
    });
  }

  function showBots(bots) {
    if (!bots.length) return;
    const log = $("bots");
    log.innerHTML = "";
    log.appendChild(el("div", "muted", "The bots' moves since yours:"));
    for (const b of bots) log.appendChild(el("div", null, who(b.seat) + ": " + b.move));
  }

  /* a bot's answer for the person's position (POST .../hint): shown until the position changes */
  async function ask() {
    if (!st.game || !st.game.your_turn) return;
    const bot = $("hint-bot").value;
    const panel = $("hint-panel");
    panel.innerHTML = "";
    panel.appendChild(el("div", "muted", bot + " is thinking…"));
    $("hint-ask").disabled = true;
    try {
      const res = await fetch(api + "/hint", {method: "POST", headers: {"Content-Type": "application/json"},
        body: JSON.stringify({version: st.game.version, bot: bot})});
      const data = await res.json();
      panel.innerHTML = "";
      if (!res.ok) {
        const msg = data.error || (data.detail ? data.detail.map((d) => d.msg).join("; ") : JSON.stringify(data));
        panel.appendChild(el("div", "error", msg));
        return;
      }
      if (data.version !== st.game.version) return;  // the position moved on meanwhile
      panel.dataset.version = String(data.version);
      panel.appendChild(explanationEl(data.explanation, bot + " would play " + data.explanation.move));
    } finally {
      $("hint-ask").disabled = !(st.game && st.game.your_turn);
    }
  }

  function accept(data) {
    st.game = data;
    $("hint-panel").innerHTML = "";
    st.selected.clear();
    st.groups = [];
    if ($("choices")) $("choices").innerHTML = "";
    showBots(data.bots || []);
    render();
  }

  async function load() {
    const res = await fetch(api);
    const data = await res.json();
    if (!res.ok) { say(data.error, true); return; }
    accept(data);
  }

  async function post(url, body) {
    if (st.sending) return;
    st.sending = true;
    try {
      const res = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
      const data = await res.json();
      if (res.status === 409) { say(data.error, true); await load(); say(data.error, true); return; }
      if (!res.ok) {
        const msg = data.error || (data.detail ? data.detail.map((d) => d.msg).join("; ") : JSON.stringify(data));
        say(msg, true);
        render();
        return;
      }
      if (data.choices) { offer(data.choices); say("these cards make more than one opening: choose one"); return; }
      say("");
      accept(data);
    } finally {
      st.sending = false;
    }
  }

  function send(move) { return post(api + "/move", {version: st.game.version, move: move}); }

  function offer(choices) {
    const c = $("choices");
    c.innerHTML = "";
    for (const m of choices) {
      const b = el("button", "choice", m.label || m.text);
      b.dataset.move = m.text;
      b.addEventListener("click", () => send(m.text));
      c.appendChild(b);
    }
    $("clear").disabled = false;
  }

  function toggle(i, code) {
    if (!cardEnabled(code, i)) return;
    if (st.selected.has(i)) st.selected.delete(i); else st.selected.add(i);
    $("choices").innerHTML = "";
    render();
  }

  function discardSelected() {
    if (!canDiscard()) return;
    send("discard " + selectedCodes()[0]);
  }

  function meldClicked(meld) {
    const card = selectedCodes()[0];
    const fits = layMoves().filter((m) => m.ref === meld.ref);
    if (fits.length === 1) { send(fits[0].text); return; }
    if (fits.length > 1) {
      offer(fits.map((m) => ({text: m.text, label: m.kind === "swap" ?
        "swap " + prettyCard(card) + " for the joker, the joker to the " + m.end + " end" :
        "lay " + prettyCard(card) + (m.end ? " at the " + m.end + " end" : "")})));
      say("choose where");
    }
  }

  $("hint-ask").addEventListener("click", ask);
  $("draw-stock").addEventListener("click", () => { if (st.legal.drawStock) send("draw stock"); });
  $("draw-discard").addEventListener("click", () => { if (st.legal.drawDiscard) send("draw discard"); });
  $("discard").addEventListener("click", discardSelected);
  $("group").addEventListener("click", () => {
    if (!canGroup()) return;
    st.groups.push([...st.selected].sort((a, b) => a - b));
    st.selected.clear();
    say("");
    render();
  });
  $("open").addEventListener("click", () => {
    if (!canOpen()) return;
    if (st.selected.size) st.groups.push([...st.selected].sort((a, b) => a - b));
    st.selected.clear();
    post(api + "/open", {version: st.game.version, groups: groupCodes()});
  });
  $("clear").addEventListener("click", () => { st.selected.clear(); st.groups = []; $("choices").innerHTML = ""; say(""); render(); });
  load();
})();
