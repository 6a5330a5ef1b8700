// The curriculum map: reads the linked tools' answers (through the host) and draws them; asks for more only
// when the teacher presses a button, through the host, with the same tools and bounds a model has.

import { WORDS, langOf } from "./words.js";
import { graphOf, loadsOf, packageIdsOf, siblingRequestOf, siblingsOf, structuredOf, toolOf } from "./adapters.js";
import { canCallTools, createBridge, featuresOf, selectionContext, PROTOCOL_VERSION } from "./bridge.js";
import { el, iso, nodeLabel, roleWord, gradeDisplay, drawMap, drawEdges, reveal, highlight, drawPaths, drawHierarchy,
  drawComponents, drawSources, fillSiblings } from "./draw.js";
import { rovingStops, wireKeys } from "./keys.js";

const state = { lang: "en", langChosen: false, answer: null, tool: null, hostTool: null, graph: null, history: [],
  selectedId: null, shownId: null, pathIndex: 0, busy: false, caps: {}, context: {}, displayMode: "inline",
  statementLangs: new Map(), renders: 0, siblingAnswers: new Map(), revealing: false };
const $ = (id) => document.getElementById(id);
const t = (key) => WORDS[state.lang][key];
const features = () => featuresOf(state.caps, state.context);
/** Whether the host lets the view call tools (else it loads nothing and offers no button to). */
const canLoad = () => canCallTools(bridge.connected, features());

const bridge = createBridge(window, window.parent !== window ? window.parent : null, {
  "ui/notifications/tool-result": (params) => showResult(params, null, false),
  "ui/notifications/host-context-changed": (params) => applyHostContext(params),
  "ui/notifications/tool-input": () => {},
  "ui/notifications/tool-cancelled": () => { if (!state.answer) setStatus(t("cancelled"), true); },
});

function applyHostContext(ctx) {
  state.context = { ...state.context, ...ctx };
  if (ctx.theme) document.documentElement.dataset.theme = ctx.theme === "dark" ? "dark" : "light";
  if (ctx.locale && !state.langChosen) setLang(langOf(ctx.locale));
  if (ctx.toolInfo && ctx.toolInfo.tool && ctx.toolInfo.tool.name) state.hostTool = ctx.toolInfo.tool.name;
  if (ctx.displayMode) setDisplayMode(ctx.displayMode);
  showFeatures();
}

/* ---------- the context the drawing functions share ---------- */
function withheldText() {
  const g = state.graph;
  const p = g && g.packages.find((x) => x.textWithheld);
  return p ? p.textWithheld.reason : t("statementWithheld");
}
function onlyPackage(g) { return g && g.packages.length === 1 ? g.packages[0] : null; }
function statementLang() {
  const p = onlyPackage(state.graph);
  return (p && state.statementLangs.get(p.graphPackageId)) || "";
}
function drawContext() {
  return { t, g: state.graph, statementLang, withheldText, preview: showDetail, anchor, restore, select,
    openLink: features().openLinks ? openLink : null, canLoad: canLoad() };
}

/* ---------- MCP Apps features, each only where the host offers it ---------- */
function showFeatures() {
  const button = $("fullscreen");
  button.hidden = !features().fullscreen;
  button.textContent = state.displayMode === "fullscreen" ? t("exitFullscreen") : t("fullscreen");
  button.setAttribute("aria-pressed", state.displayMode === "fullscreen" ? "true" : "false");
}
function setDisplayMode(mode) {
  state.displayMode = mode;
  document.documentElement.dataset.mode = mode;
  showFeatures();
  redrawEdges();
}
async function toggleFullscreen() {
  const wanted = state.displayMode === "fullscreen" ? "inline" : "fullscreen";
  try {
    const result = await bridge.request("ui/request-display-mode", { mode: wanted });
    setDisplayMode((result && result.mode) || state.displayMode);
  } catch (error) {
    setStatus(`${t("hostDeclined")} ${error.message}`, true);
  }
}
function openLink(url) {
  bridge.request("ui/open-link", { url }).catch((error) => setStatus(`${t("hostDeclined")} ${error.message}`, true));
}
function shareSelection(node) {
  if (!features().modelContext || !node) return;
  const g = state.graph;
  const p = onlyPackage(g) || g.packages[0];
  const grade = gradeDisplay(g, node).join(", ");
  const params = selectionContext(node, p ? p.graphPackageId : null, grade, t("selectedFor")(nodeLabel(t, node), grade));
  bridge.request("ui/update-model-context", params).then(() => setStatus(t("contextSent"), false, true), () => {});
}

