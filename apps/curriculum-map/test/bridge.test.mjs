import { test } from "node:test";
import assert from "node:assert/strict";
import { canCallTools, createBridge, featuresOf, linkParts, selectionContext } from "../src/bridge.js";

test("each MCP Apps feature is offered only as the host's capabilities and context say", () => {
  assert.deepEqual(featuresOf({}, {}), { tools: false, resources: false, openLinks: false, modelContext: false, fullscreen: false });
  assert.deepEqual(featuresOf({ serverTools: {}, openLinks: {}, updateModelContext: { text: {} } }, { availableDisplayModes: ["inline", "fullscreen"] }),
    { tools: true, resources: false, openLinks: true, modelContext: true, fullscreen: true });
});

test("tools are called only through a connected host that offers tool calls", () => {
  const offering = featuresOf({ serverTools: {} }, {});
  assert.equal(canCallTools(true, offering), true);
  assert.equal(canCallTools(false, offering), false); // no host at all
  assert.equal(canCallTools(true, featuresOf({ serverResources: {}, openLinks: {} }, {})), false); // ?tools=none
  assert.equal(canCallTools(true, featuresOf({}, {})), false);
  assert.equal(canCallTools(true, undefined), false);
});

test("a selection becomes model context: a sentence, the statement, and the ids to call tools with", () => {
  const node = { id: "n1", code: "EF05MA03", type: "Habilidade", grades: ["5º ano"], text: "Statement." };
  const context = selectionContext(node, "brazil-bncc-ensino-fundamental@dados-2026-07-1", "5º ano", "Selected EF05MA03.");
  assert.deepEqual(context.content, [{ type: "text", text: "Selected EF05MA03.\nStatement." }]);
  assert.deepEqual(context.structuredContent.selectedStandard, { frameworkId: "brazil-bncc-ensino-fundamental",
    snapshotId: "dados-2026-07-1", nodeId: "n1", statementCode: "EF05MA03", statementType: "Habilidade", gradeLevels: ["5º ano"] });
});

test("web addresses in an attribution are split out, trailing punctuation left as text", () => {
  const parts = linkParts("Dados por bncc.dev (https://github.com/bncc-dev/bncc-dados), CC BY 4.0.");
  assert.deepEqual(parts, [{ text: "Dados por bncc.dev (" }, { url: "https://github.com/bncc-dev/bncc-dados" }, { text: "), CC BY 4.0." }]);
  assert.deepEqual(linkParts("no address"), [{ text: "no address" }]);
});

test("the bridge answers replies by id, hears only its host, and acknowledges the host's requests", async () => {
  const listeners = [];
  const self = { addEventListener: (_, fn) => listeners.push(fn) };
  const sent = [];
  const host = { postMessage: (m) => sent.push(m) };
  const heard = [];
  const bridge = createBridge(self, host, { "ui/notifications/tool-result": (p) => heard.push(p) });
  const reply = bridge.request("tools/call", { name: "x" });
  const deliver = (data, source = host) => listeners.forEach((fn) => fn({ source, data }));
  deliver({ jsonrpc: "2.0", id: sent[0].id, result: { ok: 1 } }, {}); // not from the host: ignored
  deliver({ jsonrpc: "2.0", id: sent[0].id, result: { ok: 2 } });
  assert.deepEqual(await reply, { ok: 2 });
  deliver({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: { a: 1 } });
  assert.deepEqual(heard, [{ a: 1 }]);
  deliver({ jsonrpc: "2.0", id: 99, method: "ping" });
  assert.deepEqual(sent.at(-1), { jsonrpc: "2.0", id: 99, result: {} });
  const failing = bridge.request("ui/open-link", { url: "x" });
  deliver({ jsonrpc: "2.0", id: sent.at(-1).id, error: { code: -32601, message: "no" } });
  await assert.rejects(failing, /no/);
  await assert.rejects(createBridge(self, null, {}).request("x", {}), /no host/);
});
