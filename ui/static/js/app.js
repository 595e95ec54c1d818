// The little behaviour pages need beyond htmx, kept out of inline handlers so the
// Content-Security-Policy can forbid inline script.
document.addEventListener("htmx:afterRequest", (event) => {
  const button = event.detail.elt.closest?.("[data-theme-choice]");
  if (!button || !event.detail.successful) return;
  document.documentElement.dataset.theme = button.dataset.themeChoice;
  for (const other of document.querySelectorAll("[data-theme-choice]")) {
    other.setAttribute("aria-pressed", String(other === button));
  }
});

// A refused save answers with its editor drawn again under the form's post address; the address
// bar goes back to the page's own, so a reload opens the editor instead of re-posting.
{
  const page = document.querySelector("form[data-page-url]")?.dataset.pageUrl;
  if (page && location.pathname.startsWith("/partials/")) history.replaceState(null, "", page);
}

// A copy button names the element whose text it copies; it says so briefly, then reverts.
document.addEventListener("click", async (event) => {
  const button = event.target.closest?.("[data-copy]");
  if (!button) return;
  const source = document.getElementById(button.dataset.copy);
  if (!source || !navigator.clipboard) return;
  await navigator.clipboard.writeText(source.textContent ?? "");
  const label = button.textContent;
  button.textContent = "Copied";
  setTimeout(() => button.textContent = label, 1500);
});

// A guarded act (ui/components/confirm.tsx): the link draws its page with the dialog open; here
// the dialog is fetched from that page and shown modal instead, so the page stays put.
function showConfirm(dialog, trigger) {
  // Not close(): its "close" event is queued, and would reach the listener below and remove the
  // dialog just shown (a page opened at its `?confirm=` address).
  if (dialog.open) dialog.removeAttribute("open");
  dialog.addEventListener("close", () => {
    dialog.remove();
    trigger?.focus();
  }, { once: true });
  dialog.showModal();
}

document.addEventListener("click", async (event) => {
  const trigger = event.target.closest?.("a[data-confirm]");
  if (!trigger || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  event.preventDefault();
  const res = await fetch(trigger.href, { headers: { accept: "text/html" } });
  const found = res.ok
    ? new DOMParser().parseFromString(await res.text(), "text/html")
      .querySelector("dialog[data-confirm-dialog]")
    : null;
  if (!found) return location.assign(trigger.href);
  document.getElementById(found.id)?.remove();
  const dialog = document.importNode(found, true);
  dialog.removeAttribute("open");
  document.body.append(dialog);
  // An act sent through htmx (a PATCH partial) needs its form known to htmx.
  globalThis.htmx?.process(dialog);
  showConfirm(dialog, trigger);
});

// An act sent through htmx closes its dialog once answered; the answer lands on the page.
document.addEventListener("htmx:afterRequest", (event) => {
  const dialog = event.detail.elt.closest?.("dialog[data-confirm-dialog]");
  if (dialog?.open) dialog.close();
});

document.addEventListener("click", (event) => {
  const dialog = event.target.closest?.("[data-confirm-cancel]")?.closest("dialog");
  if (!dialog?.open) return;
  event.preventDefault();
  dialog.close();
});

// Opened from its own address (`?confirm=`): the same dialog, made modal.
for (const dialog of document.querySelectorAll("dialog[data-confirm-dialog][open]")) {
  showConfirm(dialog, null);
}
// A link naming a dialog already on the page opens it as a modal (focus kept inside, Escape
// closes); without the script the link loads a page with the dialog drawn open. Its Cancel is a
// `data-confirm-cancel` link, closed by the handler above.
document.addEventListener("click", (event) => {
  const opener = event.target.closest?.("[data-dialog]");
  const dialog = opener && document.getElementById(opener.dataset.dialog);
  if (!dialog?.showModal) return;
  event.preventDefault();
  if (dialog.open) dialog.close();
  dialog.showModal();
});

// A region marked so shows a refusal (4xx) in place too: its form answers with itself, the
// error on the field it names. htmx otherwise drops an error answer.
document.addEventListener("htmx:beforeSwap", (event) => {
  const status = event.detail.xhr.status;
  if (event.detail.target?.closest?.("[data-swap-refusal]") && status >= 400 && status < 500) {
    event.detail.shouldSwap = true;
    event.detail.isError = false;
  }
});

// A secret shown once leaves the page with the person: Back (the back-forward cache) finds only
// a note where it was.
addEventListener("pagehide", () => {
  for (const shown of document.querySelectorAll("[data-shown-once]")) {
    shown.replaceChildren("No longer shown: it was shown only once.");
  }
});

// The menu button of a narrow window (the app's ui/layouts/shell.tsx, the public site's
// ui/layouts/base.tsx) folds the navigation it controls open and shut; Escape, or a click
// elsewhere, shuts it and gives the focus back to the button.
function setNav(button, open) {
  button.setAttribute("aria-expanded", String(open));
  document.getElementById(button.getAttribute("aria-controls"))?.classList.toggle("open", open);
}
document.addEventListener("click", (event) => {
  const toggle = document.querySelector(".nav-toggle");
  if (!toggle) return;
  if (event.target.closest?.(".nav-toggle")) {
    setNav(toggle, toggle.getAttribute("aria-expanded") !== "true");
  } else if (
    toggle.getAttribute("aria-expanded") === "true" &&
    !event.target.closest?.(`#${toggle.getAttribute("aria-controls")}`)
  ) {
    setNav(toggle, false);
  }
});
document.addEventListener("keydown", (event) => {
  const toggle = document.querySelector(".nav-toggle[aria-expanded='true']");
  if (event.key !== "Escape" || !toggle) return;
  setNav(toggle, false);
  toggle.focus();
});

// A box that scrolls sideways on a narrow window (a card's wide table, a code block, a graph)
// must take the focus for the keyboard to scroll it, unless something in it already does.
// Checked on load, on a resize and whenever the page changes (htmx swaps, the live run view).
const SCROLLERS = ".card, .form-section, .table-scroll, pre, .dag-wrap, .public > table";
const FOCUSABLE = "a[href], button, input, select, textarea, [tabindex]";
function focusableScrollers() {
  for (const box of document.querySelectorAll(SCROLLERS)) {
    const marked = box.hasAttribute("data-scroll-focus");
    if (box.hasAttribute("tabindex") && !marked) continue;
    const needs = box.scrollWidth > box.clientWidth + 1 && !box.querySelector(FOCUSABLE);
    if (needs && !marked) {
      box.tabIndex = 0;
      box.setAttribute("data-scroll-focus", "");
    } else if (!needs && marked && box.scrollWidth <= box.clientWidth + 1) {
      box.removeAttribute("tabindex");
      box.removeAttribute("data-scroll-focus");
    }
  }
}
let scrollCheck = 0;
function checkScrollersSoon() {
  cancelAnimationFrame(scrollCheck);
  scrollCheck = requestAnimationFrame(focusableScrollers);
}
focusableScrollers();
addEventListener("resize", checkScrollersSoon);
new MutationObserver(checkScrollersSoon).observe(document.body, { childList: true, subtree: true });
