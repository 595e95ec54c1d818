/**
 * Promotion's page and partial over HTTP on both stores (issue 23 item 9): the preview page and
 * the Push partial answer what `GET /promotion/preview` and `POST /promotion/promote` answer —
 * the same matrix row, and every refusal with the REST twin's status and code — and the pipeline
 * page offers Promote only to a promoter, on a released pipeline, with a target configured.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { sessionHeaders } from "./support/access_fixtures.ts";
import { freePort, type Json } from "./support/harness.ts";
import {
  type Deployment,
  deployment,
  inventory,
  release,
  template,
  withPair,
} from "./support/promotion_client.ts";
import { forEachStoreKind } from "./support/stores.ts";

const orders = (name: string, source = "wh") => ({
  name,
  parameters: { customer_id: { type: "integer", required: true } },
  nodes: [{ id: "orders", type: "DQL", source, template: { id: "lib/orders", version: 1 } }],
});

/** A page or partial as a browser asks for it: HTML, a form body, redirects not followed. */
async function html(
  d: Deployment,
  method: "GET" | "POST",
  path: string,
  headers: Record<string, string>,
  form?: Record<string, string>,
): Promise<{ status: number; text: string }> {
  const res = await d.s.fetch(path, {
    method,
    redirect: "manual",
    headers: {
      accept: "text/html",
      ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      ...headers,
    },
    body: form ? new URLSearchParams(form) : undefined,
  });
  return { status: res.status, text: await res.text() };
}

/** The REST twin's answer as [status, code]. */
async function rest(
  d: Deployment,
  method: "GET" | "POST",
  id: string,
  who: Record<string, string>,
) {
  const r = method === "GET"
    ? await d.req("GET", `/api/v1/promotion/preview?pipeline_id=${id}`, who)
    : await d.req("POST", "/api/v1/promotion/promote", who, { pipeline_id: id });
  return [r.status, r.body.error?.code ?? null];
}

/** The page's and the partial's answers as [status, code shown], with the REST twins'. */
async function bothWays(d: Deployment, id: string, who: Record<string, string>) {
  const page = await html(d, "GET", `/pipelines/${id}/promote`, who);
  const push = await html(d, "POST", `/partials/pipelines/${id}/promote`, who, {});
  // The promote page draws a refusal; the matrix answers a page with its error page and a
  // partial with the envelope.
  const code = (t: string) =>
    t.match(/class="refusal-code">([a-z_.]+)</)?.[1] ??
      t.match(/\d{3} · ([a-z_.]+)</)?.[1] ??
      (t.startsWith("{") ? JSON.parse(t).error.code : null);
  return {
    ui: [[page.status, code(page.text)], [push.status, code(push.text)]],
    rest: [await rest(d, "GET", id, who), await rest(d, "POST", id, who)],
    page: page.text,
  };
}

/** What a page says, its markup left out. */
const said = (html: string) => html.replace(/<[^>]+>/g, "");

const PROMOTE_LINK = (id: string) => new RegExp(`href="/pipelines/${id}/promote"`);

