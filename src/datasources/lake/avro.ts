/**
 * Avro object-container files in memory, through `avsc`: the manifest list and manifests of an
 * Iceberg table are such files. Reading whole files is fine: manifests are metadata, small.
 * `avsc` is loaded with the first Iceberg table read, not at startup.
 */
import type avro from "avsc";
import { Buffer } from "node:buffer";

let loaded: Promise<typeof avro> | undefined;
const avsc = () => loaded ??= import("avsc").then((m) => m.default);

export interface AvroFile {
  records: Record<string, unknown>[];
  /** The file's key-value metadata (Iceberg puts its schema and spec there), as text. */
  metadata: Record<string, string>;
}

/** Decodes every record of an Avro container file (null and deflate codecs). */
export async function decodeAvro(bytes: Uint8Array): Promise<AvroFile> {
  const avro = await avsc();
  return await new Promise((resolve, reject) => {
    const records: Record<string, unknown>[] = [];
    const metadata: Record<string, string> = {};
    const decoder = new avro.streams.BlockDecoder();
    decoder.on("metadata", (_type: unknown, _codec: string, header: { meta: object }) => {
      for (const [k, v] of Object.entries(header.meta)) metadata[k] = Buffer.from(v).toString();
    });
    decoder.on("data", (record: Record<string, unknown>) => records.push(record));
    decoder.on("error", reject);
    decoder.on("end", () => resolve({ records, metadata }));
    decoder.end(Buffer.from(bytes));
  });
}

/** Encodes records into an Avro container file with the given schema and metadata. */
export async function encodeAvro(
  schema: object,
  records: object[],
  options: { metadata?: Record<string, string>; codec?: "null" | "deflate" } = {},
): Promise<Uint8Array> {
  const avro = await avsc();
  return await new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    const metadata = Object.fromEntries(
      Object.entries(options.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v)]),
    );
    // `metadata` is a BlockEncoder option the bundled typings omit (lib/containers.js reads it).
    const encoderOptions = { codec: options.codec ?? "null", metadata } as Record<string, unknown>;
    // The schema object, not a parsed Type: only then is it written to the header whole,
    // extra attributes (Iceberg's field ids) included.
    const encoder = new avro.streams.BlockEncoder(schema as avro.Schema, encoderOptions);
    encoder.on("data", (chunk: Uint8Array) => chunks.push(chunk));
    encoder.on("error", reject);
    encoder.on("end", () => resolve(new Uint8Array(Buffer.concat(chunks))));
    for (const record of records) encoder.write(record);
    encoder.end();
  });
}
