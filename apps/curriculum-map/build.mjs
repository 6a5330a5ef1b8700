// Builds the curriculum map's one self-contained document from its ES modules (src/), with no network and no
// dependency beyond Node: each module becomes a function scope whose exports the modules importing it
// destructure, in dependency order; the shell gets the style, the script and a Content-Security-Policy that
// allows exactly that style and script (by their SHA-256), nothing else. A JSON module a source imports
// (src/drawn_tools.json, the tools the map draws, written from the server's tool rows) becomes a constant.
//
//   node apps/curriculum-map/build.mjs           writes src/kgfegmcp/shipped/apps/curriculum-map.html
//   node apps/curriculum-map/build.mjs --check   exits 1 when the shipped document differs from a fresh build

import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const SRC = join(HERE, "src");
export const SHIPPED = resolve(HERE, "..", "..", "src", "kgfegmcp", "shipped", "apps", "curriculum-map.html");
const ENTRY = "main.js";
const IMPORT = /^import\s*\{([^}]*)\}\s*from\s*"\.\/([\w-]+\.js)";\s*$/gm;
const IMPORT_JSON = /^import\s+([A-Za-z_$][\w$]*)\s+from\s*"\.\/([\w-]+\.json)"\s+with\s*\{\s*type:\s*"json"\s*\};\s*$/gm;
const EXPORT = /^export\s+(const|function|async function|let|class)\s+([A-Za-z_$][\w$]*)/gm;

/** The modules ``entry`` needs, dependencies first. */
function ordered(entry, seen = new Set(), out = []) {
  if (seen.has(entry)) return out;
  seen.add(entry);
  const text = readFileSync(join(SRC, entry), "utf8");
  for (const match of text.matchAll(IMPORT)) ordered(match[2], seen, out);
  out.push(entry);
  return out;
}

const scopeName = (file) => `__${file.replace(/\.js$/, "").replace(/\W/g, "_")}`;

/** One module as a function scope: its imports destructured from earlier scopes, its exports returned. */
function wrap(file) {
  let text = readFileSync(join(SRC, file), "utf8");
  text = text.replace(IMPORT_JSON, (_, name, from) =>
    `const ${name} = ${JSON.stringify(JSON.parse(readFileSync(join(SRC, from), "utf8")))};`);
  text = text.replace(IMPORT, (_, names, from) => {
    const bindings = names.split(",").map((n) => n.trim()).filter(Boolean)
      .map((n) => n.replace(/^(\w+)\s+as\s+(\w+)$/, "$1: $2")).join(", ");
    return `const { ${bindings} } = ${scopeName(from)};`;
  });
  const exported = [...text.matchAll(EXPORT)].map((m) => m[2]);
  text = text.replace(EXPORT, (_, kind, name) => `${kind} ${name}`);
  if (/^\s*(import|export)\b/m.test(text)) throw new Error(`${file}: an import or export the build does not handle`);
  if (file === ENTRY) return `// ${file}\n${text}`;
  return `// ${file}\nconst ${scopeName(file)} = (() => {\n${text}\nreturn { ${exported.join(", ")} };\n})();`;
}

const sha256 = (text) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/** The built document. */
export function build() {
  const script = `\n"use strict";\n(() => {\n${ordered(ENTRY).map(wrap).join("\n\n")}\n})();\n`;
  const style = `\n${readFileSync(join(SRC, "style.css"), "utf8")}`;
  const csp = [
    "default-src 'none'", `script-src ${sha256(script)}`, `style-src ${sha256(style)}`, "img-src data:",
    "connect-src 'none'", "base-uri 'none'", "form-action 'none'",
  ].join("; ");
  const shell = readFileSync(join(SRC, "shell.html"), "utf8");
  for (const mark of ["/*CSP*/", "/*STYLE*/", "/*SCRIPT*/"]) if (!shell.includes(mark)) throw new Error(`shell.html lacks ${mark}`);
  if (script.includes("</script") || style.includes("</style")) throw new Error("a closing tag inside the inline script or style");
  return shell.replace("/*CSP*/", () => csp).replace("/*STYLE*/", () => style).replace("/*SCRIPT*/", () => script);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const html = build();
  if (process.argv.includes("--check")) {
    const shipped = readFileSync(SHIPPED, "utf8");
    if (shipped !== html) {
      console.error(`${SHIPPED} differs from a fresh build: run node apps/curriculum-map/build.mjs`);
      process.exit(1);
    }
    console.log(`up to date (${Buffer.byteLength(html)} bytes)`);
  } else {
    writeFileSync(SHIPPED, html);
    console.log(`wrote ${SHIPPED} (${Buffer.byteLength(html)} bytes)`);
  }
}
