/**
 * Reads a `/metrics` answer with an independent parser of the Prometheus text format
 * (parse-prometheus-text-format), never with prom-client that wrote it. The parser folds a
 * histogram's series into one object and keeps only unlabelled ones whole, so its samples are
 * read a second time with histograms declared untyped: then every `_bucket`, `_sum` and `_count`
 * line is a family of its own, labels intact. Both readings must parse, or the text is wrong.
 */
import parsePrometheusTextFormat from "parse-prometheus-text-format";

interface Family {
  name: string;
  help: string;
  type: string;
  metrics: { value?: string; labels?: Record<string, string> }[];
}

export interface Exposition {
  /** The family's declared type (COUNTER, GAUGE, HISTOGRAM, UNTYPED), undefined when absent. */
  type(name: string): string | undefined;
  /** The sum of every sample of `name` whose labels include `labels`; 0 when none. */
  value(name: string, labels?: Record<string, string>): number;
  /** Every label set `name` has samples for. */
  labels(name: string): Record<string, string>[];
}

export function readExposition(text: string): Exposition {
  const declared = parsePrometheusTextFormat(text) as Family[];
  const flat = parsePrometheusTextFormat(
    text.replace(/^# TYPE (\S+) histogram$/gm, "# TYPE $1 untyped"),
  ) as Family[];
  const types = new Map(declared.map((f) => [f.name, f.type]));
  const byName = new Map<string, Family["metrics"]>();
  for (const f of flat) byName.set(f.name, [...(byName.get(f.name) ?? []), ...f.metrics]);
  const matching = (name: string, labels: Record<string, string>) =>
    (byName.get(name) ?? []).filter((m) =>
      Object.entries(labels).every(([k, v]) => m.labels?.[k] === v)
    );
  return {
    type: (name) => types.get(name),
    value: (name, labels = {}) =>
      matching(name, labels).reduce((sum, m) => sum + Number(m.value ?? 0), 0),
    labels: (name) => (byName.get(name) ?? []).map((m) => m.labels ?? {}),
  };
}
