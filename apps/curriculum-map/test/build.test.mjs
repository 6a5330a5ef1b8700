import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, SHIPPED } from "../build.mjs";

const SRC = join(dirname(fileURLToPath(import.meta.url)), "..", "src");
const html = build();

test("the shipped document is a fresh build of the sources", () => {
  assert.equal(readFileSync(SHIPPED, "utf8"), html, "run: node apps/curriculum-map/build.mjs");
});

test("one self-contained document within 150 KB", () => {
  assert.ok(Buffer.byteLength(html) <= 150 * 1024);
  assert.doesNotMatch(html, /<(script|link|img|iframe)[^>]*\b(src|href)=/i);
  assert.doesNotMatch(html, /https?:\/\//);
});

test("its own Content-Security-Policy allows exactly its inline script and style, and no connection", () => {
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)[1];
  const hash = (text) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
  const script = html.slice(html.indexOf("<script>") + 8, html.indexOf("</script>"));
  const style = html.slice(html.indexOf("<style>") + 7, html.indexOf("</style>"));
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /connect-src 'none'/);
  assert.ok(csp.includes(`script-src ${hash(script)}`));
  assert.ok(csp.includes(`style-src ${hash(style)}`));
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  assert.equal(html.split("<script").length, 2, "one script element");
  assert.doesNotMatch(html, / style="/, "no style attribute (the policy allows none)");
});

test("no module writes markup from strings", () => {
  for (const file of readdirSync(SRC).filter((f) => f.endsWith(".js"))) {
    const text = readFileSync(join(SRC, file), "utf8");
    assert.doesNotMatch(text, /\.(innerHTML|outerHTML)\b|insertAdjacentHTML|document\.write|\beval\(|new Function/, file);
  }
});