/* ---------- the details panel beside the map ---------- */
function findNode(id) {
  const g = state.graph;
  return g.nodes.get(id) || (g.hierarchy && g.hierarchy.records.get(id)) || null;
}
function showDetail(node) {
  const g = state.graph;
  if (!node) return;
  state.shownId = node.id;
  $("detail").hidden = false;
  const title = $("detail-title");
  title.replaceChildren(...(state.selectedId === node.id ? [`${t("selected")}: `] : []), iso(nodeLabel(t, node)));
  const withheld = node.text === undefined || node.text === null;
  const linked = g.edges.filter((e) => e.from === node.id || e.to === node.id);
  const code = (id) => { const n = findNode(id); return n ? nodeLabel(t, n) : id; };
  const grades = gradeDisplay(g, node);
  $("detail-body").replaceChildren(...[
    el("p", { class: `statement${withheld ? " withheld" : ""}`, dir: "auto", lang: withheld ? null : statementLang(), "data-statement": withheld ? null : "", text: withheld ? withheldText() : node.text }),
    el("p", { class: "summary" }, ...[node.code ? [`${t("code")}: `, iso(node.code)] : [],
      [node.code ? " · " : "", `${t("grades")}: `], grades.length ? grades.flatMap((x, i) => [i ? ", " : "", iso(x)]) : [t("noGrade")],
      node.type ? [` · ${t("type")}: `, iso(node.type)] : []].flat().filter((x) => x !== "")),
    g.nodes.has(node.id) ? el("p", { class: "summary", text: roleWord(t, g, node) }) : null,
    linked.length ? el("ul", { class: "links-of", "aria-label": t("links") }, ...linked.map((e) => el("li", {},
      e.from === node.id ? `${e.type === "relatesTo" ? t("relatesTo") : t("buildsTowards")} ` : `${e.type === "relatesTo" ? t("relatesTo") : t("buildsOn")} `,
      iso(code(e.from === node.id ? e.to : e.from))))) : null,
    node.frontier ? el("p", { class: "badge", text: `${t("frontierNote")(node.frontier)}${node.frontierWhy.length ? ` (${node.frontierWhy.map((w) => t("frontierWhy")[w] || w).join("; ")})` : ""}` }) : null,
  ].filter(Boolean));
  const actions = $("detail-actions");
  actions.replaceChildren();
  actions.setAttribute("aria-label", t("load"));
  const offered = loadsOf(node, g.holds);
  if (offered.length && !canLoad()) {
    // A host without tool calls: no button that could only fail, and the reason said in words instead.
    actions.append(el("p", { class: "summary actions-note", text: t("loadNoTools") }));
  } else {
    for (const [tool, key] of offered) {
      const button = el("button", { type: "button", "data-tool": tool, text: t(key) });
      button.disabled = state.busy;
      button.addEventListener("click", () => ask(tool, node));
      actions.append(button);
    }
    if (offered.length) actions.prepend(el("span", { class: "actions-label", text: `${t("load")}:` }));
  }
  highlight(document.querySelector("#view .map"), g, node.id, g.paths.length ? g.paths[state.pathIndex] : null);
}

/** Show ``node`` in the details until another standard is focused or selected. */
function anchor(node) {
  state.anchorId = node.id;
  showDetail(node);
}
/** Back to the focused or selected standard after a hover. */
function restore() {
  const node = state.anchorId && findNode(state.anchorId);
  if (node && state.shownId !== node.id) showDetail(node);
}

