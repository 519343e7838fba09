/* Playing in the browser: clicks become moves in notation, sent with the game's version. */
"use strict";

(function () {
  const box = document.getElementById("play");
  const gameId = box.dataset.game;
  const $ = (id) => document.getElementById(id);
  const st = {game: null, selected: new Set(), groups: [], sending: false};

  function hand() { return st.game.frame.seats[st.game.human_seat].hand || []; }
  function grouped() { return new Set(st.groups.flat()); }

  function say(text, isError) {
    const m = $("message");
    m.textContent = text || "";
    m.className = isError ? "error" : "";
  }

  function render() {
    const g = st.game;
    renderTable($("table"), g.frame, {
      mySeat: g.human_seat, selected: st.selected, grouped: grouped(),
      onCard: toggle, onMeld: meldClicked, onStock: () => send("draw stock"), onDiscard: discardClicked,
    });
    let turn;
    if (g.game_over) turn = "Game over. Totals " + g.frame.totals.join(" / ") + "; winner(s): seat " + g.winners.join(", seat ");
    else if (g.your_turn) turn = "Your turn (seat " + g.human_seat + "): " + (g.frame.phase === "draw" ? "draw from the stock or take the discard" :
      g.frame.phase === "discard" ? "you opened: discard a card" : "open, lay off, swap, or discard");
    else turn = "seat " + g.frame.current_player + " to play";
    $("turn").textContent = turn;
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
    box.dataset.version = String(g.version);
    box.dataset.phase = g.frame.phase;
    box.dataset.yourTurn = String(g.your_turn);
  }

  function showBots(bots) {
    const log = $("bots");
    for (const b of bots) log.prepend(el("div", null, "seat " + b.seat + " (" + st.game.names[b.seat] + "): " + b.move));
  }

  function accept(data) {
    st.game = data;
    st.selected.clear();
    st.groups = [];
    $("choices").innerHTML = "";
    showBots(data.bots || []);
    render();
  }

  async function load() {
    const res = await fetch("/api/games/" + encodeURIComponent(gameId));
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

  function send(move) { return post("/api/games/" + encodeURIComponent(gameId) + "/move", {version: st.game.version, move: move}); }

  function offer(choices) {
    const c = $("choices");
    c.innerHTML = "";
    for (const m of choices) {
      const b = el("button", "choice", m.label || m.text);
      b.dataset.move = m.text;
      b.addEventListener("click", () => send(m.text));
      c.appendChild(b);
    }
  }

  function toggle(i) {
    if (grouped().has(i)) return;
    if (st.selected.has(i)) st.selected.delete(i); else st.selected.add(i);
    render();
  }

  function selectedCodes() { const h = hand(); return [...st.selected].sort((a, b) => a - b).map((i) => h[i]); }

  function discardClicked() {
    if (st.game.frame.phase === "draw") { send("draw discard"); return; }
    discardSelected();
  }

  function discardSelected() {
    const codes = selectedCodes();
    if (codes.length !== 1) { say("select exactly one card of your hand to discard", true); return; }
    send("discard " + codes[0]);
  }

  function meldClicked(meld) {
    const codes = selectedCodes();
    if (codes.length !== 1) { say("select one card of your hand, then click the meld to lay it off (or swap it for a joker)", true); return; }
    const card = codes[0];
    const fits = st.game.legal.filter((m) => (m.kind === "lay_off" || m.kind === "swap") && m.ref === meld.ref && m.card === card);
    if (fits.length === 1) { send(fits[0].text); return; }
    if (fits.length > 1) {
      offer(fits.map((m) => ({text: m.text, label: m.kind === "swap" ?
        "swap " + prettyCard(card) + " for the joker, the joker to the " + m.end + " end" :
        "lay " + prettyCard(card) + (m.end ? " at the " + m.end + " end" : "")})));
      say("choose where");
      return;
    }
    // not legal: send it anyway so the engine says which rule forbids it
    send("lay " + card + " " + meld.ref + (meld.kind === "run" ? " high" : ""));
  }

  $("draw-stock").addEventListener("click", () => send("draw stock"));
  $("draw-discard").addEventListener("click", () => send("draw discard"));
  $("discard").addEventListener("click", discardSelected);
  $("group").addEventListener("click", () => {
    if (!st.selected.size) { say("select the cards of a meld first", true); return; }
    st.groups.push([...st.selected].sort((a, b) => a - b));
    st.selected.clear();
    say("");
    render();
  });
  $("open").addEventListener("click", () => {
    if (st.selected.size) st.groups.push([...st.selected].sort((a, b) => a - b));
    st.selected.clear();
    if (!st.groups.length) { say("group the cards of each meld of the contract first", true); render(); return; }
    const h = hand();
    post("/api/games/" + encodeURIComponent(gameId) + "/open", {version: st.game.version, groups: st.groups.map((g) => g.map((i) => h[i]))});
  });
  $("clear").addEventListener("click", () => { st.selected.clear(); st.groups = []; $("choices").innerHTML = ""; say(""); render(); });
  load();
})();
