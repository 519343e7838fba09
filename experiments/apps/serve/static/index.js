/* The front page's new-game form: POST /api/games, then open the game. */
"use strict";

(function () {
  const form = document.getElementById("new-game");
  if (!form) return;
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = {
      players: Number(document.getElementById("players").value),
      seat: Number(document.getElementById("seat").value),
      bots: [document.getElementById("bots").value],
      deals: document.getElementById("deals").value.trim().split(/[\s,]+/).map(Number),
      seed: Number(document.getElementById("game-seed").value),
    };
    const res = await fetch("/api/games", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
    const data = await res.json();
    if (!res.ok) {
      const detail = data.detail ? data.detail.map((d) => d.msg).join("; ") : data.error;
      document.getElementById("form-error").textContent = detail;
      return;
    }
    location.href = "/play/" + data.id;
  });
})();
