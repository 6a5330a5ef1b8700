// One adapter per tool the map draws, keyed by tool name: each recognises that tool's structuredContent by its
// shape and reads it into one graph the view draws. Pure functions (no DOM), unit-tested on answers recorded from
// the real server. Which tools the map draws is not written here: the server's tool rows say (drawn_tools.json,
// written by scripts/generate_tool_lists.py), and a test holds the adapters to exactly those.
//
// A graph: { tool, focusId, startId, nodes: Map<id, node>, edges: [{id, from, to, type}], paths: [{nodeIds,
// edgeIds}], hierarchy, components, packages, grades: [{label, display}], holds, notes, interpretation }.
// A node: { id, code, type, grades, text, grouping, role, frontier, frontierWhy }.

import DRAWN_TOOLS from "./drawn_tools.json" with { type: "json" };

/** The answer's package blocks (``package`` or ``packages``). */
export function packagesOf(s) {
  if (s.package) return [s.package];
  return Array.isArray(s.packages) ? s.packages : [];
}

/** Grade columns in the order the packages' profiles declare, with their display names (``grades`` of each
 *  package block); without them, the labels in order of first appearance, each shown as itself. */
export function gradeOrder(packages, nodes) {
  const order = [];
  const seen = new Set();
  for (const p of packages) {
    for (const g of Array.isArray(p.grades) ? p.grades : []) {
      if (g && typeof g.label === "string" && !seen.has(g.label)) {
        seen.add(g.label);
        order.push({ label: g.label, display: typeof g.display === "string" && g.display ? g.display : g.label });
      }
    }
  }
  for (const node of nodes) {
    for (const label of node.grades) {
      if (!seen.has(label)) { seen.add(label); order.push({ label, display: label }); }
    }
  }
  return order;
}

/** What the packages hold, from their ``holds``; unknown (absent) counts as held, so controls stay offered. */
export function holdsOf(packages) {
  const held = (key) => !packages.length || packages.some((p) => !p.holds || p.holds[key] !== false);
  return { progressionLinks: held("progressionLinks"), learningComponents: held("learningComponents") };
}

function nodeOf(record) {
  return {
    id: record.nodeId,
    code: typeof record.statementCode === "string" && record.statementCode ? record.statementCode : null,
    type: record.statementType || (record.kind === "framework" ? "framework" : ""),
    grades: Array.isArray(record.gradeLevels) ? record.gradeLevels : [],
    text: typeof record.description === "string" ? record.description : typeof record.name === "string" ? record.name : null,
    grouping: !record.statementCode,
    role: "linked", frontier: 0, frontierWhy: [],
  };
}

function emptyGraph(tool, s) {
  const packages = packagesOf(s);
  return { tool, focusId: null, startId: null, nodes: new Map(), edges: [], paths: [], hierarchy: null,
    components: null, packages, grades: [], holds: holdsOf(packages), notes: [], interpretation: s.interpretation || null,
    warnings: (s.warnings && s.warnings.items) || [], attributions: s.attributions || [] };
}

/** The answer's focus standard: added and named as the graph's focus; labelled "focus" unless `role` is false (roles from links label it then). */
function addFocus(g, record, role = true) {
  const focus = addNode(g, record);
  g.focusId = focus ? focus.id : null;
  if (focus && role) focus.role = "focus";
  return focus;
}

function addNode(g, record) {
  if (!record || !record.nodeId) return null;
  const known = g.nodes.get(record.nodeId);
  if (known) {
    if (known.text === null && typeof record.description === "string") known.text = record.description;
    return known;
  }
  const node = nodeOf(record);
  g.nodes.set(node.id, node);
  return node;
}

function addEdge(g, id, from, to, type) {
  const key = id || `${from}>${to}:${type}`;
  if (g.edges.some((e) => e.id === key)) return;
  g.edges.push({ id: key, from, to, type });
}

/** Each node's role relative to the focus, from the edges' directions: what the focus builds on (reached
 *  against buildsTowards links), what builds on it (reached along them), what relates to it, the rest linked. */
export function rolesFrom(focusId, edges, nodeIds) {
  const roles = new Map();
  const ordered = edges.filter((e) => e.type !== "relatesTo");
  const reach = (forward) => {
    const found = new Set();
    const queue = [focusId];
    while (queue.length) {
      const at = queue.shift();
      for (const e of ordered) {
        const [here, there] = forward ? [e.from, e.to] : [e.to, e.from];
        if (here === at && there !== focusId && !found.has(there)) { found.add(there); queue.push(there); }
      }
    }
    return found;
  };
  const after = reach(true);
  const before = reach(false);
  const related = new Set(edges.filter((e) => e.type === "relatesTo" && (e.from === focusId || e.to === focusId))
    .map((e) => (e.from === focusId ? e.to : e.from)));
  for (const id of nodeIds) {
    if (id === focusId) roles.set(id, "focus");
    else if (before.has(id) && !after.has(id)) roles.set(id, "before");
    else if (after.has(id) && !before.has(id)) roles.set(id, "after");
    else if (related.has(id)) roles.set(id, "related");
    else roles.set(id, "linked");
  }
  return roles;
}

