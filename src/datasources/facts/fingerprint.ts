/**
 * The per-table column fingerprint facts are checked against: SHA-256 over the table's columns as
 * sorted `name:type` lines, `type` being the canonical wire type. Column order and source-type
 * spelling (varchar(20) → varchar(50), int4 vs integer across driver versions) do not move it; an
 * added, removed or renamed column, or a change of wire type, does.
 */
import { sha256HexSync } from "../../lib/hashing.ts";
import type { FingerprintColumn } from "./types.ts";

export function columnFingerprint(columns: FingerprintColumn[]): string {
  const lines = columns.map((c) => `${c.name}:${c.type}`).sort();
  return `sha256:${sha256HexSync(lines.join("\n"))}`;
}
