/**
 * The smallest POSIX tar (ustar) the backup file needs: regular files only, written and read as
 * streams so a database of gigabytes never sits in memory. Plain tar, so an operator can list or
 * unpack a backup with `tar -tvf` / `tar -xf` and needs no tool of ours to see what is inside.
 *
 * Sizes past ustar's 11 octal digits (8 GiB) use the base-256 form GNU tar and bsdtar both read.
 */

const BLOCK = 512;
const OCTAL_SIZE_MAX = 8 ** 11 - 1;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface TarEntry {
  name: string;
  size: number;
  /** Permission bits, e.g. 0o600. */
  mode: number;
  /** Seconds since the epoch. */
  mtime: number;
}

function putString(block: Uint8Array, offset: number, length: number, text: string) {
  const bytes = encoder.encode(text);
  if (bytes.length > length) throw new Error(`tar: "${text}" is longer than ${length} bytes`);
  block.set(bytes, offset);
}

function putOctal(block: Uint8Array, offset: number, length: number, value: number) {
  putString(block, offset, length, value.toString(8).padStart(length - 1, "0") + "\0");
}

function putSize(block: Uint8Array, size: number) {
  if (size <= OCTAL_SIZE_MAX) return putOctal(block, 124, 12, size);
  // Base-256: the high bit of the first byte set, the value big-endian in the rest.
  let rest = BigInt(size);
  for (let i = 124 + 11; i > 124; i--) {
    block[i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  block[124] = 0x80;
}

function checksum(block: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : block[i];
  return sum;
}

/** The 512-byte ustar header of a regular file. */
export function tarHeader(entry: TarEntry): Uint8Array {
  if (!/^[\x20-\x7e]+$/.test(entry.name) || entry.name.length > 100) {
    throw new Error(`tar: unsupported entry name "${entry.name}"`);
  }
  const block = new Uint8Array(BLOCK);
  putString(block, 0, 100, entry.name);
  putOctal(block, 100, 8, entry.mode & 0o7777);
  putOctal(block, 108, 8, 0); // uid
  putOctal(block, 116, 8, 0); // gid
  putSize(block, entry.size);
  putOctal(block, 136, 12, Math.floor(entry.mtime));
  block[156] = "0".charCodeAt(0); // regular file
  putString(block, 257, 6, "ustar\0");
  putString(block, 263, 2, "00");
  putString(block, 148, 8, checksum(block).toString(8).padStart(6, "0") + "\0 ");
  return block;
}

const padding = (size: number) => (BLOCK - (size % BLOCK)) % BLOCK;

/** Writes entries one after another to `out`; `finish` adds the end-of-archive blocks. */
export class TarWriter {
  readonly #out: WritableStreamDefaultWriter<Uint8Array>;

  constructor(out: WritableStream<Uint8Array>) {
    this.#out = out.getWriter();
  }

  /** Adds a file whose content is `body` (bytes, or a stream of exactly `entry.size` bytes). */
  async add(entry: TarEntry, body: Uint8Array | ReadableStream<Uint8Array>): Promise<void> {
    await this.#out.write(tarHeader(entry));
    let written = 0;
    const chunks = body instanceof Uint8Array ? [body] : body;
    for await (const chunk of chunks) {
      written += chunk.length;
      if (written > entry.size) break;
      await this.#out.write(chunk);
    }
    if (written !== entry.size) {
      throw new Error(
        `tar: ${entry.name} gave ${written} bytes where ${entry.size} were announced`,
      );
    }
    const pad = padding(entry.size);
    if (pad) await this.#out.write(new Uint8Array(pad));
  }

  async finish(): Promise<void> {
    await this.#out.write(new Uint8Array(2 * BLOCK));
    await this.#out.close();
  }
}

function readString(block: Uint8Array, offset: number, length: number): string {
  const field = block.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return decoder.decode(end < 0 ? field : field.subarray(0, end));
}

function readNumber(block: Uint8Array, offset: number, length: number): number {
  if (block[offset] & 0x80) {
    let value = BigInt(block[offset] & 0x7f);
    for (let i = offset + 1; i < offset + length; i++) value = (value << 8n) | BigInt(block[i]);
    return Number(value);
  }
  const text = readString(block, offset, length).trim();
  return text === "" ? 0 : parseInt(text, 8);
}

/**
 * Reads a tar stream entry by entry. Each entry's body must be read (`bytes` or `pipeTo`) or
 * skipped before the next `next()`.
 */
export class TarReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  #buffer: Uint8Array = new Uint8Array(0);
  #pending = 0;

  constructor(input: ReadableStream<Uint8Array>) {
    this.#reader = input.getReader();
  }

  /** The next regular file's header, or null at the end of the archive. */
  async next(): Promise<TarEntry | null> {
    if (this.#pending > 0) await this.#drain(this.#pending, () => {});
    for (;;) {
      const block = await this.#take(BLOCK);
      if (!block || block.every((b) => b === 0)) return null;
      const stored = readNumber(block, 148, 8);
      if (stored !== checksum(block)) throw new Error("tar: a header's checksum does not match");
      const size = readNumber(block, 124, 12);
      const prefix = readString(block, 345, 155);
      const name = readString(block, 0, 100);
      const type = String.fromCharCode(block[156] || 48);
      this.#pending = size + padding(size);
      if (type === "0" || type === "7") {
        return {
          name: prefix ? `${prefix}/${name}` : name,
          size,
          mode: readNumber(block, 100, 8),
          mtime: readNumber(block, 136, 12),
        };
      }
      // Directories, links and extended headers carry nothing a backup needs.
      await this.#drain(this.#pending, () => {});
      this.#pending = 0;
    }
  }

  /** The current entry's body as one array (for small entries). */
  async bytes(size: number): Promise<Uint8Array> {
    const out = new Uint8Array(size);
    let at = 0;
    await this.#body(size, (chunk) => {
      out.set(chunk, at);
      at += chunk.length;
    });
    return out;
  }

  /** Streams the current entry's body (of `size` bytes) through `sink`. */
  async pipeTo(size: number, sink: (chunk: Uint8Array) => Promise<void> | void): Promise<void> {
    await this.#body(size, sink);
  }

  async #body(size: number, sink: (chunk: Uint8Array) => Promise<void> | void) {
    await this.#drain(size, sink);
    await this.#drain(padding(size), () => {});
    this.#pending = 0;
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }

  async #fill(): Promise<boolean> {
    const { value, done } = await this.#reader.read();
    if (done) return false;
    if (this.#buffer.length === 0) {
      this.#buffer = value;
      return true;
    }
    const merged = new Uint8Array(this.#buffer.length + value.length);
    merged.set(this.#buffer);
    merged.set(value, this.#buffer.length);
    this.#buffer = merged;
    return true;
  }

  async #take(n: number): Promise<Uint8Array | null> {
    while (this.#buffer.length < n) {
      if (!(await this.#fill())) {
        if (this.#buffer.length === 0) return null;
        throw new Error("tar: the archive ends inside a block (truncated file?)");
      }
    }
    const out = this.#buffer.slice(0, n);
    this.#buffer = this.#buffer.subarray(n);
    return out;
  }

  async #drain(n: number, sink: (chunk: Uint8Array) => Promise<void> | void) {
    let left = n;
    while (left > 0) {
      if (this.#buffer.length === 0 && !(await this.#fill())) {
        throw new Error("tar: the archive ends inside an entry (truncated file?)");
      }
      const part = this.#buffer.subarray(0, Math.min(left, this.#buffer.length));
      this.#buffer = this.#buffer.subarray(part.length);
      left -= part.length;
      await sink(part);
    }
  }
}
