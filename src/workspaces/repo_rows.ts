/** Row decoding shared by the workspace repos (repo.ts, members_repo.ts, resolve_repo.ts). */
import { bool, type Row } from "../store/mod.ts";
import type { MembershipFlags } from "./types.ts";

/** A column read as text. */
export const str = (v: unknown): string => String(v);

/** The three flag columns of a membership or invitation row. */
export function rowFlags(r: Row): MembershipFlags {
  return { author: bool(r.author), promoter: bool(r.promoter), admin: bool(r.admin) };
}

/** Flags when the row carries a joined membership (`member_id` not null), else null. */
export function joinedFlags(r: Row): MembershipFlags | null {
  return r.member_id === null || r.member_id === undefined ? null : rowFlags(r);
}
