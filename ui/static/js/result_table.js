// A result table's header sorts the rows on the page and its filter narrows them. Both act on
// what is loaded (one page of the result); the pager still walks the whole result in order.
"use strict";

/** Headers become sort buttons once this script is here: without it they stay plain text. */
function enhance(table) {
  table.dataset.enhanced = "true";
  for (const th of table.querySelectorAll("thead th")) {
    const name = th.querySelector(".col-name");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "sort";
    button.dataset.sort = th.dataset.column;
    button.append(...name.childNodes);
    name.append(button);
  }
  const tools = table.closest(".result")?.querySelector("[data-table-tools]");
  if (tools) tools.hidden = false;
}

// A long cell shows 80 characters and keeps up to 1,000 in its title (ui/components/
// result_table.tsx): sorting and the filter read that much, never the value whole.
function cellText(cell) {
  return cell.title || cell.textContent;
}

function cellValue(row, column, numeric) {
  const cell = row.cells[column];
  if (cell.classList.contains("null")) return null;
  const text = cellText(cell);
  return numeric ? Number(text) : text;
}

function sort(button) {
  const th = button.closest("th");
  const table = th.closest("table");
  const column = Number(button.dataset.sort);
  const dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
  for (const other of table.querySelectorAll("thead th")) other.setAttribute("aria-sort", "none");
  th.setAttribute("aria-sort", dir);
  const numeric = th.classList.contains("num");
  const sign = dir === "ascending" ? 1 : -1;
  const text = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
  const body = table.tBodies[0];
  const rows = [...body.rows].map((row, i) => ({ row, i, v: cellValue(row, column, numeric) }));
  rows.sort((a, b) => {
    // NULL last either way; ties keep the result's own order.
    if (a.v === null || b.v === null) return (a.v === null) - (b.v === null) || a.i - b.i;
    const c = numeric ? a.v - b.v : text.compare(a.v, b.v);
    return c === 0 ? a.i - b.i : sign * c;
  });
  body.append(...rows.map((r) => r.row));
}

function filter(input) {
  const table = document.getElementById(input.getAttribute("aria-controls"));
  if (!table) return;
  const query = input.value.trim().toLowerCase();
  let shown = 0;
  const rows = table.tBodies[0].rows;
  for (const row of rows) {
    const hit = !query ||
      [...row.cells].some((cell) => cellText(cell).toLowerCase().includes(query));
    row.hidden = !hit;
    if (hit) shown++;
  }
  const count = input.parentElement.querySelector("[data-filter-count]");
  if (count) count.textContent = query ? `${shown} of ${rows.length} rows on this page` : "";
}

function enhanceAll() {
  for (const table of document.querySelectorAll("table[data-sortable]:not([data-enhanced])")) {
    enhance(table);
  }
}

document.addEventListener("click", (event) => {
  const button = event.target.closest?.("table[data-sortable] button[data-sort]");
  if (button) sort(button);
});
document.addEventListener("input", (event) => {
  if (event.target.matches?.("[data-table-filter]")) filter(event.target);
});
document.addEventListener("DOMContentLoaded", () => {
  enhanceAll();
  // A live run's view is replaced when its result lands.
  new MutationObserver(enhanceAll).observe(document.body, { childList: true, subtree: true });
});
