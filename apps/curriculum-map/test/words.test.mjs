import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { WORDS, langOf } from "../src/words.js";

const SRC = join(dirname(fileURLToPath(import.meta.url)), "..", "src");

function shape(value) {
  if (typeof value === "function") return "function";
  if (value && typeof value === "object") return Object.fromEntries(Object.keys(value).sort().map((k) => [k, shape(value[k])]));
  return typeof value;
}

test("every interface word is in both languages, of the same kind", () => {
  assert.deepEqual(shape(WORDS.pt), shape(WORDS.en));
});

test("every word the modules ask for exists", () => {
  for (const file of readdirSync(SRC).filter((f) => f.endsWith(".js"))) {
    for (const [, key] of readFileSync(join(SRC, file), "utf8").matchAll(/\bt\("(\w+)"\)/g)) {
      assert.ok(key in WORDS.en, `${file}: t("${key}")`);
    }
  }
});

test("the interface language follows the host's locale", () => {
  assert.equal(langOf("pt-BR"), "pt");
  assert.equal(langOf("en-US"), "en");
  assert.equal(langOf(undefined), "en");
});
