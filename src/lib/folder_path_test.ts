import { deepEqual, equal } from "node:assert/strict";
import { folderLevel, folderPathDefect, likeLiteral, normalisePrefix } from "./folder_path.ts";

Deno.test("folderPathDefect() accepts 2 to 10 well-formed segments up to 200 characters", () => {
  equal(folderPathDefect("sales/orders"), null);
  equal(folderPathDefect("a0/b_c/d.e/f-g"), null);
  equal(folderPathDefect(Array(10).fill("s").join("/")), null);
  equal(folderPathDefect(`f/${"x".repeat(64)}`), null);
  equal(folderPathDefect(`${"a".repeat(60)}/${"b".repeat(64)}/${"c".repeat(64)}/ddddddd`), null);
});

Deno.test("folderPathDefect() names folder_required only for a lone well-formed segment", () => {
  equal(folderPathDefect("orders")?.reason, "folder_required");
  for (
    const bad of [
      "",
      "Orders/x",
      "a//b",
      "/a/b",
      "a/b/",
      "_a/b",
      "a/-b",
      "a/b c",
      "a/é",
      `f/${"x".repeat(65)}`,
      Array(11).fill("s").join("/"),
      `${"a".repeat(64)}/${"b".repeat(64)}/${"c".repeat(64)}/dddddddd`,
      "Orders",
    ]
  ) {
    equal(folderPathDefect(bad)?.reason, "grammar", bad);
  }
  equal(
    folderPathDefect(`${"a".repeat(64)}/${"b".repeat(64)}/${"c".repeat(64)}/dddddddd`)?.detail,
    "longer than 200 characters",
  );
});

Deno.test("folderLevel() splits one level into counted folders and direct names", () => {
  const names = ["a/x", "a/b/y", "a/b/z", "a/c/d/e", "b/q", "ab/r"];
  deepEqual(folderLevel("a", names), {
    folders: [{ path: "a/b", segment: "b", count: 2 }, { path: "a/c", segment: "c", count: 1 }],
    leaves: ["a/x"],
  });
  deepEqual(folderLevel("", names).folders.map((f) => [f.path, f.count]), [
    ["a", 4],
    ["ab", 1],
    ["b", 1],
  ]);
  deepEqual(folderLevel("nope", names), { folders: [], leaves: [] });
  equal(normalisePrefix("a/b//"), "a/b");
  equal(likeLiteral("a_b%c\\"), "a\\_b\\%c\\\\");
});
