// The keyboard: one tab stop per group of standards (roving tabindex); arrows move (on the map, by grade column
// and row), Home and End jump; Enter and Space select (a button's own click). Each move is announced once.

import { step } from "./layout.js";

/** Give each group of ``root`` one tab stop (``preferred`` where it is in that group). */
export function rovingStops(root, preferred) {
  for (const group of ["hier", "map"]) {
    const members = [...root.querySelectorAll(`.node[data-group="${group}"]`)];
    if (!members.length) continue;
    for (const m of members) m.tabIndex = -1;
    const stop = members.find((m) => m.dataset.id === preferred) || members[0];
    stop.tabIndex = 0;
  }
}

/** Where ``key`` moves focus from ``from`` in ``root``: the target button, or null. */
export function target(root, from, key) {
  const group = from.dataset.group;
  if (group === "map") {
    const columns = [...root.querySelectorAll(".grade")].map((c) => [...c.querySelectorAll(".node")]);
    const c = columns.findIndex((column) => column.includes(from));
    if (c < 0) return null;
    const to = step(columns.map((column) => column.length), [c, columns[c].indexOf(from)], key);
    return to ? columns[to[0]][to[1]] : null;
  }
  const members = [...root.querySelectorAll(`.node[data-group="${group}"]`)];
  const i = members.indexOf(from);
  const to = step([members.length], [0, i], { ArrowRight: "ArrowDown", ArrowLeft: "ArrowUp" }[key] || key);
  return to ? members[to[1]] : null;
}

/** Listen on ``doc`` for moves; ``announce(button)`` once per move. */
export function wireKeys(doc, root, announce) {
  doc.addEventListener("keydown", (event) => {
    const from = event.target;
    if (!(from instanceof HTMLElement)) return;
    if (from.classList.contains("comp") && ["ArrowDown", "ArrowUp"].includes(event.key)) {
      const items = [...doc.querySelectorAll(".comp")];
      const next = items[items.indexOf(from) + (event.key === "ArrowDown" ? 1 : -1)];
      if (next) { from.tabIndex = -1; next.tabIndex = 0; next.focus(); event.preventDefault(); }
      return;
    }
    if (!from.classList.contains("node") || !["ArrowDown", "ArrowUp", "ArrowLeft", "ArrowRight", "Home", "End"].includes(event.key)) return;
    const to = target(root(), from, event.key);
    event.preventDefault();
    if (!to) return;
    from.tabIndex = -1;
    to.tabIndex = 0;
    to.focus();
    to.scrollIntoView({ block: "nearest", inline: "nearest" });
    announce(to);
  });
}