/** Select ``node``: it stays in the details, is marked on the map, and is shared with the model. */
function select(node) {
  state.selectedId = node.id;
  state.anchorId = node.id;
  for (const other of document.querySelectorAll(".node")) other.setAttribute("aria-current", other.dataset.id === node.id ? "true" : "false");
  showDetail(node);
  shareSelection(node);
}

/* ---------- asking the server, through the host: only on an explicit button ---------- */
async function ask(tool, node) {
  const g = state.graph;
  const ids = packageIdsOf(g);
  if (!canLoad()) { setStatus(t("noBridge"), true); return; }
  if (!ids || state.busy) return;
  state.busy = true;
  setStatus(t("loading"));
  try {
    const result = await bridge.request("tools/call", { name: tool, arguments: { request: { ...ids, nodeId: node.id } } });
    const before = { answer: state.answer, tool: state.tool };
    if (showResult(result, tool, true)) state.history.push(before);
  } catch (error) {
    setStatus(`${t("failed")} ${error.message}`, true);
  } finally {
    state.busy = false;
    $("back").disabled = !state.history.length;
    for (const button of $("detail-actions").querySelectorAll("button")) button.disabled = false;
  }
}

function setStatus(text, error, quiet) {
  const status = $("status");
  status.textContent = text;
  status.classList.toggle("error", Boolean(error));
  status.classList.toggle("sr-only", Boolean(quiet));
}

/** A refused call's text blocks (the server's ``<error_code>: <message>``). */
function errorText(result) {
  return (result.content || []).filter((b) => b.type === "text").map((b) => b.text).join("\n");
}

/** Draw one tools/call result; whether it was drawn. */
function showResult(result, tool, moveFocus) {
  if (!result) return false;
  if (result.isError) {
    setStatus(`${t("failed")} ${errorText(result)}`, true);
    return false;
  }
  const structured = structuredOf(result);
  if (!structured) { setStatus(t("noStructured"), true); return false; }
  const shape = toolOf(structured);
  if (!shape) { setStatus(t("unknownShape"), true); return false; }
  state.answer = structured;
  state.tool = tool || state.hostTool || shape;
  state.selectedId = null;
  state.pathIndex = 0;
  render(moveFocus);
  return true;
}

/** The answer's title in parts: the view's words at even places, the standards it names (a path's two ends) at
 *  odd ones, each drawn in an isolate of its own, so that no character of a code reorders the words or the other
 *  code. */
function titleOf(g) {
  const label = (id) => { const n = id && g.nodes.get(id); return n ? nodeLabel(t, n) : ""; };
  if (g.tool === "find_learning_progression_paths") return [`${t("tool")[g.tool]} `, label(g.startId), " → ", label(g.focusId)];
  return [`${t("tool")[g.tool]} `, label(g.focusId)];
}

function render(moveFocus) {
  const started = performance.now();
  if (!state.answer) { setStatus(t("waiting")); return; }
  const g = graphOf(state.answer, state.tool);
  state.graph = g;
  const ctx = drawContext();
  const view = $("view");
  const parts = titleOf(g);
  const title = parts.join("");
  view.replaceChildren(el("h2", { id: "answer-title" }, ...parts.map((part, i) => (i % 2 ? iso(part) : part))));
  if (g.tool === "find_learning_progression_paths") view.append(drawPaths(ctx, state.pathIndex, choosePath));
  const hierarchy = g.hierarchy ? drawHierarchy(ctx) : null;
  if (hierarchy) view.append(hierarchy);
  const map = drawMap(ctx);
  view.append(map);
  if (g.components) view.append(drawComponents(ctx));
  drawSources(ctx, $("sources"));
  const linksStarted = performance.now();
  drawEdges(map, g); // lays the page out (the links need the standards' places): most of the render time
  performance.measure("kgfegmcp-map-links", { start: linksStarted, duration: performance.now() - linksStarted });
  setStatus(title, false, true);
  rovingStops(view, g.focusId);
  const first = view.querySelector(`.node[data-group="map"][tabindex="0"]`) || view.querySelector(".node");
  const focus = g.focusId ? g.nodes.get(g.focusId) : null;
  state.anchorId = focus ? focus.id : null;
  if (focus) showDetail(focus);
  else $("detail-body").replaceChildren(el("p", { class: "summary", text: t("hoverHint") }));
  if (first && moveFocus) first.focus();
  // A map wider (or taller) than its area shows the focus standard, a path's destination: the teacher never
  // hunts for it. Kept so while the area settles its size (the host fits the frame to the view), until the
  // teacher moves the map or the focus themselves.
  state.revealing = Boolean(g.focusId);
  reveal(map, g.focusId);
  const comps = view.querySelector(".comp");
  if (comps) comps.tabIndex = 0;
  const elapsed = performance.now() - started;
  performance.measure("kgfegmcp-map-render", { start: started, duration: elapsed });
  learnStatementLang(g);
  if (hierarchy) loadSiblings(g, hierarchy);
  document.documentElement.dataset.rendered = String(++state.renders);
  document.documentElement.dataset.tool = g.tool;
}

