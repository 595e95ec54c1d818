/**
 * A second process for the SQLite race test: opens the store file itself, then for every stdin
 * line `{if_match, body}` attempts one save and answers one stdout line `{ok, hash}` or
 * `{ok: false, code, current_hash}`. Argument: JSON `{url, kind, workspace_id, entity_id, user_id}`.
 */
import { AppError } from "../../errors/mod.ts";
import { openDb } from "../../store/mod.ts";
import { PIPELINE_KIND, TEMPLATE_KIND } from "../kinds.ts";
import { VersionLifecycle } from "../service.ts";

const args = JSON.parse(Deno.args[0]);
const db = await openDb(args.url);
const life = new VersionLifecycle({
  db,
  kind: args.kind === "pipeline" ? PIPELINE_KIND : TEMPLATE_KIND,
  authoringEnabled: true,
});
const ctx = {
  actor: {
    userId: args.user_id,
    email: "worker@x.example",
    displayName: "worker",
    provider: "local",
    isSuperAdmin: false,
    authMethod: "OIDC" as const,
    mustChangePassword: false,
    scopes: [],
  },
  workspaceId: args.workspace_id,
};
const out = (value: unknown) =>
  Deno.stdout.write(new TextEncoder().encode(JSON.stringify(value) + "\n"));

await out({ ready: true });
async function* lines(): AsyncGenerator<string> {
  let buffered = "";
  for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
    buffered += chunk;
    let at: number;
    while ((at = buffered.indexOf("\n")) >= 0) {
      yield buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
    }
  }
}

for await (const line of lines()) {
  if (!line.trim()) continue;
  const { if_match, body } = JSON.parse(line);
  try {
    const saved = await life.update(ctx, args.entity_id, if_match, { body });
    await out({ ok: true, hash: saved.version.body_hash });
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    await out({ ok: false, code: e.code, current_hash: e.details.current_hash });
  }
}
await db.close();
