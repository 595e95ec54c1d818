// The live run view: starts a run from the parameter form over the execute route's event stream,
// or follows a running execution through its replay stream, and keeps the server-rendered view
// (data-* handles in ui/components/run_view.tsx) current as events arrive.
"use strict";

const STATE_CLASSES = /\bstate-[a-z]+\b/g;
/** The timeline's coordinate space and its narrowest bar (ui/components/run_timeline.tsx). */
const TRACK = 1000;
const MIN_BAR = 3;

function csrfToken() {
  try {
    return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["SVC-CSRF-Token"] || "";
  } catch {
    return "";
  }
}

function formatDuration(ms) {
  if (ms == null) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
}

function formatBytes(n) {
  if (n == null) return "—";
  if (n < 1024) return `${n} B`;
  if (n < 1048576) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1048576).toFixed(1)} MB`;
}

/** One run view on the page and the events that change it. */
class RunView {
  constructor(root) {
    this.root = root;
    this.id = root.dataset.run;
    /** Rows each node will handle, where the events tell it (see `progressOf`). */
    this.totals = new Map();
    this.finished = new Set();
    const timeline = root.querySelector("[data-timeline]");
    /** The timeline's origin (the run's start) in ms since the epoch; NaN without a timeline. */
    this.origin = timeline ? Date.parse(timeline.dataset.runStart) : NaN;
    /** The latest instant the events told, in ms from the origin. */
    this.latest = 0;
    /** Server clock minus this browser's, from the latest event, so live bars grow in step. */
    this.skew = 0;
    this.ticking = null;
    /** While replaying, time is what the events say, not the wall clock. */
    this.replaying = false;
  }

  /** Ms from the run's start to an event's ISO instant (null when there is none). */
  offset(iso) {
    const at = Date.parse(iso ?? "");
    return Number.isNaN(at) || Number.isNaN(this.origin) ? null : at - this.origin;
  }

  /** Notes the instant an event carries: the timeline's "now" follows it. */
  observe(data) {
    const iso = data.observed_at ?? data.completed_at ?? data.failed_at ?? data.aborted_at ??
      data.started_at;
    const at = this.offset(iso);
    if (at === null) return;
    this.latest = Math.max(this.latest, at);
    if (!this.replaying) this.skew = Date.parse(iso) - Date.now();
  }

  spanRow(nodeId) {
    return this.root.querySelector(`[data-span="${CSS.escape(nodeId)}"]`);
  }

  /** A node's bar starts (or, with `end`, ends) at the event's instant. */
  setSpan(nodeId, fields) {
    const row = this.spanRow(nodeId);
    if (!row) return;
    if (fields.start != null) row.dataset.start = String(fields.start);
    if (fields.end != null) row.dataset.end = String(fields.end);
    if (fields.state) {
      const bar = row.querySelector("[data-span-bar]");
      bar.setAttribute(
        "class",
        bar.getAttribute("class").replace(STATE_CLASSES, `state-${fields.state}`),
      );
    }
    this.drawTimeline();
    if (!this.ticking && !this.replaying && fields.start != null) {
      this.ticking = setInterval(() => this.drawTimeline(), 250);
    }
  }

  stopTicking() {
    if (this.ticking) clearInterval(this.ticking);
    this.ticking = null;
  }

  /** Redraws every bar on an axis as long as the run so far (bars grow while nodes run). */
  drawTimeline() {
    const timeline = this.root.querySelector("[data-timeline]");
    if (!timeline) return;
    const now = this.ticking
      ? Math.max(this.latest, Date.now() + this.skew - this.origin)
      : this.latest;
    const fixed = this.replaying ? Number(timeline.dataset.total) || 0 : 0;
    const total = Math.max(1, now, fixed);
    for (const row of timeline.querySelectorAll("[data-span]")) {
      const bar = row.querySelector("[data-span-bar]");
      if (row.dataset.start === undefined) {
        bar.setAttribute("width", "0");
        continue;
      }
      const start = Number(row.dataset.start);
      const end = row.dataset.end === undefined ? Math.max(start, now) : Number(row.dataset.end);
      const scale = TRACK / total;
      const x = Math.min(TRACK - MIN_BAR, Math.max(0, start * scale));
      bar.setAttribute("x", String(Math.round(x)));
      bar.setAttribute("width", String(Math.round(Math.max(MIN_BAR, (end - start) * scale))));
      row.querySelector("[data-span-start]").textContent = `+${formatDuration(start)}`;
      row.querySelector("[data-span-took]").textContent = row.dataset.end === undefined
        ? "running"
        : formatDuration(end - start);
    }
    const label = timeline.querySelector("[data-timeline-total]");
    if (label) label.textContent = formatDuration(total);
  }

  /** Back to no bars, for a replay to draw them again. */
  clearTimeline() {
    for (const row of this.root.querySelectorAll("[data-span]")) {
      delete row.dataset.start;
      delete row.dataset.end;
      const bar = row.querySelector("[data-span-bar]");
      bar.setAttribute("class", bar.getAttribute("class").replace(STATE_CLASSES, "state-idle"));
      bar.setAttribute("width", "0");
      row.querySelector("[data-span-start]").textContent = "—";
      row.querySelector("[data-span-took]").textContent = "not run";
    }
    this.latest = 0;
  }

  /**
   * A node's bar: determinate when its row total is known — from the stored stream on a replay
   * (its `node_completed.rows_out`), or live while a write-back writes, whose rows were all
   * fetched first — else indeterminate. There is no percentage in the events.
   */
  progressOf(data) {
    const done = data.rows_written ?? data.rows_fetched;
    let total = this.totals.get(data.node_id);
    if (
      total === undefined && data.operation === "writeback" &&
      (data.state === "writing" || data.state === "finalizing")
    ) total = data.rows_fetched;
    if (total == null || total <= 0 || done == null) return null;
    return { value: Math.min(done, total), max: total };
  }

  setProgress(row, progress) {
    const bar = row.querySelector("[data-node-progress]");
    const text = row.querySelector("[data-node-progress-text]");
    if (!bar) return;
    if (progress) {
      bar.max = progress.max;
      bar.value = progress.value;
      const words = `${progress.value.toLocaleString()} of ${progress.max.toLocaleString()} rows`;
      bar.setAttribute("aria-valuetext", words);
      if (text) text.textContent = words;
    } else {
      // No value attribute: the bar is indeterminate.
      bar.removeAttribute("value");
      bar.removeAttribute("aria-valuetext");
      if (text) text.textContent = "";
    }
  }

  /** The summary's "n of m nodes finished" bar. */
  countFinished(nodeId) {
    if (nodeId !== undefined) this.finished.add(nodeId);
    const bar = this.root.querySelector("[data-run-progress]");
    const text = this.root.querySelector("[data-run-progress-text]");
    if (!bar) return;
    bar.value = this.finished.size;
    if (text) text.textContent = `${this.finished.size} of ${bar.max} nodes finished`;
  }

  setNode(nodeId, state, fields = {}) {
    const box = this.root.querySelector(`[data-node="${CSS.escape(nodeId)}"]`);
    if (box) {
      box.setAttribute("class", box.getAttribute("class").replace(STATE_CLASSES, `state-${state}`));
    }
    const row = this.root.querySelector(`[data-node-row="${CSS.escape(nodeId)}"]`);
    if (!row) return;
    const label = row.querySelector("[data-node-state]");
    label.textContent = state;
    label.className = label.className.replace(STATE_CLASSES, `state-${state}`);
    const active = [
      "connecting",
      "executing",
      "fetching",
      "writing",
      "finalizing",
      "running",
    ].includes(state);
    row.querySelector("[data-node-progress]").hidden = !active;
    const text = row.querySelector("[data-node-progress-text]");
    if (text) text.hidden = !active;
    if ("progress" in fields) this.setProgress(row, fields.progress);
    if (fields.rows != null) {
      row.querySelector("[data-node-rows]").textContent = String(fields.rows);
    }
    if (fields.bytes !== undefined) {
      row.querySelector("[data-node-bytes]").textContent = formatBytes(fields.bytes);
    }
    if (fields.ms != null) {
      row.querySelector("[data-node-time]").textContent = formatDuration(fields.ms);
    }
  }

  setStatus(status) {
    const tone = { SUCCESS: "ok", FAILED: "bad", ABORTED: "", RUNNING: "info" }[status] ?? "";
    const badge = this.root.querySelector("[data-run-status]");
    if (badge) badge.innerHTML = `<span class="badge ${tone}">${status.toLowerCase()}</span>`;
    const cancel = this.root.querySelector("[data-cancel]");
    if (cancel && status !== "RUNNING") cancel.remove();
  }

  apply(type, data) {
    this.observe(data);
    switch (type) {
      case "node_started":
        this.setNode(data.node_id, "running", { progress: null });
        this.setSpan(data.node_id, { start: this.offset(data.started_at), state: "running" });
        break;
      case "node_progress":
        this.setNode(data.node_id, data.state, {
          rows: data.rows_written ?? data.rows_fetched,
          ms: data.elapsed_ms,
          progress: this.progressOf(data),
        });
        break;
      case "node_completed":
        this.setNode(data.node_id, "done", {
          rows: data.rows_out,
          bytes: data.bytes_out,
          ms: data.duration_ms,
        });
        this.countFinished(data.node_id);
        this.setSpan(data.node_id, { end: this.offset(data.completed_at), state: "done" });
        break;
      case "node_failed":
        this.setNode(data.node_id, "failed", { ms: data.duration_ms });
        this.setSpan(data.node_id, { end: this.offset(data.failed_at), state: "failed" });
        this.countFinished(data.node_id);
        this.showFailure(data.error, data.node_id);
        break;
      case "pipeline_completed":
        this.endTimeline();
        this.setStatus("SUCCESS");
        this.root.querySelector("[data-run-duration]").textContent = formatDuration(
          data.duration_ms,
        );
        break;
      case "pipeline_failed":
        this.endTimeline();
        this.setStatus("FAILED");
        this.showFailure(data.error, data.failed_node_id);
        break;
      case "execution_aborted":
        this.endTimeline("aborted");
        this.setStatus("ABORTED");
        break;
    }
  }

  /** The run ended: bars stop growing; nodes still running were stopped with it. */
  endTimeline(state) {
    this.stopTicking();
    for (const row of this.root.querySelectorAll("[data-span][data-start]:not([data-end])")) {
      row.dataset.end = String(this.latest);
      if (state) this.setSpan(row.dataset.span, { state });
    }
    this.drawTimeline();
  }

  showFailure(error, nodeId) {
    const box = this.root.querySelector("[data-run-failure]");
    if (!box || !error) return;
    box.textContent = `${error.code}: ${error.message}${nodeId ? ` (node ${nodeId})` : ""}`;
    box.hidden = false;
  }

  /** Re-renders the whole view from the stored record: the result table arrives this way. */
  async refresh() {
    this.stopTicking();
    const res = await fetch(`/partials/runs/${this.id}`, { headers: { "HX-Request": "true" } });
    if (!res.ok) return;
    const holder = document.createElement("div");
    holder.innerHTML = await res.text();
    const fresh = holder.firstElementChild;
    this.root.replaceWith(fresh);
    this.root = fresh;
    if (globalThis.htmx) globalThis.htmx.process(fresh);
  }
}

/** Frames of a text/event-stream body, as {event, data} objects. */
async function* sseFrames(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
      }
      if (data.length) yield { event, data: JSON.parse(data.join("\n")) };
    }
  }
}

/** The typed value of one form field, or undefined when it was left empty. */
function typedValue(input) {
  const raw = input.value.trim();
  if (raw === "") return undefined;
  const type = input.dataset.type;
  if (type === "integer" || type === "number") return Number(raw);
  if (type === "boolean") return raw === "true";
  if (type === "string_list") return raw.split(",").map((s) => s.trim()).filter(Boolean);
  if (type === "integer_list") {
    return raw.split(",").map((s) => s.trim()).filter(Boolean).map(Number);
  }
  return raw;
}

/** A refusal's words for a person: its reason ("must be at most 100") as a sentence. */
function sentence(text) {
  const t = String(text).trim();
  return t.charAt(0).toUpperCase() + t.slice(1) + (/[.!?]$/.test(t) ? "" : ".");
}

function errorSlot(form, field) {
  return field &&
    form.querySelector(
      `[data-error-for="${CSS.escape(String(field).replace(/^parameters\./, ""))}"]`,
    );
}

function markField(slot, text) {
  slot.textContent = text;
  slot.previousElementSibling?.previousElementSibling?.setAttribute("aria-invalid", "true");
}

/**
 * Every defect under the field it names (a parameter refusal lists them all in
 * `details.errors`, each with the bound it passed); anything else in the banner.
 */
function showErrors(form, envelope) {
  const error = envelope?.error ?? { message: "The run could not start." };
  const details = error.details ?? {};
  let placed = false;
  for (const defect of Array.isArray(details.errors) ? details.errors : []) {
    const slot = errorSlot(form, defect.parameter);
    if (!slot || !defect.message) continue;
    markField(slot, sentence(defect.message));
    placed = true;
  }
  if (placed) return;
  const slot = errorSlot(form, details.parameter ?? details.field ?? details.name);
  if (slot) {
    markField(
      slot,
      details.reason ? sentence(details.reason) : error.user_message ?? error.message,
    );
    return;
  }
  const banner = form.querySelector("[data-form-error]");
  banner.textContent = `${error.user_message ?? error.message} (${error.code ?? "error"})`;
  banner.hidden = false;
}

async function startRun(form, startUrl) {
  for (const slot of form.querySelectorAll("[data-error-for]")) slot.textContent = "";
  for (const input of form.querySelectorAll("[aria-invalid]")) {
    input.removeAttribute("aria-invalid");
  }
  form.querySelector("[data-form-error]").hidden = true;
  const parameters = {};
  for (const input of form.querySelectorAll("[data-type]")) {
    const value = typedValue(input);
    if (value !== undefined) parameters[input.name] = value;
  }
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  try {
    const res = await fetch(startUrl, {
      method: "POST",
      headers: {
        accept: "text/event-stream",
        "content-type": "application/json",
        "SVC-CSRF-Token": csrfToken(),
      },
      body: JSON.stringify({ parameters }),
    });
    if (!res.ok) {
      showErrors(form, await res.json().catch(() => null));
      return;
    }
    const id = res.headers.get("SVC-Execution-Id");
    const pending = [];
    let view = null;
    const mount = fetch(`/partials/runs/${id}`, { headers: { "HX-Request": "true" } })
      .then((r) => r.text())
      .then((html) => {
        const live = document.getElementById("run-live");
        live.innerHTML = html;
        view = new RunView(live.querySelector("[data-run]"));
        if (globalThis.htmx) globalThis.htmx.process(live);
        for (const [t, d] of pending.splice(0)) view.apply(t, d);
      });
    history.replaceState(null, "", `/runs/${id}`);
    for await (const { event, data } of sseFrames(res.body)) {
      if (view) view.apply(event, data);
      else pending.push([event, data]);
    }
    await mount;
    await view.refresh();
  } finally {
    button.disabled = false;
  }
}

function followRun(view) {
  const source = new EventSource(`/api/v1/executions/${view.id}/events`);
  const terminal = ["pipeline_completed", "pipeline_failed", "execution_aborted"];
  for (
    const type of [
      "node_started",
      "node_progress",
      "node_completed",
      "node_failed",
      ...terminal,
      "data_ready",
    ]
  ) {
    source.addEventListener(type, (e) => {
      view.apply(type, JSON.parse(e.data));
      if (type === "data_ready" || type === "pipeline_failed" || type === "execution_aborted") {
        source.close();
        view.refresh();
      }
    });
  }
  source.onerror = () => {
    // The server closes the stream after the terminal event; a reconnect would replay it all.
    source.close();
    view.refresh();
  };
}

/**
 * Plays a finished run's stored events again on its view: every node back to idle, then each
 * event at its original pace (gaps capped at half a second), from the replay route's JSON form.
 */
async function replayRun(view, button) {
  const res = await fetch(`/api/v1/executions/${view.id}/events`, {
    headers: { accept: "application/json" },
  });
  if (!res.ok) return;
  const { data } = await res.json();
  button.disabled = true;
  // The stored stream ends with each node's row count: on a replay every bar knows its total.
  for (const { event, data: payload } of data.events) {
    if (event === "node_completed" && payload.rows_out != null) {
      view.totals.set(payload.node_id, payload.rows_out);
    }
  }
  view.finished.clear();
  view.countFinished();
  const box = view.root.querySelector("[data-run-progress-box]");
  if (box) box.hidden = false;
  for (const row of view.root.querySelectorAll("[data-node-row]")) {
    view.setNode(row.dataset.nodeRow, "idle", { progress: null });
  }
  view.replaying = true;
  view.clearTimeline();
  let last = null;
  for (const { event, data: payload } of data.events) {
    const at = Date.parse(payload.observed_at ?? payload.completed_at ?? payload.started_at ?? "");
    if (last !== null && !Number.isNaN(at)) {
      await new Promise((r) => setTimeout(r, Math.min(500, Math.max(0, at - last))));
    }
    if (!Number.isNaN(at)) last = at;
    view.apply(event, payload);
  }
  view.replaying = false;
  button.disabled = false;
}

document.addEventListener("click", (e) => {
  const button = e.target.closest?.("[data-replay]");
  const root = button?.closest("[data-run]");
  if (button && root) replayRun(new RunView(root), button);
});

document.addEventListener("DOMContentLoaded", () => {
  const card = document.querySelector("[data-run-start]");
  const form = card?.querySelector("[data-run-form]");
  if (form) {
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      startRun(form, card.dataset.runStart);
    });
    form.querySelector("button[type=submit]").disabled = false;
  }
  const live = document.querySelector("[data-run][data-live]");
  if (live) followRun(new RunView(live));
});