function applyRoles(g) {
  const roles = rolesFrom(g.focusId, g.edges, g.nodes.keys());
  for (const [id, role] of roles) g.nodes.get(id).role = role;
}

function finish(g) {
  g.grades = gradeOrder(g.packages, g.nodes.values());
  return g;
}

export const ADAPTERS = {
  get_standard_context: {
    matches: (s) => Array.isArray(s.rootPaths) && Boolean(s.standard),
    read(s) {
      const g = emptyGraph("get_standard_context", s);
      const focus = addFocus(g, s.standard);
      const records = new Map();
      for (const r of [...(s.ancestors || []), ...(s.parents || []), ...(s.pathNodes || []), ...(s.children || []),
        ...(s.descendants || []), s.standard]) if (r && r.nodeId) records.set(r.nodeId, nodeOf(r));
      g.hierarchy = {
        records,
        rootPaths: (s.rootPaths || []).map((p) => p.nodeIds || []),
        parents: (s.parents || []).map((r) => r.nodeId),
        children: (s.children || []).map((r) => r.nodeId),
      };
      const d = s.directRelationships || {};
      const unreturned = (d.buildsTowardsOutgoing || 0) + (d.buildsTowardsIncoming || 0) + (d.relatesToOutgoing || 0) + (d.relatesToIncoming || 0);
      if (focus && unreturned) focus.frontier = unreturned;
      if (s.truncationReasons && s.truncationReasons.length) g.notes.push(["incomplete", s.truncationReasons.join(", ")]);
      return finish(g);
    },
  },

  get_standard_progressions: {
    matches: (s) => Array.isArray(s.links) && Boolean(s.standardNodeId),
    read(s) {
      const g = emptyGraph("get_standard_progressions", s);
      const records = new Map((s.standards || []).map((r) => [r.nodeId, r]));
      const focus = addFocus(g, records.get(s.standardNodeId) || { nodeId: s.standardNodeId }, false);
      for (const link of s.links || []) {
        for (const id of [link.sourceNodeId, link.targetNodeId]) {
          addNode(g, records.get(id) || { nodeId: id, statementCode: id === link.sourceNodeId ? link.sourceStatementCode : link.targetStatementCode });
        }
        addEdge(g, link.relationshipId, link.sourceNodeId, link.targetNodeId, link.linkType);
      }
      applyRoles(g);
      const left = (s.totalLinks || 0) - (s.links || []).length;
      if (focus && left > 0) focus.frontier = left;
      return finish(g);
    },
  },

  traverse_learning_progressions: {
    matches: (s) => Array.isArray(s.nodes) && Boolean(s.frontier),
    read(s) {
      const g = emptyGraph("traverse_learning_progressions", s);
      const nodes = s.nodes || [];
      for (const record of nodes) addNode(g, record);
      g.focusId = nodes.length ? nodes[0].nodeId : null;
      for (const record of nodes) {
        for (const f of record.followed || []) {
          const way = f.direction || s.direction;
          if (way === "in") addEdge(g, f.relationshipId, f.to, record.nodeId, f.linkType);
          else addEdge(g, f.relationshipId, record.nodeId, f.to, f.linkType);
        }
      }
      // A link may lead to a standard the answer does not return (cut by a bound): draw only links between
      // standards it returns.
      g.edges = g.edges.filter((e) => g.nodes.has(e.from) && g.nodes.has(e.to));
      applyRoles(g);
      for (const [why, byNode] of Object.entries(s.frontier || {})) {
        for (const [id, count] of Object.entries(byNode || {})) {
          const node = g.nodes.get(id);
          if (node) { node.frontier += count; node.frontierWhy.push(why); }
        }
      }
      g.notes.push([s.scopeComplete ? "complete" : "incomplete", (s.truncationReasons || []).join(", ")]);
      return finish(g);
    },
  },

  find_learning_progression_paths: {
    matches: (s) => Array.isArray(s.paths) && Boolean(s.fromNodeId),
    read(s) {
      const g = emptyGraph("find_learning_progression_paths", s);
      const records = new Map((s.standards || []).map((r) => [r.nodeId, r]));
      for (const p of s.paths || []) for (const step of p.steps || []) if (!records.has(step.nodeId)) records.set(step.nodeId, step);
      const start = addNode(g, records.get(s.fromNodeId) || { nodeId: s.fromNodeId });
      const end = addNode(g, records.get(s.toNodeId) || { nodeId: s.toNodeId });
      for (const r of records.values()) addNode(g, r);
      for (const link of s.links || []) addEdge(g, link.relationshipId, link.sourceNodeId, link.targetNodeId, link.linkType);
      g.paths = (s.paths || []).map((p) => ({ nodeIds: (p.steps || []).map((step) => step.nodeId), edgeIds: p.relationshipIds || [] }));
      g.startId = start ? start.id : null;
      g.focusId = end ? end.id : null;
      for (const node of g.nodes.values()) node.role = "step";
      if (start) start.role = "start";
      if (end) end.role = "focus";
      g.notes.push(["pathsFound", String(g.paths.length)]);
      if (s.morePathsExist) g.notes.push(["morePaths", ""]);
      return finish(g);
    },
  },

  get_learning_components_for_standard: {
    matches: (s) => Array.isArray(s.supports) && Boolean(s.standard),
    read(s) {
      const g = emptyGraph("get_learning_components_for_standard", s);
      const focus = addFocus(g, s.standard);
      g.components = (s.supports || []).map((support) => ({ ...support.component, confidence: support.supportConfidence }));
      g.componentTotal = s.total || 0;
      g.nature = s.nature || null;
      if (focus && g.componentTotal > g.components.length) focus.frontier = g.componentTotal - g.components.length;
      return finish(g);
    },
  },
};

