// The ladder's table, kept live: every two seconds the rows are read again as JSON and
// rebuilt with text nodes only (a bot's name is never read as HTML).
const table = document.getElementById("ladder");

function fixed(x, places) {
  return x === null ? "-" : x.toFixed(places);
}

function cell(row, text, numeric) {
  const td = document.createElement("td");
  if (numeric) td.className = "num";
  td.textContent = text;
  row.appendChild(td);
  return td;
}

function render(rows) {
  const fresh = document.createElement("tbody");
  for (const r of rows) {
    const tr = document.createElement("tr");
    cell(tr, String(r.place), true);
    const link = document.createElement("a");
    link.href = "/ladder/bot/" + encodeURIComponent(r.bot);
    link.textContent = r.bot;
    cell(tr, "", false).appendChild(link);
    cell(tr, fixed(r.rating, 2), true);
    cell(tr, fixed(r.mu, 2) + " ± " + fixed(2 * r.sigma, 2), true);
    cell(tr, String(r.games), true);
    cell(tr, fixed(r.win_share, 3), true);
    const ci = r.adjusted_ci === null ? "" : " ± " + fixed(r.adjusted_ci, 3);
    cell(tr, fixed(r.adjusted, 3) + ci, true);
    cell(tr, String(r.forfeits), true);
    cell(tr, r.status, false);
    fresh.appendChild(tr);
  }
  table.replaceChild(fresh, table.querySelector("tbody"));
}

async function refresh() {
  try {
    const answer = await fetch(table.dataset.json, { cache: "no-store" });
    if (answer.ok) render((await answer.json()).rows);
  } catch (error) {
    // the server is away for a moment: keep the last table and try again
  }
  setTimeout(refresh, 2000);
}
setTimeout(refresh, 2000);
