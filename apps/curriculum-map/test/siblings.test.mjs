import { test } from "node:test";
import assert from "node:assert/strict";
import { ADAPTERS, SIBLINGS_MAX, siblingRequestOf, siblingsOf } from "../src/adapters.js";
import { answer, siblingsAnswer, TOOLS } from "./fixtures.mjs";

const codes = (found) => found.items.map((x) => x.node.code);
const current = (found) => found.items.filter((x) => x.current).map((x) => x.node.code);

test("a context answer asks its first parent's context for the siblings, children only, in its package", () => {
  const s = answer("ef", "get_standard_context");
  const g = ADAPTERS.get_standard_context.read(s);
  const plan = siblingRequestOf(g);
  assert.equal(plan.parentId, s.parents[0].nodeId);
  assert.equal(plan.parentCount, 1);
  assert.deepEqual(plan.request, { frameworkId: "brazil-bncc-ensino-fundamental", snapshotId: s.package.graphPackageId.split("@")[1],
    nodeId: s.parents[0].nodeId, ancestorDepth: 0, childDepth: 1, maxPaths: 1 });
  // The recorded follow-up is exactly that request.
  assert.deepEqual(siblingsAnswer("ef", "EF05MA03").request, plan.request);
});

test("only a context answer with a parent below the framework root asks for siblings", () => {
  for (const tool of TOOLS.filter((x) => x !== "get_standard_context")) {
    assert.equal(siblingRequestOf(ADAPTERS[tool].read(answer("ef", tool))), null, tool);
  }
  const s = answer("ccss", "get_standard_context");
  assert.equal(siblingRequestOf(ADAPTERS.get_standard_context.read({ ...s, parents: [] })), null);
  const root = s.ancestors.find((r) => r.kind === "framework");
  assert.ok(root);
  assert.equal(siblingRequestOf(ADAPTERS.get_standard_context.read({ ...s, parents: [root] })), null);
  // Several parents: only the first is asked, and the view is told there are more.
  const two = ADAPTERS.get_standard_context.read({ ...s, parents: [s.parents[0], { ...s.parents[0], nodeId: "other" }] });
  assert.equal(siblingRequestOf(two).parentId, s.parents[0].nodeId);
  assert.equal(siblingRequestOf(two).parentCount, 2);
});

test("siblings are the parent's children in the order answered, the standard itself marked current", () => {
  const rl = siblingsAnswer("ccss", "RL.3.1");
  const found = siblingsOf(rl.structuredContent, rl.request.nodeId, rl.focus.nodeId);
  assert.deepEqual(codes(found), ["RL.3.1", "RL.3.2", "RL.3.3"]);
  assert.deepEqual(current(found), ["RL.3.1"]);
  assert.equal(found.others, 2);
  assert.equal(found.total, 3);
  assert.equal(found.first, 1);
  assert.equal(found.parent.id, rl.request.nodeId);
  assert.equal(found.parent.grouping, true);
  assert.match(found.parent.text, /^text of /);
  assert.ok(found.items.every((x) => x.node.text && x.node.text.startsWith("text of ")));

  const ef = siblingsAnswer("ef", "EF05MA04");
  const ef4 = siblingsOf(ef.structuredContent, ef.request.nodeId, ef.focus.nodeId);
  assert.deepEqual(codes(ef4), ["EF05MA04", "EF05MA05"]);
  assert.deepEqual(current(ef4), ["EF05MA04"]);
  // The order is the answer's, never re-sorted.
  const reversed = { ...ef.structuredContent, children: [...ef.structuredContent.children].reverse() };
  assert.deepEqual(codes(siblingsOf(reversed, ef.request.nodeId, ef.focus.nodeId)), ["EF05MA05", "EF05MA04"]);
});

test("a standard alone under its parent has no other sibling", () => {
  const ef = siblingsAnswer("ef", "EF05MA03");
  const found = siblingsOf(ef.structuredContent, ef.request.nodeId, ef.focus.nodeId);
  assert.deepEqual(codes(found), ["EF05MA03"]);
  assert.equal(found.others, 0);
});

test("an answer about another node than the parent asked is not read as its siblings", () => {
  const ef = siblingsAnswer("ef", "EF05MA04");
  assert.equal(siblingsOf(ef.structuredContent, "someone-else", ef.focus.nodeId), null);
  assert.equal(siblingsOf(null, ef.request.nodeId, ef.focus.nodeId), null);
  assert.equal(siblingsOf({ standard: ef.structuredContent.standard }, ef.request.nodeId, ef.focus.nodeId), null);
});

test("many siblings are bounded to a window that keeps the standard in view", () => {
  const children = Array.from({ length: 100 }, (_, i) => ({ nodeId: `n${i}`, statementCode: `C.${i}`, gradeLevels: [] }));
  const s = { standard: { nodeId: "p", statementType: "Cluster" }, children };
  for (const at of [0, 5, 50, 90, 99]) {
    const found = siblingsOf(s, "p", `n${at}`);
    assert.equal(found.items.length, SIBLINGS_MAX);
    assert.equal(found.total, 100);
    assert.deepEqual(current(found), [`C.${at}`]);
    assert.equal(found.items[0].node.id, `n${found.first - 1}`);
    assert.deepEqual(found.items.map((x) => x.node.id), children.slice(found.first - 1, found.first - 1 + SIBLINGS_MAX).map((c) => c.nodeId));
  }
  assert.equal(siblingsOf(s, "p", "n0").first, 1);
  assert.equal(siblingsOf(s, "p", "n99").first, 100 - SIBLINGS_MAX + 1);
});