/** The framework and snapshot of the graph's (first) package, to ask tools about its standards; null without one. */
export function packageIdsOf(g) {
  const p = g && g.packages[0];
  const at = p && typeof p.graphPackageId === "string" ? p.graphPackageId.lastIndexOf("@") : -1;
  if (at <= 0) return null;
  return { frameworkId: p.graphPackageId.slice(0, at), snapshotId: p.graphPackageId.slice(at + 1) };
}

/** The new answers the details panel can load for ``node`` of a package that ``holds`` what it holds, in order:
 *  [tool, word key] each. None for the framework root (no tool answers for it); a grouping, only its hierarchy.
 *  Whether the host lets the view call tools at all is the caller's to decide (bridge.js: canCallTools). */
export function loadsOf(node, holds) {
  if (!node || node.type === "framework") return [];
  if (node.grouping) return [["get_standard_context", "showContext"]];
  const h = holds || {};
  return [
    h.progressionLinks ? ["get_standard_progressions", "showProgressions"] : null,
    ["get_standard_context", "showContext"],
    h.learningComponents ? ["get_learning_components_for_standard", "showComponents"] : null,
    h.progressionLinks ? ["traverse_learning_progressions", "showTraversal"] : null,
  ].filter(Boolean);
}

/** How many siblings the hierarchy lists at most (a window around the standard itself). */
export const SIBLINGS_MAX = 40;

/** The follow-up a context answer needs for its standard's siblings: get_standard_context of its first parent,
 *  asking only for that parent's children (no ancestors, one root path). Null when there is nothing to ask:
 *  not a context answer, no parent, or the parent is the framework root (no tool answers for it). */
export function siblingRequestOf(g) {
  const h = g && g.tool === "get_standard_context" ? g.hierarchy : null;
  const ids = packageIdsOf(g);
  if (!h || !ids || !g.focusId || !h.parents.length) return null;
  const parentId = h.parents[0];
  const parent = h.records.get(parentId);
  if (!parent || parent.type === "framework") return null;
  return { parentId, parentCount: h.parents.length,
    request: { ...ids, nodeId: parentId, ancestorDepth: 0, childDepth: 1, maxPaths: 1 } };
}

/** ``standardId``'s siblings from its parent's get_standard_context answer: the parent, and its children in the
 *  order answered, the standard itself among them marked ``current``; at most ``max`` of them, a window that keeps
 *  the standard in view. Null when the answer is not about ``parentId`` (so nothing wrong is shown). */
export function siblingsOf(s, parentId, standardId, max = SIBLINGS_MAX) {
  if (!s || !s.standard || s.standard.nodeId !== parentId || !Array.isArray(s.children)) return null;
  const all = s.children.filter((r) => r && r.nodeId).map((r) => ({ node: nodeOf(r), current: r.nodeId === standardId }));
  const at = all.findIndex((x) => x.current);
  const from = all.length <= max ? 0 : Math.min(Math.max(0, at - Math.floor(max / 2)), all.length - max);
  const items = all.slice(from, from + max);
  return { parent: nodeOf(s.standard), items, first: from + 1, total: all.length,
    others: all.filter((x) => !x.current).length };
}

/** Which drawn tool's answer ``s`` is, by its shape (a host's notification does not always say). */
export function toolOf(s) {
  if (!s || typeof s !== "object") return null;
  return DRAWN_TOOLS.find((tool) => ADAPTERS[tool] && ADAPTERS[tool].matches(s)) || null;
}

/** The graph of an answer: ``tool``'s adapter when the answer has that tool's shape, else its shape's. */
export function graphOf(s, tool) {
  const shape = toolOf(s);
  if (!shape) return null;
  return ADAPTERS[tool && ADAPTERS[tool] && tool === shape ? tool : shape].read(s);
}

/** Before 2025-06-18 a result has no structuredContent: the server sends it as the last text block instead. */
export function structuredOf(result) {
  if (result.structuredContent) return result.structuredContent;
  const blocks = (result.content || []).filter((b) => b.type === "text");
  const last = blocks.length ? blocks[blocks.length - 1].text : "";
  if (!last.startsWith("{")) return null;
  try { return JSON.parse(last); } catch { return null; }
}
