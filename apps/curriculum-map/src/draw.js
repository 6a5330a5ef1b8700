// Drawing: DOM and SVG built from a graph, never from markup. Package text (codes, statements, names,
// attributions) only ever goes into textContent, always inside a bidi isolate (<bdi> or dir="auto"), so no
// character of it can become markup or reorder the view's own words.

import { columnsOf, edgePath, scrollToShow, snippet } from "./layout.js";
import { linkParts } from "./bridge.js";
import { siblingRequestOf } from "./adapters.js";


/** An element: ``attrs`` as attributes (``text``: its text; ``class``), then ``children``. */
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) node.append(child);
  return node;
}

/** Package text, isolated: its own direction, never the surrounding line's. */
export function iso(text, attrs) {
  return el("bdi", { ...(attrs || {}), text: text == null ? "" : String(text) });
}

function svg(tag, attrs) {
  // The SVG namespace, read from the shell's own <svg> (the document names no web address).
  const node = document.createElementNS(document.getElementById("shapes").namespaceURI, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) node.setAttribute(k, String(v));
  return node;
}

const ROLE_GLYPH = { focus: "◆", before: "◀", after: "▶", related: "↔", linked: "·", start: "⚑", step: "•", grouping: "▤",
  child: "▾", sibling: "↕" };
const ROLE_WORD = { focus: "focus", before: "before", after: "after", related: "related", linked: "linked",
  start: "start", step: "pathStep", grouping: "grouping", child: "child", sibling: "sibling" };

/** The word for a node's role (in a paths answer the destination is the focus). */
export function roleWord(t, g, node) {
  if (node.role === "focus" && g.tool === "find_learning_progression_paths") return t("destination");
  return t(ROLE_WORD[node.role] || "linked");
}

/** A node's short label: its code, else the start of its text. */
export function nodeLabel(t, node) {
  return node.code || snippet(node.text, 60) || node.type || t("noCode");
}

/** The display name of each of a node's grades, in the columns' order. */
export function gradeDisplay(g, node) {
  const names = new Map(g.grades.map((x) => [x.label, x.display]));
  const rank = new Map(g.grades.map((x, i) => [x.label, i]));
  return [...node.grades].sort((a, b) => (rank.get(a) ?? 1e9) - (rank.get(b) ?? 1e9)).map((label) => names.get(label) || label);
}

/** A node's grades on the map: all of them, or the first and last of a longer run (a grouping spans many). */
export function gradeSpan(g, node) {
  const all = gradeDisplay(g, node);
  return all.length > 2 ? [all[0], "–", all[all.length - 1]] : all;
}

let describeSeq = 0;

/** A standard (or grouping) as a button: code, the start of its statement, grade, role, links not returned. */
export function nodeButton(ctx, node, group, role) {
  const { t, g } = ctx;
  const shownRole = role || node.role;
  const describe = `s${++describeSeq}`;
  const withheld = node.text === null || node.text === undefined;
  const lang = withheld ? null : ctx.statementLang();
  const classes = ["node", `r-${shownRole}`];
  if (node.frontier) classes.push("frontier");
  if (node.grouping) classes.push("grouping");
  const meta = gradeSpan(g, node);
  const button = el("button", { type: "button", class: classes.join(" "), "data-id": node.id, "data-group": group,
      tabindex: "-1", "aria-describedby": describe },
    el("span", { class: "code" }, iso(node.code || (node.grouping ? snippet(node.text, 60) || node.type : t("noCode")))),
    node.code && !withheld ? el("span", { class: "snip", dir: "auto", lang, "data-statement": "", text: snippet(node.text) }) : null,
    el("span", { class: "meta" }, ...meta.flatMap((m, i) => [i ? (m === "–" || meta[i - 1] === "–" ? " " : ", ") : null, m === "–" ? m : iso(m)]).filter(Boolean),
      node.type && node.grouping ? el("span", {}, meta.length ? " · " : null, iso(node.type)) : null),
    el("span", { class: "role" }, `${ROLE_GLYPH[shownRole] || "·"} ${shownRole === node.role ? roleWord(t, g, node) : t(ROLE_WORD[shownRole])}`),
    node.frontier ? el("span", { class: "badge" }, `⋯ ${t("frontierNote")(node.frontier)}`) : null);
  const description = el("span", { id: describe, hidden: true, lang, "data-statement": withheld ? null : "", dir: "auto",
    text: withheld ? ctx.withheldText() : node.text });
  // Focus and selection set what the panel shows; hovering only previews, and leaving restores it, so the
  // pointer crossing other standards on its way to the panel's buttons never changes what they load.
  button.addEventListener("focus", () => ctx.anchor(node));
  button.addEventListener("mouseenter", () => ctx.preview(node));
  button.addEventListener("mouseleave", () => ctx.restore());
  button.addEventListener("click", () => ctx.select(node, button));
  return el("li", {}, button, description);
}

