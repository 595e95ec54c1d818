// Draws a result's chart with uPlot from the data the server chose (ui/components/result_chart.tsx)
// and the pickers beside it: x, one or more series, and line, bar or scatter. The picks are
// remembered per pipeline in this browser; the chart follows theme switches and resizes, and a
// chart that arrives later (a live run's result) is drawn when it lands.
"use strict";

const SERIES_TOKENS = ["--series-1", "--series-2", "--series-3", "--series-4", "--series-5"];
const compact = new Intl.NumberFormat(undefined, { notation: "compact", maximumFractionDigits: 1 });

/** Custom properties read back unresolved (light-dark(...)); an element's colour is resolved. */
function colour(holder, token) {
  const probe = document.createElement("span");
  probe.style.color = `var(${token})`;
  holder.append(probe);
  const rgb = getComputedStyle(probe).color;
  probe.remove();
  return rgb;
}

const alpha = (rgb, a) => rgb.replace(/^rgb\((.*)\)$/, `rgba($1, ${a})`);

function loadPicks(key) {
  try {
    return JSON.parse(localStorage.getItem(`chart:${key}`) ?? "null");
  } catch {
    return null;
  }
}

/** The controls' state, with remembered picks applied where they still fit this result. */
function restore(form, spec, key) {
  const picks = loadPicks(key);
  if (!picks) return;
  const names = new Set(spec.columns.map((c) => c.name));
  if (picks.x === "" || names.has(picks.x)) form.elements.x.value = picks.x;
  const ys = (picks.y ?? []).filter((n) => names.has(n));
  if (ys.length) {
    for (const box of form.querySelectorAll("input[name=y]")) box.checked = ys.includes(box.value);
  }
  if (["line", "bar", "scatter"].includes(picks.kind)) form.elements.kind.value = picks.kind;
}

function picksOf(form) {
  return {
    x: form.elements.x.value,
    y: [...form.querySelectorAll("input[name=y]:checked")].map((b) => b.value),
    kind: form.elements.kind.value,
  };
}

/** x values and one array per series, in x order where x is a number or a time. */
function series(spec, picks) {
  const at = (name) => spec.columns.findIndex((c) => c.name === name);
  const xi = at(picks.x);
  const role = xi < 0 ? "row" : spec.columns[xi].role;
  const n = spec.values[0]?.length ?? 0;
  const ys = picks.y.map(at).filter((i) => i >= 0);
  let rows = [...Array(n).keys()];
  let xs;
  if (role === "time" || role === "measure") {
    const key = (i) => {
      const v = spec.values[xi][i];
      return v === null ? null : role === "time" ? Date.parse(v) / 1000 : Number(v);
    };
    rows = rows.filter((i) => Number.isFinite(key(i))).sort((a, b) => key(a) - key(b));
    xs = rows.map(key);
  } else {
    xs = rows.map((_, k) => k);
  }
  const labels = role === "text" ? rows.map((i) => spec.values[xi][i] ?? "") : null;
  return {
    role,
    xs,
    labels,
    ys: ys.map((i) => ({ name: spec.columns[i].name, values: rows.map((r) => spec.values[i][r]) })),
  };
}

/** Every `step`th label, so they never overlap; long ones cut. */
function labelAxis(labels, width) {
  const step = Math.max(1, Math.ceil(labels.length / Math.max(1, Math.floor(width / 90))));
  return {
    splits: () => labels.map((_, i) => i).filter((i) => i % step === 0),
    values: (_, ticks) =>
      ticks.map((t) => {
        const text = labels[t] ?? "";
        return text.length > 14 ? `${text.slice(0, 13)}…` : text;
      }),
  };
}

