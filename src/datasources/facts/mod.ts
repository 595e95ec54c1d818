/** Learned facts: storage, visibility, conflicts and the drift check. */
export { columnFingerprint } from "./fingerprint.ts";
export * from "./read.ts";
export * from "./record.ts";
export * from "./types.ts";
