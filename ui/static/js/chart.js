// Draws the result page's chart with uPlot from the spec the server chose (ui/pages/result.tsx):
// a line over a time axis, else bars over the labels; one series at a time, picked in the header,
// because result columns rarely share a scale.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const holder = document.querySelector("[data-chart]");
  const specNode = holder?.querySelector("[data-chart-spec]");
  if (!holder || !specNode || !globalThis.uPlot) return;
  const spec = JSON.parse(specNode.textContent);
  const picker = document.querySelector("[data-chart-series]");
  // Custom properties read back unresolved (light-dark(...)); an element's colour is resolved.
  const resolve = (token) => {
    const probe = document.createElement("span");
    probe.style.color = `var(${token})`;
    holder.append(probe);
    const rgb = getComputedStyle(probe).color;
    probe.remove();
    return rgb;
  };
  const alpha = (rgb, a) => rgb.replace(/^rgb\((.*)\)$/, `rgba($1, ${a})`);
  const accent = resolve("--accent");
  const muted = resolve("--muted");
  const grid = resolve("--line");
  const compact = new Intl.NumberFormat(undefined, {
    notation: "compact",
    maximumFractionDigits: 1,
  });
  const xs = spec.x.map((_, i) => i);
  let plot = null;

  function draw(index) {
    plot?.destroy();
    const series = spec.series[index];
    const axis = {
      stroke: muted,
      grid: { stroke: grid, width: 1 },
      ticks: { stroke: grid, width: 1 },
    };
    plot = new globalThis.uPlot(
      {
        width: Math.max(320, holder.clientWidth - 16),
        height: 300,
        legend: { show: false },
        cursor: { points: { show: spec.kind !== "bar" } },
        scales: {
          x: { time: false, range: [-0.5, xs.length - 0.5] },
          // Bars grow from zero, or they lie about proportions.
          y: spec.kind === "bar"
            ? { range: (_, min, max) => [Math.min(0, min), Math.max(0, max) * 1.08] }
            : {},
        },
        axes: [
          {
            ...axis,
            values: (_, ticks) => ticks.map((t) => Number.isInteger(t) ? spec.x[t] ?? "" : ""),
          },
          { ...axis, size: 64, values: (_, ticks) => ticks.map((t) => compact.format(t)) },
        ],
        series: [
          {},
          {
            label: series.name,
            stroke: accent,
            fill: alpha(accent, spec.kind === "bar" ? 0.75 : 0.12),
            width: 2,
            paths: spec.kind === "bar"
              ? globalThis.uPlot.paths.bars({ size: [0.6, 64] })
              : undefined,
          },
        ],
      },
      [xs, series.values],
      holder,
    );
  }

  picker?.addEventListener("change", () => draw(Number(picker.value)));
  draw(0);
});
