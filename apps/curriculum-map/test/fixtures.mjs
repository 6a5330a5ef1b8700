// Answers recorded from the real server (record_fixtures.py), statement texts replaced by stand-ins.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import DRAWN_TOOLS from "../src/drawn_tools.json" with { type: "json" };

const DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures");
/** The tools the map draws (the server's tool rows say which): record_fixtures.py records an answer of each. */
export const TOOLS = DRAWN_TOOLS;
export const PACKAGES = ["ef", "ei", "em", "ccss"];

/** The recorded structuredContent of ``tool`` on package ``prefix``. */
export function answer(prefix, tool) {
  return JSON.parse(readFileSync(join(DIR, `${prefix}-${tool}.json`), "utf8")).structuredContent;
}

/** The recorded follow-up the view makes for ``code``'s siblings (its first parent's context), with ``focus``. */
export function siblingsAnswer(prefix, code) {
  return JSON.parse(readFileSync(join(DIR, `${prefix}-siblings-${code}.json`), "utf8"));
}
