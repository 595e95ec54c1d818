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