function options(holder, data, picks, width) {
  const muted = colour(holder, "--muted");
  const grid = colour(holder, "--line");
  const colours = SERIES_TOKENS.map((t) => colour(holder, t));
  const axis = {
    stroke: muted,
    grid: { stroke: grid, width: 1 },
    ticks: { stroke: grid, width: 1 },
  };
  const categorical = data.role === "text" || data.role === "row";
  const k = data.ys.length;
  const groupWidth = 0.8;
  const xAxis = data.labels
    ? { ...axis, ...labelAxis(data.labels, width) }
    : data.role === "row"
    ? { ...axis, values: (_, ticks) => ticks.map((t) => Number.isInteger(t) ? t + 1 : "") }
    : data.role === "measure"
    ? { ...axis, values: (_, ticks) => ticks.map((t) => compact.format(t)) }
    : axis;
  return {
    width,
    height: 300,
    legend: { show: k > 1 },
    cursor: { points: { show: picks.kind !== "bar" } },
    scales: {
      x: categorical
        ? { time: false, range: [-0.5, data.xs.length - 0.5] }
        : { time: data.role === "time" },
      // Bars grow from zero, or they lie about proportions.
      y: picks.kind === "bar"
        ? { range: (_, min, max) => [Math.min(0, min), Math.max(0, max) * 1.08] }
        : {},
    },
    axes: [xAxis, { ...axis, size: 64, values: (_, ticks) => ticks.map((t) => compact.format(t)) }],
    series: [
      {},
      ...data.ys.map((s, j) => {
        const stroke = colours[j % colours.length];
        const base = { label: s.name, stroke, width: 2 };
        if (picks.kind === "scatter") {
          return { ...base, paths: () => null, points: { show: true, size: 7, fill: stroke } };
        }
        if (picks.kind === "line") return { ...base, fill: alpha(stroke, k > 1 ? 0 : 0.12) };
        // Grouped bars: each series its slice of the category's width.
        const bar = groupWidth / k;
        return {
          ...base,
          points: { show: false },
          fill: alpha(stroke, 0.8),
          paths: globalThis.uPlot.paths.bars(
            categorical
              ? {
                disp: {
                  x0: { unit: 1, values: () => data.xs.map((x) => x - groupWidth / 2 + j * bar) },
                  size: { unit: 1, values: () => [bar] },
                },
              }
              : { size: [0.6 / k, 64] },
          ),
        };
      }),
    ],
  };
}

function draw(root) {
  const holder = root.querySelector("[data-chart]");
  const form = root.querySelector("[data-chart-controls]");
  const spec = JSON.parse(holder.querySelector("[data-chart-spec]").textContent);
  const key = holder.dataset.chartKey;
  restore(form, spec, key);
  let plot = null;
  const render = () => {
    const picks = picksOf(form);
    plot?.destroy();
    plot = null;
    if (picks.y.length === 0) return;
    const data = series(spec, picks);
    const width = Math.max(280, holder.clientWidth - 16);
    plot = new globalThis.uPlot(
      options(holder, data, picks, width),
      [data.xs, ...data.ys.map((s) => s.values)],
      holder,
    );
  };
  form.addEventListener("change", () => {
    localStorage.setItem(`chart:${key}`, JSON.stringify(picksOf(form)));
    render();
  });
  render();
  // Colours are read when drawing, so a theme switch (in the app or the system) redraws.
  new MutationObserver(render).observe(document.documentElement, {
    attributes: true,
    attributeFilter: ["data-theme"],
  });
  matchMedia("(prefers-color-scheme: dark)").addEventListener("change", render);
  let width = holder.clientWidth;
  new ResizeObserver(() => {
    if (Math.abs(holder.clientWidth - width) < 8) return;
    width = holder.clientWidth;
    render();
  }).observe(holder);
}

function drawNew() {
  if (!globalThis.uPlot) return;
  for (const root of document.querySelectorAll("[data-chart-root]:not([data-drawn])")) {
    root.dataset.drawn = "true";
    draw(root);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  drawNew();
  // A live run's view is replaced when its result lands.
  new MutationObserver(drawNew).observe(document.body, { childList: true, subtree: true });
});
