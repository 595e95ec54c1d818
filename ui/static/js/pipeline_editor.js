// The pipeline editor's two views of one graph, kept in step: typing in the form rewrites the
// JSON (the server turns the fields into the spec: one implementation of that mapping, shared
// with the save), and typing JSON redraws the form once it parses. Adding or removing a row
// redraws the form in place instead of reloading the page. Without this script both views show
// and the save takes whichever one changed.
import { enhance, remeasure, setEditorText } from "./editor.js";

const form = document.querySelector("[data-pipeline-editor]");
const specArea = form?.querySelector("#p-spec");

function csrfToken() {
  try {
    return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["SVC-CSRF-Token"] || "";
  } catch {
    return "";
  }
}

/** Shows `group` or hides it; hidden controls are disabled, so they are not posted. */
function toggle(group, on) {
  group.hidden = !on;
  for (const control of group.querySelectorAll("input, select, textarea")) {
    control.disabled = !on;
  }
}

/**
 * Shows the fields that belong to each node's type, its query choice (template or inline SQL)
 * and its output target, for every card under `root` (or the card `root` is).
 */
function applyTypes(root, chosen = false) {
  // As drawn, a refused field stays in view; once the author picks a type, target or query
  // source, the pick decides alone (so a refused field can be switched away from).
  const keep = (group) => !chosen && group.querySelector("[aria-invalid=true]") !== null;
  const cards = root.matches("[data-node-card]")
    ? [root]
    : root.querySelectorAll("[data-node-card]");
  for (const card of cards) {
    const type = card.querySelector("[data-node-type]")?.value;
    for (const group of card.querySelectorAll("[data-for-types]")) {
      toggle(
        group,
        group.dataset.forTypes.split(" ").includes(type) || keep(group),
      );
    }
    const query = card.querySelector("[data-query-choice]:checked")?.value;
    for (const group of card.querySelectorAll("[data-query]")) {
      if (group.closest("[data-for-types]").hidden) continue;
      toggle(
        group,
        group.dataset.query === query || keep(group),
      );
    }
    const target = card.querySelector("[data-node-target]")?.value ?? "";
    for (const group of card.querySelectorAll("[data-for-targets]")) {
      if (group.closest("[data-for-types]").hidden) continue;
      toggle(
        group,
        group.dataset.forTargets.split(" ").includes(target) || keep(group),
      );
    }
    const badge = card.querySelector("legend .badge");
    if (badge && type) badge.textContent = type;
  }
}

let generation = 0;

/** Asks the server for the form drawn from `from` (json or form), with an optional shape edit. */
async function redraw(from, op) {
  const mine = ++generation;
  const data = new URLSearchParams(new FormData(form));
  data.set("from", from);
  data.delete("op");
  if (op) data.set("op", op);
  const res = await fetch("/partials/pipelines/editor/form", {
    method: "POST",
    headers: { "SVC-CSRF-Token": csrfToken(), "HX-Request": "true" },
    body: data,
  });
  // 204: the JSON does not parse yet; the form keeps the last graph that did.
  if (res.status !== 200 || mine !== generation) return;
  const holder = document.createElement("div");
  holder.innerHTML = await res.text();
  const fresh = holder.firstElementChild;
  const current = form.querySelector("#pipeline-form");
  if (from === "form" && !op) {
    // The author is typing in the form: keep its fields (and focus), take the JSON and the base.
    setEditorText(specArea, fresh.dataset.specJson);
    current.querySelector("input[name=spec_base]").value =
      fresh.querySelector("input[name=spec_base]").value;
    return;
  }
  if (op) setEditorText(specArea, fresh.dataset.specJson);
  current.replaceWith(fresh);
  applyTypes(fresh);
  enhance(fresh);
}

function debounce(fn, ms) {
  let timer;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

function selectTab(tab) {
  for (const t of form.querySelectorAll("[role=tab]")) {
    const on = t === tab;
    t.setAttribute("aria-selected", on ? "true" : "false");
    t.tabIndex = on ? 0 : -1;
    const panel = document.getElementById(t.getAttribute("aria-controls"));
    panel.hidden = !on;
    if (on) remeasure(panel);
  }
}

if (form && specArea) {
  const fromForm = debounce(() => redraw("form"), 350);
  const fromJson = debounce(() => redraw("json"), 600);
  const lastEdit = form.querySelector("input[name=last_edit]");
  form.addEventListener("input", (e) => {
    if (e.target === specArea) {
      lastEdit.value = "json";
      fromJson();
    } else if (e.target.closest("#pipeline-form")) {
      lastEdit.value = "form";
      fromForm();
    }
    // A renamed node renames itself where others pick their dependencies.
    const index = e.target.dataset?.nodeId;
    if (index !== undefined) {
      for (const label of form.querySelectorAll(`[data-dep-label="${index}"]`)) {
        label.textContent = e.target.value || `node ${Number(index) + 1}`;
      }
      const title = form.querySelector(`[data-node-title="${index}"]`);
      if (title) title.textContent = e.target.value || `node ${Number(index) + 1}`;
    }
  });
  form.addEventListener("change", (e) => {
    if (e.target.matches("[data-node-type], [data-node-target], [data-query-choice]")) {
      applyTypes(e.target.closest("[data-node-card]"), true);
      remeasure(form);
    }
  });
  form.addEventListener("click", (e) => {
    const button = e.target.closest("button[data-op]");
    if (!button) return;
    e.preventDefault();
    // The shape edit applies to the view typed in last, so it is read before it changes.
    redraw("form", button.value);
    lastEdit.value = "form";
  });
  const tabs = form.querySelector("[data-tabs]");
  tabs.hidden = false;
  const selected = tabs.querySelector("[aria-selected=true]") ?? tabs.querySelector("[role=tab]");
  selectTab(selected);
  tabs.addEventListener("click", (e) => {
    const tab = e.target.closest("[role=tab]");
    if (tab) selectTab(tab);
  });
  tabs.addEventListener("keydown", (e) => {
    if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
    const all = [...tabs.querySelectorAll("[role=tab]")];
    const next = all[
      (all.indexOf(e.target) + (e.key === "ArrowRight" ? 1 : -1) + all.length) %
      all.length
    ];
    selectTab(next);
    next.focus();
  });
  applyTypes(form);
}
