/* The duplicate diff page: each game's move list scrolled to where the two games part, and
   what each agent weighed there (the explanations come with the page). */
"use strict";

(function () {
  const box = document.getElementById("diff");
  const first = box.dataset.first === "" ? null : Number(box.dataset.first);
  for (const side of [0, 1]) {
    const list = document.getElementById("moves-" + side);
    const row = first === null ? null : list.querySelector("li[data-index='" + first + "']");
    if (row) list.scrollTop = Math.max(0, row.offsetTop - list.offsetTop - 3 * row.offsetHeight);
    const holder = document.getElementById("explanation-" + side);
    const exp = JSON.parse(holder.dataset.explanation);
    if (exp) holder.appendChild(explanationEl(exp, "what it weighed at move " + (first + 1)));
    else if (first !== null) holder.appendChild(el("div", "muted small",
      "no explanation kept for this move (a forced move, or a tournament run without --explain)"));
  }
  box.dataset.ready = "true";
})();