/** The legend: what each line and mark means, in words and shapes (never by colour alone); ``canLoad``: whether
 *  more can be loaded from the details (the host offers tool calls). */
export function legend(t, g, canLoad) {
  const roles = g.tool === "find_learning_progression_paths" ? ["start", "step", "focus"] : ["focus", "before", "after", "related"];
  const words = { ...ROLE_WORD, focus: g.tool === "find_learning_progression_paths" ? "destination" : "focus" };
  const sample = (kind) => {
    const s = svg("svg", { width: 44, height: 12, viewBox: "0 0 44 12", "aria-hidden": "true", class: "sample" });
    const line = svg("path", { d: "M2,6 L38,6", class: `edge t-${kind}` });
    s.append(line);
    if (kind === "buildsTowards") s.append(svg("path", { d: "M34,2 L42,6 L34,10 z", class: "head" }));
    return s;
  };
  return el("ul", { class: "legend", "aria-label": t("legend") },
    el("li", {}, sample("buildsTowards"), t("legendArrow")),
    el("li", {}, sample("relatesTo"), t("legendRelated")),
    el("li", {}, el("span", { class: "mark frontier-mark", "aria-hidden": "true" }), t(canLoad ? "legendFrontier" : "legendFrontierNoTools")),
    ...roles.map((r) => el("li", {}, el("span", { class: `mark r-${r}`, "aria-hidden": "true", text: ROLE_GLYPH[r] }), t(words[r]))));
}

/** The map: grade columns of standards, and an SVG layer for the links (drawn once laid out: drawEdges). */
export function drawMap(ctx) {
  const { t, g } = ctx;
  const nodes = [...g.nodes.values()];
  const section = el("section", { class: "map", "aria-labelledby": "h-map" },
    el("h2", { id: "h-map", text: `${t("map")} · ${t("linksCount")(g.edges.length)}` }), legend(t, g, ctx.canLoad),
    el("p", { class: "sr-only", id: "keys", text: t("keys") }));
  const pane = el("div", { class: "map-pane" });
  const canvas = el("div", { class: "canvas" });
  const layer = svg("svg", { class: "edges", "aria-hidden": "true", focusable: "false" });
  const grid = el("div", { class: "grades", role: "group", "aria-describedby": "keys", "aria-label": t("map") });
  for (const column of columnsOf(nodes, g.grades)) {
    const heading = column.display || t("noGrade");
    const list = el("ul", {});
    for (const node of column.nodes) list.append(nodeButton(ctx, node, "map"));
    grid.append(el("div", { class: "grade", role: "group", "aria-label": heading },
      el("h3", {}, iso(heading)), list));
  }
  canvas.append(layer, grid);
  pane.append(canvas);
  section.append(pane);
  return section;
}

