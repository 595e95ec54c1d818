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