function choosePath(index) {
  state.pathIndex = index;
  for (const b of document.querySelectorAll(".path-choice")) b.setAttribute("aria-pressed", String(Number(b.dataset.path) === index));
  const node = state.shownId && findNode(state.shownId);
  highlight(document.querySelector("#view .map"), state.graph, node ? node.id : null, state.graph.paths[index]);
}

function redrawEdges() {
  const map = document.querySelector("#view .map");
  if (!map || !state.graph) return;
  drawEdges(map, state.graph);
  highlight(map, state.graph, state.shownId, state.graph.paths.length ? state.graph.paths[state.pathIndex] : null);
  if (state.revealing) reveal(map, state.graph.focusId);
}
for (const kind of ["pointerdown", "wheel", "keydown", "touchstart"]) {
  document.addEventListener(kind, () => { state.revealing = false; }, { capture: true, passive: true });
}

/* ---------- a standard's siblings: its parent's children, asked of the server through the host ---------- */
const SIBLING_ANSWERS_KEPT = 32;

/** Fill ``section``'s siblings of ``g``'s standard: from a kept answer at once, else by one call for its first
 *  parent's context (made once per parent, whatever renders ask meanwhile), unless the host offers no tool calls.
 *  A reply for a graph no longer drawn is kept, not drawn. */
function loadSiblings(g, section) {
  const plan = siblingRequestOf(g);
  if (!plan) return;
  if (!canLoad()) { fillSiblings(drawContext(), section, { unavailable: true }); return; }
  const key = `${g.packages[0].graphPackageId} ${plan.parentId}`;
  const kept = state.siblingAnswers.get(key);
  if (kept && !(kept instanceof Promise)) { showSiblings(g, section, plan, kept); return; }
  let pending = kept;
  if (!pending) {
    pending = bridge.request("tools/call", { name: "get_standard_context", arguments: { request: plan.request } })
      .then((result) => {
        if (!result || result.isError) throw new Error(result ? errorText(result) : t("noStructured"));
        const s = structuredOf(result);
        if (!s) throw new Error(t("noStructured"));
        state.siblingAnswers.delete(key);
        state.siblingAnswers.set(key, s);
        while (state.siblingAnswers.size > SIBLING_ANSWERS_KEPT) state.siblingAnswers.delete(state.siblingAnswers.keys().next().value);
        return s;
      });
    state.siblingAnswers.set(key, pending);
    pending.catch(() => { if (state.siblingAnswers.get(key) === pending) state.siblingAnswers.delete(key); });
  }
  pending.then((s) => { if (state.graph === g) showSiblings(g, section, plan, s); },
    (error) => { if (state.graph === g) fillSiblings(drawContext(), section, { failed: error.message }); });
}

function showSiblings(g, section, plan, s) {
  const found = siblingsOf(s, plan.parentId, g.focusId);
  if (!found) { fillSiblings(drawContext(), section, { failed: t("unknownShape") }); return; }
  // Each sibling is then found by id like any standard drawn (details, restore after a hover).
  for (const { node } of found.items) if (!findNode(node.id)) g.hierarchy.records.set(node.id, node);
  fillSiblings(drawContext(), section, { found });
}

