/**
 * Identifiers: UUIDs minted by the application so both stores behave alike.
 *
 * They are version 7 (RFC 9562): a millisecond timestamp first, then a 12-bit counter that
 * restarts at a random value below 2048 each millisecond. Ids minted by one process therefore sort
 * in minting order, also within one millisecond, so `ORDER BY timestamp, id` is a stable,
 * insertion-ordered sort (the audit log pages by it) on both stores: PostgreSQL compares UUIDs
 * bytewise and SQLite compares the lowercase text, which agree.
 */

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

let lastMs = 0;
let counter = 0;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
const random = new Uint8Array(16);

/** A time-ordered (version 7) UUID, lowercase, monotonic within this process. */
export function newId(): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    counter = crypto.getRandomValues(new Uint16Array(1))[0] & 0x7ff;
  } else if (++counter > 0xfff) {
    // 4096 ids in one millisecond: borrow the next one rather than repeat an order.
    lastMs++;
    counter = 0;
  }
  const bytes = crypto.getRandomValues(random);
  let ms = lastMs;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const h = (from: number, to: number) => {
    let out = "";
    for (let i = from; i < to; i++) out += HEX[bytes[i]];
    return out;
  };
  return `${h(0, 4)}-${h(4, 6)}-${h(6, 8)}-${h(8, 10)}-${h(10, 16)}`;
}

/** True for the canonical 8-4-4-4-12 hexadecimal form, any version. */
export function isUuid(value: unknown): value is string {
  return typeof value === "string" && UUID_RE.test(value);
}