/** Draw every link of the graph between the laid-out standards of ``section``: one SVG path per link. */
export function drawEdges(section, g) {
  const canvas = section.querySelector(".canvas");
  const layer = canvas.querySelector("svg.edges");
  for (const old of layer.querySelectorAll("path.edge")) old.remove();
  const origin = canvas.getBoundingClientRect();
  const boxes = new Map();
  for (const button of canvas.querySelectorAll(".node[data-group='map']")) {
    const r = button.getBoundingClientRect();
    boxes.set(button.dataset.id, { x: r.left - origin.left, y: r.top - origin.top, w: r.width, h: r.height });
  }
  layer.setAttribute("width", String(canvas.scrollWidth));
  layer.setAttribute("height", String(canvas.scrollHeight));
  const room = parseFloat(getComputedStyle(canvas.querySelector(".grades")).columnGap) || 40;
  for (const e of g.edges) {
    const a = boxes.get(e.from);
    const b = boxes.get(e.to);
    if (!a || !b) continue;
    const path = svg("path", { class: `edge t-${e.type}`, d: edgePath(a, b, room), "data-id": e.id, "data-from": e.from, "data-to": e.to,
      "marker-end": e.type === "relatesTo" ? null : "url(#arrow)" });
    layer.append(path);
  }
}

/** Scroll the map area of ``section`` to its start, or, where the standard ``id`` does not show from there (a
 *  map wider or taller than its area), to that standard in the middle. Whether it moved. */
export function reveal(section, id) {
  const pane = section && section.querySelector(".map-pane");
  const card = pane && id ? [...pane.querySelectorAll(".node[data-group='map']")].find((b) => b.dataset.id === id) : null;
  if (!card) return false;
  const p = pane.getBoundingClientRect();
  const c = card.getBoundingClientRect();
  // The card's place in the pane's content: where it shows, plus how far the pane is scrolled.
  const left = c.left - p.left - pane.clientLeft + pane.scrollLeft;
  const top = c.top - p.top - pane.clientTop + pane.scrollTop;
  const x = scrollToShow(pane.clientWidth, pane.scrollWidth, left, left + c.width);
  const y = scrollToShow(pane.clientHeight, pane.scrollHeight, top, top + c.height);
  if (Math.abs(x - pane.scrollLeft) < 1 && Math.abs(y - pane.scrollTop) < 1) return false;
  pane.scrollTo(x, y);
  return true;
}

/** Mark ``id``'s links and neighbours (and, in a paths answer, the chosen path) on the map. */
export function highlight(section, g, id, path) {
  if (!section) return;
  const onPath = path ? new Set(path.edgeIds) : null;
  const pathNodes = path ? new Set(path.nodeIds) : null;
  const near = new Set();
  for (const line of section.querySelectorAll("path.edge")) {
    const touches = line.dataset.from === id || line.dataset.to === id;
    if (touches) near.add(line.dataset.from === id ? line.dataset.to : line.dataset.from);
    const hot = touches || Boolean(onPath && onPath.has(line.dataset.id));
    line.classList.toggle("hot", hot);
    line.classList.toggle("dim", Boolean(onPath) && !onPath.has(line.dataset.id) && !touches);
    if (line.getAttribute("marker-end")) line.setAttribute("marker-end", hot ? "url(#arrow-hot)" : "url(#arrow)");
  }
  for (const button of section.querySelectorAll(".node[data-group='map']")) {
    button.classList.toggle("near", near.has(button.dataset.id));
    button.classList.toggle("on-path", Boolean(pathNodes && pathNodes.has(button.dataset.id)));
    button.classList.toggle("dim", Boolean(pathNodes) && !pathNodes.has(button.dataset.id));
  }
}

/** A paths answer: each path a choice, drawn as its ordered chain of codes. */
export function drawPaths(ctx, chosen, onChoose) {
  const { t, g } = ctx;
  const section = el("section", { class: "paths", "aria-labelledby": "h-paths" },
    el("h2", { id: "h-paths", text: `${t("paths")} · ${t("pathsFound")(g.paths.length)}` }));
  if (!g.paths.length) { section.append(el("p", { text: t("noPaths") })); return section; }
  const list = el("ol", { class: "path-list" });
  g.paths.forEach((p, i) => {
    const chain = el("ol", { class: "chain" });
    p.nodeIds.forEach((id, k) => {
      const node = g.nodes.get(id);
      chain.append(el("li", {}, k ? el("span", { class: "arrow", "aria-hidden": "true", text: "→ " }) : null, iso(node ? nodeLabel(t, node) : id)));
    });
    const button = el("button", { type: "button", class: "path-choice", "aria-pressed": i === chosen ? "true" : "false", "data-path": i },
      el("span", { class: "path-name", text: t("path")(i + 1, Math.max(0, p.nodeIds.length - 1)) }), chain);
    button.addEventListener("click", () => onChoose(i));
    list.append(el("li", {}, button));
  });
  section.append(list);
  return section;
}

