/**
 * The demo workspace's example content (docs/executions.md#demo-content): generated DuckDB and
 * SQLite files, their datasources, released templates and pipelines, seeded once at first boot.
 */
export { CRM, DEMO_PIPELINES, DEMO_TEMPLATES, SHOP } from "./content.ts";
export { DEMO_COUNTRIES, DEMO_SEGMENTS, demoFiles, generateDemoFiles } from "./data.ts";
export { type DemoSeedDeps, type DemoSeedOutcome, seedDemoContent, SEEDED_EVENT } from "./seed.ts";
