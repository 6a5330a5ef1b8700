import { test } from "node:test";
import assert from "node:assert/strict";
import { ADAPTERS, graphOf, gradeOrder, holdsOf, loadsOf, rolesFrom, structuredOf, toolOf } from "../src/adapters.js";
import { WORDS } from "../src/words.js";
import { answer, PACKAGES, TOOLS } from "./fixtures.mjs";

const codeOf = (g, id) => g.nodes.get(id).code;
const byCode = (g, code) => [...g.nodes.values()].find((n) => n.code === code);

test("there is an adapter for exactly the tools the rows say the map draws, and a title for each in every language", () => {
  assert.ok(TOOLS.length > 0);
  assert.deepEqual(Object.keys(ADAPTERS).sort(), [...TOOLS].sort());
  for (const [lang, words] of Object.entries(WORDS)) assert.deepEqual(Object.keys(words.tool).sort(), [...TOOLS].sort(), lang);
});

test("every recorded answer is read by its tool's adapter, recognised by its shape", () => {
  for (const prefix of PACKAGES) {
    for (const tool of TOOLS) {
      const s = answer(prefix, tool);
      assert.equal(toolOf(s), tool, `${prefix} ${tool}`);
      const g = graphOf(s, tool);
      assert.equal(g.tool, tool);
      assert.ok(g.nodes.has(g.focusId), `${prefix} ${tool}: the focus is drawn`);
      for (const e of g.edges) assert.ok(g.nodes.has(e.from) && g.nodes.has(e.to), `${prefix} ${tool}: both ends of ${e.id}`);
    }
  }
});

test("every link of a progressions answer becomes one edge, in its direction", () => {
  const s = answer("ef", "get_standard_progressions");
  const g = ADAPTERS.get_standard_progressions.read(s);
  assert.equal(g.edges.length, s.links.length);
  for (const link of s.links) {
    assert.ok(g.edges.some((e) => e.from === link.sourceNodeId && e.to === link.targetNodeId && e.type === link.linkType));
  }
});

test("a traversal both ways tells what the focus builds on from what builds on it", () => {
  const s = answer("ef", "traverse_learning_progressions");
  assert.equal(s.direction, "both");
  const g = ADAPTERS.traverse_learning_progressions.read(s);
  assert.equal(codeOf(g, g.focusId), "EF05MA03");
  // EF05MA03 buildsTowards EF05MA04 (out); EF04MA09 buildsTowards EF05MA03 (in).
  assert.equal(byCode(g, "EF05MA04").role, "after");
  assert.equal(byCode(g, "EF04MA09").role, "before");
  assert.equal(byCode(g, "EF05MA06").role, "related");
  // Every link returned between returned standards is an edge, once.
  const ids = new Set(s.nodes.map((n) => n.nodeId));
  const links = new Set(s.nodes.flatMap((n) => (n.followed || []).filter((f) => ids.has(f.to)).map((f) => f.relationshipId)));
  assert.equal(g.edges.length, links.size);
  // The frontier count stays beside the role.
  const frontier = [...g.nodes.values()].filter((n) => n.frontier);
  assert.ok(frontier.length > 0);
  assert.ok(frontier.every((n) => ["before", "after", "related", "linked", "focus"].includes(n.role)));
});

test("roles come from link directions, transitively, and relatesTo gives no order", () => {
  const edges = [
    { from: "a", to: "f", type: "buildsTowards" }, { from: "z", to: "a", type: "buildsTowards" },
    { from: "f", to: "b", type: "buildsTowards" }, { from: "r", to: "f", type: "relatesTo" },
    { from: "a", to: "x", type: "buildsTowards" },
  ];
  const roles = rolesFrom("f", edges, ["f", "a", "z", "b", "r", "x"]);
  assert.deepEqual(Object.fromEntries(roles), { f: "focus", a: "before", z: "before", b: "after", r: "related", x: "linked" });
});

test("paths are ordered chains from the start to the destination, each step a returned link", () => {
  const s = answer("ef", "find_learning_progression_paths");
  const g = ADAPTERS.find_learning_progression_paths.read(s);
  assert.equal(codeOf(g, g.startId), "EF02MA01");
  assert.equal(codeOf(g, g.focusId), "EF05MA03");
  assert.equal(g.nodes.get(g.startId).role, "start");
  assert.equal(g.nodes.get(g.focusId).role, "focus");
  assert.ok(g.paths.length >= 1);
  for (const p of g.paths) {
    assert.equal(p.nodeIds[0], g.startId);
    assert.equal(p.nodeIds.at(-1), g.focusId);
    assert.equal(p.edgeIds.length, p.nodeIds.length - 1);
    p.edgeIds.forEach((id, i) => {
      const e = g.edges.find((x) => x.id === id);
      assert.ok(e, `edge ${id} drawn`);
      assert.deepEqual([e.from, e.to], [p.nodeIds[i], p.nodeIds[i + 1]]);
    });
  }
});

