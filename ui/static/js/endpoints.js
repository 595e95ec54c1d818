// The endpoint pages' behaviour beyond plain forms: the publish form's path builder, and the
// try-it panel, which calls `GET /api/x/...` from this page with one of the viewer's keys.
//
// A key's secret lives only in this script's memory (or, for a key just made, in the one answer
// that shows it): it travels as the `SVC-API-Key` header of the call and nowhere else, never in a
// URL, a cookie or browser storage. The call sends no cookie (`credentials: "omit"`), so the key
// alone decides, exactly as for a program.
"use strict";

// ---- The path builder (ui/pages/endpoint_publish.tsx). ----
const pathInput = document.querySelector("[data-path-input]");
if (pathInput) {
  const url = document.getElementById("publish-url");
  const chips = [...document.querySelectorAll("[data-path-append]")];
  const sync = () => {
    if (url) url.textContent = `GET ${url.dataset.origin}/api/x${pathInput.value}`;
    // A variable appears once in a path: its proposal is spent once used.
    for (const chip of chips) {
      chip.disabled = pathInput.value.includes(chip.dataset.pathAppend.slice(1));
    }
  };
  pathInput.addEventListener("input", sync);
  for (const chip of chips) {
    chip.addEventListener("click", () => {
      pathInput.value = pathInput.value.replace(/\/+$/, "") + chip.dataset.pathAppend;
      sync();
      pathInput.focus();
    });
  }
  sync();
}

// ---- The try-it panel (ui/components/endpoint_try.tsx). ----
const panel = document.querySelector("[data-try]");
if (panel) tryPanel(panel);

/** A value as one URL component; `!'()*` too, so the curl line is safe inside double quotes. */
function component(value) {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16));
}