/** A standard's hierarchy: each root path as a trail of groupings (by their text), and what it contains. */
export function drawHierarchy(ctx) {
  const { t, g } = ctx;
  const h = g.hierarchy;
  const section = el("section", { class: "hier", "aria-labelledby": "h-hier" }, el("h2", { id: "h-hier", text: t("hierarchy") }));
  const nodeFor = (id) => g.nodes.get(id) || h.records.get(id) || { id, code: null, type: "", grades: [], text: null, grouping: true, role: "grouping", frontier: 0, frontierWhy: [] };
  h.rootPaths.forEach((ids, index) => {
    const trail = el("ol", { class: "trail", "aria-label": `${t("rootPath")} ${index + 1}` });
    ids.forEach((id, depth) => {
      const node = nodeFor(id);
      if (node.type === "framework") {
        trail.append(el("li", { class: "root" }, el("span", { dir: "auto", lang: ctx.statementLang(), "data-statement": "", text: node.text || id })));
        return;
      }
      const item = nodeButton(ctx, node, "hier", id === g.focusId ? "focus" : "grouping");
      item.style.setProperty("--depth", String(depth));
      trail.append(item);
    });
    section.append(trail);
  });
  section.append(el("h3", { text: t("children") }));
  if (h.children.length) {
    const list = el("ul", { class: "children" });
    for (const id of h.children) list.append(nodeButton(ctx, nodeFor(id), "hier", nodeFor(id).grouping ? "grouping" : "child"));
    section.append(list);
  } else section.append(el("p", { class: "summary", text: t("noChildren") }));
  const plan = siblingRequestOf(g);
  if (plan) section.append(siblingsPlace(ctx, plan, nodeFor(plan.parentId)));
  return section;
}

/** Where a standard's siblings go, saying they are loading: the main script asks its parent for them (a call
 *  through the host, after drawing) and fills the place with fillSiblings. */
function siblingsPlace(ctx, plan, parent) {
  const { t } = ctx;
  return el("div", { class: "siblings-of", "data-state": "loading", "data-parent": plan.parentId, "aria-busy": "true" },
    el("h3", { id: "h-siblings" }, `${t("siblingsIn")} `, iso(nodeLabel(t, parent)),
      plan.parentCount > 1 ? ` ${t("firstParentOf")(plan.parentCount)}` : null),
    el("p", { class: "summary", text: t("siblingsLoading") }));
}

/** Fill the siblings' place of ``section`` with ``outcome``: ``{found}`` (siblingsOf's answer) lists them, the
 *  standard itself marked as such, each other a standard to select; ``{failed}`` or ``{unavailable}`` says so. */
export function fillSiblings(ctx, section, outcome) {
  const { t } = ctx;
  const place = section && section.querySelector(".siblings-of");
  if (!place) return;
  const heading = place.querySelector("h3");
  place.removeAttribute("aria-busy");
  const say = (text, ...more) => el("p", { class: "summary" }, text, ...more);
  if (outcome.unavailable) {
    place.dataset.state = "unavailable";
    place.replaceChildren(heading, say(t("siblingsNoTools")));
    return;
  }
  if (!outcome.found) {
    place.dataset.state = "failed";
    place.replaceChildren(heading, say(`${t("siblingsFailed")} `, iso(outcome.failed || "")));
    return;
  }
  const { found } = outcome;
  place.dataset.state = "shown";
  const list = el("ul", { class: "siblings", "aria-labelledby": "h-siblings" });
  for (const { node, current } of found.items) {
    if (current) {
      list.append(el("li", { class: "current", "aria-current": "true" },
        el("span", { class: "code" }, iso(nodeLabel(t, node))), el("span", { class: "role", text: `◆ ${t("thisOne")}` })));
    } else list.append(nodeButton(ctx, node, "hier", node.grouping ? "grouping" : "sibling"));
  }
  const shown = found.items.length < found.total ? say(t("siblingsShown")(found.first, found.first + found.items.length - 1, found.total)) : null;
  place.replaceChildren(...[heading, found.others ? null : say(t("noSiblings")), list, shown].filter(Boolean));
}

