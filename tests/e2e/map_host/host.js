// The test host: connects the official MCP client to the real server (same origin, /mcp), declaring the MCP
// Apps extension; shows a tool's answer in the view the tool links, as a host does: the ui:// resource in a
// sandboxed iframe under the CSP its _meta declares, an AppBridge between them, the tool input and result sent.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { AppBridge, PostMessageTransport, getToolUiResourceUri } from "@modelcontextprotocol/ext-apps/app-bridge";

const UI_EXTENSION = "io.modelcontextprotocol/ui";
const UI_MIME = "text/html;profile=mcp-app";
const HOST = { name: "kgfegmcp-test-host", version: "1.0.0" };

// The modern era (2026-07-28) repeats the client's capabilities on every request; with ?era=legacy the client
// speaks 2025-11-25 and declares them on initialize only, which a stateless HTTP server does not keep.
const query = new URLSearchParams(location.search);
const era = query.get("era") === "legacy" ? "legacy" : "auto";
// What the host proxies for its views: tool calls unless ?tools=none; resource reads unless ?resources=none.
const proxies = {
  ...(query.get("tools") === "none" ? {} : { serverTools: {} }),
  ...(query.get("resources") === "none" ? {} : { serverResources: {} }),
};
// What else the host offers its views: with ?features=none nothing (a view must degrade cleanly), otherwise
// opening links, model context updates and a fullscreen display mode. Each request a view makes of them is
// recorded in ``seen`` and answered as a host would; with ?features=decline, offered but each declined (an
// error), as a host does a link it does not allow.
const offersFeatures = query.get("features") !== "none";
const declines = query.get("features") === "decline";
const hostCapabilities = offersFeatures ? { ...proxies, openLinks: {}, updateModelContext: { text: {} } } : proxies;
const displayModes = offersFeatures ? { displayMode: "inline", availableDisplayModes: ["inline", "fullscreen"] } : {};
const seen = [];
// Every method a view sends the host, whether or not the host offers it (to see a view keep to what is offered).
const viewMethods = [];
window.addEventListener("message", (event) => { if (event.data && event.data.method) viewMethods.push(event.data.method); });
const client = new Client(HOST, {
  capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [UI_MIME] } } },
  versionNegotiation: { mode: era },
});
await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.href)));
const { tools } = await client.listTools();

/** The CSP a host derives from the resource's declared domains (none declared: no network at all). */
function contentSecurityPolicy(csp = {}) {
  const list = (domains, none) => (domains && domains.length ? domains.join(" ") : none);
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${list(csp.resourceDomains, "")}`.trim(),
    `style-src 'unsafe-inline' ${list(csp.resourceDomains, "")}`.trim(),
    `img-src data: ${list(csp.resourceDomains, "")}`.trim(),
    `connect-src ${list(csp.connectDomains, "'none'")}`,
    `frame-src ${list(csp.frameDomains, "'none'")}`,
    `base-uri ${list(csp.baseUriDomains, "'none'")}`,
  ].join("; ");
}

let bridge = null;

/** Mount the view ``toolName`` links and send it the tool input; what the host read to mount it. */
async function mount(toolName, args, hostContext) {
  const tool = tools.find((candidate) => candidate.name === toolName);
  const uri = tool && getToolUiResourceUri(tool);
  if (!uri) throw new Error(`${toolName} links no view`);
  const read = await client.readResource({ uri });
  const content = read.contents[0];
  if (content.mimeType !== UI_MIME) throw new Error(`unexpected MIME ${content.mimeType}`);
  const policy = contentSecurityPolicy(content._meta?.ui?.csp);
  // A benchmark may set ``viewOverride`` to another build of the view (an earlier one) to compare in one run.
  const text = window.kgfegmcpHost.viewOverride ?? content.text;
  const html = text.replace("<head>", `<head><meta http-equiv="Content-Security-Policy" content="${policy}">`);

  if (bridge) await bridge.close();
  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.title = "Curriculum map";
  document.getElementById("app").replaceChildren(iframe);
  bridge = new AppBridge(client, HOST, hostCapabilities, {
    hostContext: { theme: "light", locale: "en-US", platform: "web", toolInfo: { tool }, ...displayModes, ...hostContext },
  });
  if (offersFeatures) {
    const decline = (method) => { if (declines) throw new Error(`not allowed here (${method})`); };
    bridge.onopenlink = async (params) => { seen.push({ method: "ui/open-link", params }); decline("ui/open-link"); return {}; };
    bridge.onupdatemodelcontext = async (params) => {
      seen.push({ method: "ui/update-model-context", params });
      decline("ui/update-model-context");
      return {};
    };
    bridge.onrequestdisplaymode = async (params) => {
      seen.push({ method: "ui/request-display-mode", params });
      decline("ui/request-display-mode");
      iframe.classList.toggle("fullscreen", params.mode === "fullscreen");
      return { mode: params.mode === "fullscreen" ? "fullscreen" : "inline" };
    };
  }
  bridge.onsizechange = ({ height }) => { if (height) iframe.style.height = `${height}px`; };
  const initialized = new Promise((resolve) => { bridge.oninitialized = resolve; });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = html;
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  return { uri, csp: content._meta?.ui?.csp ?? null, bytes: text.length };
}

/** Mount the view ``toolName`` links and send it ``result`` (the tool's answer when not given). */
async function show(toolName, args, hostContext = {}, given = null) {
  const mounted = await mount(toolName, args, hostContext);
  const result = given ?? (await client.callTool({ name: toolName, arguments: args }));
  await bridge.sendToolResult(result);
  return { ...mounted, structured: Boolean(result.structuredContent) };
}

/** Mount the view ``toolName`` links, then cancel the call instead of answering it. */
async function cancel(toolName, args, reason) {
  const mounted = await mount(toolName, args, {});
  await bridge.sendToolCancelled({ reason });
  return mounted;
}

const call = (name, args) => client.callTool({ name, arguments: args });
window.kgfegmcpHost = { show, cancel, call, seen, viewMethods, viewOverride: null, tools: tools.map((tool) => ({ name: tool.name, meta: tool._meta ?? null })) };
document.documentElement.dataset.ready = "true";