test("with no path, the start is the start, not something the destination builds on", () => {
  const g = ADAPTERS.find_learning_progression_paths.read(answer("ccss", "find_learning_progression_paths"));
  assert.equal(g.paths.length, 0);
  assert.equal(g.nodes.get(g.startId).role, "start");
});

test("a standard's context gives its root paths, parents and children, groupings by their text", () => {
  const g = ADAPTERS.get_standard_context.read(answer("ef", "get_standard_context"));
  assert.equal(g.hierarchy.rootPaths.length, 1);
  assert.equal(g.hierarchy.rootPaths[0].at(-1), g.focusId);
  const parent = g.hierarchy.records.get(g.hierarchy.parents[0]);
  assert.equal(parent.grouping, true);
  assert.equal(parent.type, "Objeto de conhecimento");
  assert.match(parent.text, /^text of /);
  assert.equal(g.nodes.get(g.focusId).frontier, 4); // 2 + 1 + 1 links it does not return
});

test("grade columns follow the profile's declared order and names", () => {
  const ei = ADAPTERS.traverse_learning_progressions.read(answer("ei", "traverse_learning_progressions"));
  assert.deepEqual(ei.grades.map((x) => x.label), ["Bebês", "Crianças bem pequenas", "Crianças pequenas"]);
  const ccss = ADAPTERS.get_standard_context.read(answer("ccss", "get_standard_context"));
  assert.deepEqual(ccss.grades.find((x) => x.label === "03"), { label: "03", display: "Grade 3" });
});

test("without grades from the server, labels keep their first appearance and show as themselves", () => {
  const nodes = [{ grades: ["9º"] }, { grades: ["2º", "9º"] }];
  assert.deepEqual(gradeOrder([{}], nodes), [{ label: "9º", display: "9º" }, { label: "2º", display: "2º" }]);
});

test("controls follow what the package holds; unknown counts as held", () => {
  assert.deepEqual(ADAPTERS.get_standard_context.read(answer("em", "get_standard_context")).holds, { progressionLinks: false, learningComponents: false });
  assert.deepEqual(ADAPTERS.get_standard_context.read(answer("ei", "get_standard_context")).holds, { progressionLinks: true, learningComponents: false });
  assert.deepEqual(ADAPTERS.get_standard_context.read(answer("ef", "get_standard_context")).holds, { progressionLinks: true, learningComponents: true });
  assert.deepEqual(holdsOf([{ graphPackageId: "x@y" }]), { progressionLinks: true, learningComponents: true });
});

test("learning components keep their confidence and the total", () => {
  const s = answer("ef", "get_learning_components_for_standard");
  const g = ADAPTERS.get_learning_components_for_standard.read(s);
  assert.equal(g.components.length, s.supports.length);
  assert.equal(g.componentTotal, s.total);
  assert.equal(g.components[0].confidence, s.supports[0].supportConfidence);
});

test("an answer of a version without structuredContent is read from its last text block", () => {
  const s = answer("ef", "get_standard_progressions");
  assert.deepEqual(structuredOf({ content: [{ type: "text", text: "summary" }, { type: "text", text: JSON.stringify(s) }] }), s);
  assert.equal(structuredOf({ content: [{ type: "text", text: "no json" }] }), null);
});

test("the details offer to load each answer the package can give: none for the root, a grouping's hierarchy only", () => {
  const tools = (node, holds) => loadsOf(node, holds).map(([tool]) => tool);
  const g = ADAPTERS.get_standard_context.read(answer("ef", "get_standard_context"));
  const focus = g.nodes.get(g.focusId);
  assert.deepEqual(tools(focus, g.holds), ["get_standard_progressions", "get_standard_context",
    "get_learning_components_for_standard", "traverse_learning_progressions"]);
  assert.deepEqual(loadsOf(focus, g.holds).map(([, key]) => key), ["showProgressions", "showContext", "showComponents", "showTraversal"]);
  const em = ADAPTERS.get_standard_context.read(answer("em", "get_standard_context"));
  assert.deepEqual(tools(em.nodes.get(em.focusId), em.holds), ["get_standard_context"]);
  const records = [...g.hierarchy.records.values()];
  const grouping = records.find((n) => n.grouping && n.type !== "framework");
  assert.ok(grouping);
  assert.deepEqual(tools(grouping, g.holds), ["get_standard_context"]);
  const root = records.find((n) => n.type === "framework");
  assert.ok(root);
  assert.deepEqual(tools(root, g.holds), []);
  assert.deepEqual(tools(null, g.holds), []);
});