/** A standard's learning components, with their subject and the support's confidence. */
export function drawComponents(ctx) {
  const { t, g } = ctx;
  const section = el("section", { class: "comps", "aria-labelledby": "h-comps" },
    el("h2", { id: "h-comps", text: `${t("components")} (${t("total")(g.components.length, g.componentTotal)})` }));
  if (!g.components.length) section.append(el("p", { text: t("noComponents") }));
  const list = el("ul", {});
  for (const c of g.components) {
    const withheld = c.description === undefined || c.description === null;
    list.append(el("li", { class: "comp", tabindex: "-1", "data-group": "comps" },
      el("span", { dir: "auto", lang: withheld ? null : ctx.statementLang(), "data-statement": withheld ? null : "", class: withheld ? "withheld" : "", text: withheld ? ctx.withheldText() : c.description }),
      el("span", { class: "meta", text: [c.academicSubject, c.confidence !== undefined && c.confidence !== null ? `${t("confidence")} ${c.confidence}` : ""].filter(Boolean).join(" · ") })));
  }
  section.append(list);
  if (g.nature) section.append(el("p", { class: "summary", dir: "auto", text: g.nature }));
  return section;
}

/** Text with its web addresses as links the host opens (``open``), or as plain text when it cannot. */
export function linkedText(text, open) {
  const span = el("span", { dir: "auto" });
  for (const part of linkParts(String(text || ""))) {
    if (part.url && open) {
      const a = el("a", { href: part.url, class: "ext", text: part.url });
      a.addEventListener("click", (event) => { event.preventDefault(); open(part.url); });
      span.append(a);
    } else span.append(part.text !== undefined ? part.text : part.url);
  }
  return span;
}

/** The sources: each package's licence, attribution, disclosures and labels; the server's notes. */
export function drawSources(ctx, footer) {
  const { t, g } = ctx;
  footer.replaceChildren(el("h2", { text: t("sources") }));
  footer.setAttribute("aria-label", t("sources"));
  for (const p of g.packages) {
    const labels = p.labels || {};
    const labelText = [["labelStandards", labels.standards], ["labelLinks", labels.links],
      ["labelComponents", labels.components && labels.components.epistemicStatus]]
      .filter(([, v]) => v).map(([k, v]) => `${t(k)}: ${v}`).join("; ");
    const list = el("dl", {},
      el("dt", { text: t("package") }), el("dd", {}, iso(p.graphPackageId)),
      el("dt", { text: t("license") }), el("dd", {}, iso(p.license)),
      el("dt", { text: t("attribution") }), el("dd", { lang: "" }, linkedText(p.attribution, ctx.openLink)),
      el("dt", { text: t("labels") }), el("dd", { text: labelText }),
      el("dt", { text: t("disclosures") }), el("dd", {}, iso((p.disclosureIds || []).join(", ")), `. ${t("disclosuresNote")}`));
    if (p.textWithheld) list.append(el("dt", { text: t("withheld") }), el("dd", { dir: "auto", text: p.textWithheld.reason }));
    footer.append(list);
  }
  for (const a of g.attributions || []) {
    footer.append(el("p", { lang: "" }, linkedText([a.attributionStatement, a.license].filter(Boolean).join(" "), ctx.openLink)));
  }
  const notes = [...g.notes.map(([key, detail]) => {
    if (key === "pathsFound") return t("pathsFound")(Number(detail));
    return [t(key), detail].filter(Boolean).join(" ");
  }), g.interpretation, ...g.warnings.map((w) => w.message)].filter(Boolean);
  if (notes.length) footer.append(el("h3", { text: t("warnings") }), el("ul", {}, ...notes.map((n) => el("li", { dir: "auto", text: n }))));
}
