// Answers recorded from the real server (record_fixtures.py), statement texts replaced by stand-ins.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures");
export const TOOLS = ["get_standard_context", "get_standard_progressions", "traverse_learning_progressions",
  "find_learning_progression_paths", "get_learning_components_for_standard"];
export const PACKAGES = ["ef", "ei", "em", "ccss"];

/** The recorded structuredContent of ``tool`` on package ``prefix``. */
export function answer(prefix, tool) {
  return JSON.parse(readFileSync(join(DIR, `${prefix}-${tool}.json`), "utf8")).structuredContent;
}

/** The recorded follow-up the view makes for ``code``'s siblings (its first parent's context), with ``focus``. */
export function siblingsAnswer(prefix, code) {
  return JSON.parse(readFileSync(join(DIR, `${prefix}-siblings-${code}.json`), "utf8"));
}
