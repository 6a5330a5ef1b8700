// The host bridge: JSON-RPC 2.0 over postMessage to the parent window, speaking the MCP Apps methods of the
// official SDK's App class (ui/initialize, ui/notifications/*, tools/call, resources/read,
// ui/request-display-mode, ui/update-model-context, ui/open-link). A hand bridge, not the SDK's App: the App
// needs zod and the MCP SDK's Protocol (its self-contained build, app-with-deps.js, is 542 KB, over the view's
// 150 KB budget).

export const PROTOCOL_VERSION = "2026-01-26";

/** A bridge to ``host`` (a window, or null outside a host) heard on ``self``; ``handlers`` by notification method. */
export function createBridge(self, host, handlers) {
  const pending = new Map();
  let nextId = 1;
  const post = (message) => { if (host) host.postMessage(message, "*"); };
  self.addEventListener("message", (event) => {
    if (!host || event.source !== host) return;
    const m = event.data;
    if (!m || m.jsonrpc !== "2.0") return;
    if (m.method === undefined && m.id !== undefined) {
      const waiter = pending.get(m.id);
      if (!waiter) return;
      pending.delete(m.id);
      if (m.error) waiter.reject(new Error(m.error.message || String(m.error.code)));
      else waiter.resolve(m.result);
      return;
    }
    if (m.id !== undefined) { // a request from the host (ping, teardown): acknowledged
      post({ jsonrpc: "2.0", id: m.id, result: {} });
      return;
    }
    const handler = handlers[m.method];
    if (handler) handler(m.params || {});
  });
  return {
    connected: Boolean(host),
    request(method, params) {
      if (!host) return Promise.reject(new Error("no host"));
      const id = nextId++;
      post({ jsonrpc: "2.0", id, method, params });
      return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
    },
    notify(method, params) { post({ jsonrpc: "2.0", method, params: params || {} }); },
  };
}

/** What the host offers this view, from its ui/initialize result and host context. */
export function featuresOf(capabilities, context) {
  const caps = capabilities || {};
  const modes = (context && context.availableDisplayModes) || [];
  return {
    tools: Boolean(caps.serverTools),
    resources: Boolean(caps.serverResources),
    openLinks: Boolean(caps.openLinks),
    modelContext: Boolean(caps.updateModelContext),
    fullscreen: Array.isArray(modes) && modes.includes("fullscreen"),
  };
}

/** Whether the view may call the server's tools: through a host it is connected to, which offers tool calls
 *  (serverTools). Otherwise nothing is loaded: no siblings, and no button to load a new answer. */
export function canCallTools(connected, features) {
  return Boolean(connected && features && features.tools);
}

/** The model context for a selected standard: a sentence for the model and the ids to call tools with. */
export function selectionContext(node, packageId, gradeDisplay, sentence) {
  const at = packageId ? packageId.lastIndexOf("@") : -1;
  const ids = at > 0 ? { frameworkId: packageId.slice(0, at), snapshotId: packageId.slice(at + 1) } : {};
  const parts = [sentence];
  if (node.text) parts.push(node.text);
  return {
    content: [{ type: "text", text: parts.join("\n") }],
    structuredContent: {
      selectedStandard: { ...ids, nodeId: node.id, statementCode: node.code, statementType: node.type || null, gradeLevels: node.grades },
    },
  };
}

/** The web addresses in ``text`` (an attribution), split out: [{text} | {url}] in order. */
export function linkParts(text) {
  const parts = [];
  const pattern = /\bhttps?:\/\/[^\s<>"')]+[^\s<>"').,;:]/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > last) parts.push({ text: text.slice(last, match.index) });
    parts.push({ url: match[0] });
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last) });
  return parts;
}
