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
const bytes = new Uint8Array(16);

/**
 * Random bytes from the system CSPRNG, drawn 4 KiB at a time and each used once: on the serve
 * path a request mints an id or three, each in a new millisecond, and a CSPRNG call plus a fresh
 * typed array for the counter's seed cost more than the rest of the id.
 */
const pool = new Uint8Array(4096);
let drawn = pool.length;

/** A time-ordered (version 7) UUID, lowercase, monotonic within this process. */
export function newId(): string {
  const now = Date.now();
  if (drawn + 10 > pool.length) {
    crypto.getRandomValues(pool);
    drawn = 0;
  }
  // Bytes 6 to 15: 6 and 7 seed the counter in a new millisecond (then hold the counter), the
  // rest stay random.
  bytes.set(pool.subarray(drawn, drawn + 10), 6);
  drawn += 10;
  if (now > lastMs) {
    lastMs = now;
    counter = ((bytes[6] << 8) | bytes[7]) & 0x7ff;
  } else if (++counter > 0xfff) {
    // 4096 ids in one millisecond: borrow the next one rather than repeat an order.
    lastMs++;
    counter = 0;
  }
  let ms = lastMs;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const b = bytes;
  const x = HEX;
  return x[b[0]] + x[b[1]] + x[b[2]] + x[b[3]] + "-" + x[b[4]] + x[b[5]] + "-" + x[b[6]] +
    x[b[7]] + "-" + x[b[8]] + x[b[9]] + "-" + x[b[10]] + x[b[11]] + x[b[12]] + x[b[13]] +
    x[b[14]] + x[b[15]];
}

/** True for the canonical 8-4-4-4-12 hexadecimal form, any version. */
export function isUuid(value: unknown): value is string {
  return typeof value === "string" && UUID_RE.test(value);
}