forEachStoreKind(
  "promotion pages: preview, push and outcome; each refusal as its REST twin answers it",
  (kind) =>
    withPair(kind, async ({ prod, dev, key }) => {
      await template(dev, "lib/orders", "SELECT id, amount FROM orders WHERE id = :customer_id");
      const p = await release(dev, orders("shop/orders"));
      const rt = dev.s.runtime;
      const as = async (role: "viewer" | "author" | "promoter" | "ws_admin") =>
        await sessionHeaders(rt, dev.f.users[role], "acme");

      // The control: drawn for a promoter (and a super admin), for nobody else.
      for (const [headers, shown] of [[dev.promoter, true], [dev.admin, true]] as const) {
        const page = await html(dev, "GET", `/pipelines/${p.id}`, headers);
        equal(page.status, 200);
        equal(PROMOTE_LINK(p.id).test(page.text), shown);
      }
      for (const role of ["viewer", "author", "ws_admin"] as const) {
        const who = await as(role);
        const page = await html(dev, "GET", `/pipelines/${p.id}`, who);
        equal(page.status, 200, role);
        ok(!PROMOTE_LINK(p.id).test(page.text), `${role} sees Promote`);
        // Called directly, the page and the partial refuse as REST does: 403 auth.role_required.
        const { ui, rest } = await bothWays(dev, p.id, who);
        deepEqual(ui, rest, `${role}: ${JSON.stringify([ui, rest])}`);
        deepEqual(ui, [[403, "auth.role_required"], [403, "auth.role_required"]], role);
      }

      // The preview: every entry, nothing pushed.
      const preview = await html(dev, "GET", `/pipelines/${p.id}/promote`, dev.promoter);
      equal(preview.status, 200, preview.text.slice(0, 2000));
      match(preview.text, /Promote to production/);
      match(said(preview.text), /shop\/orders[\s\S]*lib\/orders/);
      match(preview.text, /href="\/pipelines\/[^"]+\/promote\?confirm=push"/);
      deepEqual((await inventory(prod, key)).pipelines, []);
      const dialog = await html(
        dev,
        "GET",
        `/pipelines/${p.id}/promote?confirm=push`,
        dev.promoter,
      );
      match(dialog.text, /<dialog id="confirm-act"[^>]* open/);
      match(dialog.text, new RegExp(`action="/partials/pipelines/${p.id}/promote"`));

      // A push without the CSRF token is refused before the sender is asked.
      const { "SVC-CSRF-Token": _, ...noToken } = dev.promoter;
      const forged = await html(dev, "POST", `/partials/pipelines/${p.id}/promote`, noToken, {});
      equal(forged.status, 403);
      deepEqual((await inventory(prod, key)).pipelines, []);

      // The push and its outcome, entry by entry.
      const pushed = await html(
        dev,
        "POST",
        `/partials/pipelines/${p.id}/promote`,
        dev.promoter,
        {},
      );
      equal(pushed.status, 200, pushed.text.slice(0, 2000));
      match(said(pushed.text), /Pushed shop\/orders v1 to production, where it is new\./);
      match(said(pushed.text), /shop\/orders[\s\S]*created[\s\S]*lib\/orders[\s\S]*created/);
      deepEqual(
        (await inventory(prod, key)).pipelines.map((x: Json) => [x.name, x.current_version]),
        [["shop/orders", 1]],
      );

      // Again: production has it. The page and the partial refuse as REST does, on the entry.
      const again = await bothWays(dev, p.id, dev.promoter);
      deepEqual(again.ui, again.rest);
      deepEqual(again.ui[0], [409, "pipeline.promotion.not_newer"]);
      match(said(again.page), /pipeline shop\/orders: v1 here, v1 on production/);

      // Only a draft: not released.
      const draft = await dev.req("POST", "/api/v1/pipelines", dev.admin, orders("shop/draft"));
      const nr = await bothWays(dev, String(draft.body.data.id), dev.promoter);
      deepEqual(nr.ui, nr.rest);
      deepEqual(nr.ui[1], [409, "pipeline.promotion.not_released"]);
      ok(
        !PROMOTE_LINK(draft.body.data.id).test(
          (await html(dev, "GET", `/pipelines/${draft.body.data.id}`, dev.promoter)).text,
        ),
      );

      // A datasource production lacks, named on the page.
      const other = await release(dev, orders("shop/other", "wh2"));
      const md = await bothWays(dev, other.id, dev.promoter);
      deepEqual(md.ui, md.rest);
      deepEqual(md.ui[1], [409, "pipeline.promotion.missing_datasources"]);
      match(said(md.page), /datasource wh2 missing in workspace acme/);

      // A pipeline of no workspace of the caller's: REST's 404.
      const absent = "00000000-0000-4000-8000-000000000000";
      const nf = await bothWays(dev, absent, dev.promoter);
      deepEqual(nf.ui, nf.rest);
      deepEqual(nf.ui[0], [404, "pipeline.not_found"]);
    }),
);

forEachStoreKind(
  "promotion pages: no Promote without a target; an unreachable one is 502 on the page too",
  async (kind) => {
    for (
      const [env, shown, expected] of [
        [{}, false, [409, "pipeline.promotion.target_not_configured"]],
        [
          {
            SERVICE_DEPLOYMENT_PROMOTION_TARGET_URL: `http://127.0.0.1:${freePort()}`,
            SERVICE_DEPLOYMENT_PROMOTION_TARGET_KEY: "svck_nothing.listens",
          },
          true,
          [502, "pipeline.promotion.target_unreachable"],
        ],
      ] as const
    ) {
      const dev = await deployment(kind, env);
      try {
        await template(dev, "lib/orders", "SELECT id FROM orders WHERE id = :customer_id");
        const p = await release(dev, orders("shop/orders"));
        const page = await html(dev, "GET", `/pipelines/${p.id}`, dev.admin);
        equal(page.status, 200);
        equal(PROMOTE_LINK(p.id).test(page.text), shown);
        const { ui, rest } = await bothWays(dev, p.id, dev.promoter);
        deepEqual(ui, rest);
        deepEqual(ui, [expected, expected]);
      } finally {
        await dev.s.close();
      }
    }
  },
);