function tryPanel(panel) {
  const pattern = panel.dataset.try;
  const origin = panel.dataset.origin;
  const form = document.getElementById("try-form");
  const keySelect = document.getElementById("try-key");
  const secretInput = document.getElementById("try-secret");
  const secretField = panel.querySelector("[data-secret-field]");
  const createSlot = document.getElementById("key-create-slot");
  const curl = document.getElementById("try-curl");
  const note = document.getElementById("try-curl-note");
  const busy = document.getElementById("try-busy");
  const out = {
    box: document.getElementById("try-response"),
    status: document.getElementById("try-status"),
    timing: document.getElementById("try-timing"),
    error: document.getElementById("try-error"),
    table: document.getElementById("try-table"),
    body: document.getElementById("try-body"),
  };
  /** The key made in this panel: its secret, shown once, is usable until the page is left. */
  let created = null;

  const params = () =>
    [...form.querySelectorAll("[data-param]")].map((field) => ({
      name: field.dataset.param,
      path: field.dataset.in === "path",
      value: field.querySelector("input, select").value.trim(),
    }));

  /** The request's path and query, a missing path variable written `<name>`. */
  function target() {
    const values = params();
    const path = pattern.replace(/\{([a-z_][a-z0-9_]*)\}/g, (_, name) => {
      const v = values.find((p) => p.name === name)?.value;
      return v ? component(v) : `<${name}>`;
    });
    const query = values.filter((p) => !p.path && p.value !== "")
      .map((p) => `${component(p.name)}=${component(p.value)}`).join("&");
    return `/api/x${path}${query ? `?${query}` : ""}`;
  }

  const chosen = () => keySelect.value;
  const chosenName = () => keySelect.selectedOptions[0]?.dataset.name ?? "";
  const usingCreated = () => created && chosen() === created.id;

  function redraw() {
    const key = usingCreated() ? created.secret : "$KEY";
    curl.textContent = `curl -H "SVC-API-Key: ${key}" "${origin}${target()}"`;
    if (usingCreated()) {
      note.textContent = `With the key ${created.name} you just made; the call holds its secret, ` +
        "so keep it as you keep the key.";
    } else if (chosen() && chosen() !== "new") {
      note.textContent = `$KEY is the secret of your key ${chosenName()} (${chosen()}).`;
    } else {
      note.textContent = "$KEY is the secret of the key you choose.";
    }
    const pick = chosen();
    secretField.hidden = !pick || pick === "new" || usingCreated();
    if (createSlot) createSlot.hidden = pick !== "new" && !usingCreated();
  }

  function fieldError(name, message) {
    const slot = panel.querySelector(`[data-error-for="${CSS.escape(name)}"]`);
    if (!slot) return false;
    slot.textContent = message;
    const control = slot.closest(".field")?.querySelector("input, select");
    control?.setAttribute("aria-invalid", "true");
    return true;
  }

  function clearErrors() {
    for (const slot of panel.querySelectorAll("[data-error-for]")) slot.textContent = "";
    for (const c of panel.querySelectorAll("[aria-invalid]")) c.removeAttribute("aria-invalid");
    out.error.replaceChildren();
  }

  /** The key to send, or null after saying on its field what is missing. */
  function secret() {
    if (!chosen()) return fieldError("key", "Choose a key to call with."), null;
    if (chosen() === "new") {
      return fieldError("key", "Create the key below first; its secret is used at once."), null;
    }
    if (usingCreated()) return created.secret;
    const typed = secretInput.value.trim();
    if (!/^svck_[a-z2-7]+\.[a-z2-7]+$/.test(typed)) {
      return fieldError("secret", `Paste the secret of ${chosenName()} (svck_…).`), null;
    }
    return typed;
  }

  function banner(tone, ...parts) {
    const p = document.createElement("p");
    p.className = `banner ${tone}`;
    p.setAttribute("role", tone === "error" ? "alert" : "status");
    for (const part of parts) p.append(part);
    out.error.replaceChildren(p);
  }

  function code(text) {
    const c = document.createElement("code");
    c.textContent = text;
    return c;
  }

  function link(href, text) {
    const a = document.createElement("a");
    a.href = href;
    a.textContent = text;
    return a;
  }

  async function show(res) {
    const text = await res.text();
    let body = null;
    try {
      body = JSON.parse(text);
    } catch { /* not JSON: shown as it came */ }
    out.box.hidden = false;
    out.status.textContent = `${res.status} ${res.statusText}`.trim();
    out.status.className = `badge ${
      res.status === 200 ? "ok" : res.status === 202 ? "info" : "bad"
    }`;
    const timing = res.headers.get("server-timing");
    out.timing.textContent = timing ? `Server-Timing: ${timing}` : "";
    out.body.textContent = body ? JSON.stringify(body, null, 2) : text;
    out.table.replaceChildren();
    const run = res.headers.get("svc-execution-id");
    if (res.status === 200 && run) {
      // The rows as the result table draws them everywhere else (ui/components/result_table.tsx).
      const table = await fetch(`/partials/endpoints/result/${encodeURIComponent(run)}`, {
        headers: { accept: "text/html" },
      });
      if (table.ok) out.table.innerHTML = await table.text();
    } else if (res.status === 202 && run) {
      banner(
        "info",
        "The run took longer than the endpoint's timeout and goes on. ",
        link(`/runs/${encodeURIComponent(run)}`, "Follow the run"),
      );
    } else if (body?.error) {
      const { code: errorCode, message, details } = body.error;
      // Each parameter defect on its field (docs/endpoints.md#serving), the rest above the answer.
      for (const e of details?.errors ?? []) fieldError(e.parameter, `${e.message} (${e.code})`);
      banner("error", code(errorCode), " ", message);
    }
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors();
    const missing = params().filter((p) => p.path && p.value === "");
    for (const p of missing) fieldError(p.name, "A path segment cannot be empty.");
    const key = secret();
    if (!key || missing.length > 0) return;
    busy.textContent = "Calling…";
    try {
      await show(
        await fetch(target(), {
          headers: { "SVC-API-Key": key, accept: "application/json" },
          credentials: "omit",
          cache: "no-store",
        }),
      );
    } catch (e) {
      out.box.hidden = false;
      banner("error", `The call did not complete: ${e.message}`);
    } finally {
      busy.textContent = "";
    }
  });

  form.addEventListener("input", redraw);
  form.addEventListener("change", redraw);

  // A key made in the panel (the keys page's own form, answered in place): use it at once.
  document.body.addEventListener("htmx:afterSwap", (event) => {
    if (event.detail.target !== createSlot) return;
    const issued = createSlot.querySelector(".issued[data-key-id]");
    const secretText = document.getElementById("issued-secret")?.textContent?.trim();
    if (!issued || !secretText) return;
    created = { id: issued.dataset.keyId, name: issued.dataset.keyName, secret: secretText };
    const option = new Option(`${created.name} (just made)`, created.id, true, true);
    option.dataset.name = created.name;
    keySelect.querySelector('option[value="new"]')?.before(option);
    keySelect.value = created.id;
    const hint = document.getElementById("try-key-hint");
    if (hint) hint.textContent = "Your live keys pinned to this workspace that can reach it.";
    redraw();
    createSlot.hidden = false;
  });

  redraw();
}