/* ---------- the statements' language, read once per package from its resource ---------- */
async function learnStatementLang(g) {
  const p = onlyPackage(g);
  if (!p || !p.uri || state.statementLangs.has(p.graphPackageId) || !features().resources) return;
  state.statementLangs.set(p.graphPackageId, "");
  try {
    const read = await bridge.request("resources/read", { uri: p.uri });
    const text = read && read.contents && read.contents[0] && read.contents[0].text;
    const lang = text ? (JSON.parse(text).framework || {}).inLanguage : null;
    if (typeof lang !== "string" || !lang) return;
    state.statementLangs.set(p.graphPackageId, lang);
    if (state.graph === g) for (const node of document.querySelectorAll("[data-statement]")) node.lang = lang;
  } catch {
    // No language is better than a wrong one: the statements stay marked unknown.
  }
}

/* ---------- language ---------- */
function setLang(lang) {
  state.lang = lang;
  document.documentElement.lang = lang;
  document.title = t("title");
  $("title").textContent = t("title");
  $("lang").textContent = t("switchTo");
  $("lang").setAttribute("aria-label", `${t("switchTo")}: ${t("switchLabel")}`);
  $("lang").setAttribute("lang", lang === "pt" ? "en" : "pt");
  $("back").textContent = t("back");
  $("detail-heading").textContent = t("detail");
  showFeatures();
  if (state.answer) {
    const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.id : null;
    const selected = state.selectedId;
    render(false);
    if (selected && findNode(selected)) select(findNode(selected));
    if (focused) { const again = document.querySelector(`.node[data-id="${CSS.escape(focused)}"]`); if (again) again.focus(); }
  } else setStatus(t("waiting"));
}

$("lang").addEventListener("click", () => { state.langChosen = true; setLang(state.lang === "pt" ? "en" : "pt"); $("lang").focus(); });
$("fullscreen").addEventListener("click", toggleFullscreen);
$("back").addEventListener("click", () => {
  const previous = state.history.pop();
  if (!previous) return;
  state.answer = previous.answer;
  state.tool = previous.tool;
  state.selectedId = null;
  render(true);
  $("back").disabled = !state.history.length;
});
wireKeys(document, () => $("view"), (button) => {
  // Where the move landed (the standard itself is said by its focus): its grade column and place in it, or
  // its place in the hierarchy.
  const column = button.closest(".grade");
  const items = column ? [...column.querySelectorAll(".node")] : [...document.querySelectorAll(`.node[data-group="${button.dataset.group}"]`)];
  const where = column ? `${column.getAttribute("aria-label")}: ` : `${t("hierarchy")}: `;
  $("announce").textContent = `${where}${items.indexOf(button) + 1} / ${items.length}`;
});
new ResizeObserver(() => redrawEdges()).observe($("view"));

/* ---------- start: the ui/initialize handshake, then size reports ---------- */
setLang(langOf(navigator.language));
if (!bridge.connected) setStatus(t("noBridge"), true);
else {
  bridge.request("ui/initialize", { appInfo: { name: "kgfegmcp-curriculum-map", version: "2.0.0" },
    appCapabilities: { availableDisplayModes: ["inline", "fullscreen"] }, protocolVersion: PROTOCOL_VERSION })
    .then((result) => {
      state.caps = (result && result.hostCapabilities) || {};
      applyHostContext((result && result.hostContext) || {});
      bridge.notify("ui/notifications/initialized");
      let last = "";
      const report = () => {
        const size = { width: Math.ceil(document.body.scrollWidth), height: Math.ceil(document.body.scrollHeight) };
        const key = `${size.width}x${size.height}`;
        if (key !== last) { last = key; bridge.notify("ui/notifications/size-changed", size); }
      };
      new ResizeObserver(report).observe(document.body);
      report();
    })
    .catch((error) => setStatus(`${t("hostDeclined")} ${error.message}`, true));
}
