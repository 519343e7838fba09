/* The game viewer: steps a record through /api/replay. */
"use strict";

(function () {
  const box = document.getElementById("viewer");
  const path = box.dataset.path;
  const length = Number(box.dataset.length);
  const state = {move: Number(box.dataset.start), seat: box.dataset.seat, model: box.dataset.model, timer: null, busy: false};
  const $ = (id) => document.getElementById(id);

  function url() {
    const q = new URLSearchParams({path: path, move: String(state.move)});
    if (state.seat !== "") q.set("seat", state.seat);
    if (state.model) q.set("model", state.model);
    return "/api/replay?" + q.toString();
  }

  function renderPolicy(policy) {
    const p = $("policy");
    p.innerHTML = "";
    if (!policy) return;
    if (policy.error) { p.appendChild(el("div", "error", policy.error)); return; }
    if (policy.seat === null) return;
    p.appendChild(el("h3", null, "ppo:" + state.model + " at seat " + policy.seat + ": probabilities over the legal moves"));
    for (const step of policy.steps) {
      if (step.pending.length) p.appendChild(el("div", "muted", "after choosing " + step.pending.join(" / ")));
      const t = el("table", "list");
      for (const r of step.rows) {
        const tr = el("tr", r.played ? "played" : null);
        tr.appendChild(el("td", null, r.move + (r.played ? "  \u2190 played" : "")));
        const bar = el("td");
        const b = el("span", "bar");
        b.style.width = Math.max(1, Math.round(200 * r.p)) + "px";
        bar.appendChild(b);
        bar.appendChild(el("span", null, " " + (100 * r.p).toFixed(1) + "%"));
        tr.appendChild(bar);
        t.appendChild(tr);
      }
      if (step.others > 0.0005) t.appendChild(el("tr", "muted")).appendChild(el("td", null, "others: " + (100 * step.others).toFixed(1) + "%"));
      p.appendChild(t);
      p.appendChild(el("div", "muted small", step.legal + " legal actions at this step"));
    }
  }

  /* what the mover weighed at this position, beside the move it then played */
  function renderExplanation(data) {
    const box = $("explanation");
    box.innerHTML = "";
    box.dataset.move = "";
    if (!data.next) return;
    if (data.explanation) {
      box.dataset.move = data.explanation.move;
      box.appendChild(explanationEl(data.explanation, "seat " + data.next.seat + " (" + data.names[data.next.seat] +
        ") weighed, then played move " + (state.move + 1) + ": " + data.next.text));
    } else if (data.explained) {
      box.appendChild(el("div", "muted small", "no explanation for the next move (a person's move, a forced one, " +
        (state.seat !== "" ? "another seat's reasons in this view, " : "") + "or an agent that does not explain)"));
    }
  }

  async function show() {
    state.busy = true;
    const res = await fetch(url());
    const data = await res.json();
    state.busy = false;
    if (!res.ok) { $("error").textContent = data.error || JSON.stringify(data); return; }
    $("error").textContent = "";
    renderTable($("table"), data.frame, {});
    $("last-move").textContent = data.last ? "move " + data.last.number + ": seat " + data.last.seat + " \u2014 " + data.last.text : "start of the game";
    $("next-move").textContent = data.next ? "next: seat " + data.next.seat + " \u2014 " + data.next.text : "end of the record";
    $("move-number").value = state.move;
    const starts = data.deal_starts.filter((d) => d.move <= state.move);
    $("deal-jump").value = String(starts[starts.length - 1].move);
    renderPolicy(data.policy);
    renderExplanation(data);
    const q = new URLSearchParams(location.search);
    q.set("move", String(state.move));
    if (state.seat === "") q.delete("seat"); else q.set("seat", state.seat);
    history.replaceState(null, "", "?" + q.toString());
    box.dataset.shown = String(state.move);
  }

  function go(k) {
    state.move = Math.max(0, Math.min(length, k));
    return show();
  }

  function stop() {
    if (state.timer) clearInterval(state.timer);
    state.timer = null;
    $("autoplay").textContent = "play";
  }

  $("first").addEventListener("click", () => { stop(); go(0); });
  $("back").addEventListener("click", () => { stop(); go(state.move - 1); });
  $("forward").addEventListener("click", () => { stop(); go(state.move + 1); });
  $("last").addEventListener("click", () => { stop(); go(length); });
  $("move-number").addEventListener("change", (e) => { stop(); go(Number(e.target.value)); });
  $("deal-jump").addEventListener("change", (e) => { stop(); go(Number(e.target.value)); });
  $("seat-select").addEventListener("change", (e) => { state.seat = e.target.value; show(); });
  $("model-select").addEventListener("change", (e) => { state.model = e.target.value; show(); });
  function start() {
    stop();
    $("autoplay").textContent = "pause";
    state.timer = setInterval(() => {
      if (state.busy) return;
      if (state.move >= length) { stop(); return; }
      go(state.move + 1);
    }, Number($("speed").value));
  }
  $("autoplay").addEventListener("click", () => { if (state.timer) stop(); else start(); });
  $("speed").addEventListener("change", () => { if (state.timer) start(); });
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    if (e.key === "ArrowRight") { stop(); go(state.move + 1); }
    if (e.key === "ArrowLeft") { stop(); go(state.move - 1); }
  });
  show();
})();
