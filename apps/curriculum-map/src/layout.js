// Where things go: standards in grade columns (the profile's order), links as curves between them. Pure.

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

/** The columns of ``nodes``: one per grade in ``grades`` order (a node sits in its first grade in that order),
 *  then one for nodes of no grade; empty grades are left out. Within a column, by code (numbers counted). */
export function columnsOf(nodes, grades) {
  const rank = new Map(grades.map((g, i) => [g.label, i]));
  const columns = new Map();
  for (const node of nodes) {
    const ranked = node.grades.filter((label) => rank.has(label)).sort((a, b) => rank.get(a) - rank.get(b));
    const label = ranked.length ? ranked[0] : "";
    if (!columns.has(label)) columns.set(label, []);
    columns.get(label).push(node);
  }
  const keyOf = (n) => n.code || n.text || n.id;
  const ordered = [...columns.entries()].sort(([a], [b]) =>
    (a === "" ? grades.length : rank.get(a)) - (b === "" ? grades.length : rank.get(b)));
  return ordered.map(([label, members]) => ({
    label,
    display: label === "" ? null : grades[rank.get(label)].display,
    nodes: [...members].sort((x, y) => collator.compare(keyOf(x), keyOf(y))),
  }));
}

/** The SVG path of a link from box ``a`` to box ``b`` (each {x, y, w, h}, in the canvas's pixels): from a side
 *  of ``a`` to the facing side of ``b``; between boxes of one column, a bow out to the right that stays within
 *  ``room`` pixels of it (the gap between columns), so it never runs under the next column's standards. */
export function edgePath(a, b, room = 56) {
  const ay = a.y + a.h / 2;
  const by = b.y + b.h / 2;
  const r = (v) => Math.round(v * 10) / 10;
  if (b.x >= a.x + a.w) {
    const x1 = a.x + a.w, x2 = b.x, dx = Math.max(24, (x2 - x1) / 2);
    return `M${r(x1)},${r(ay)} C${r(x1 + dx)},${r(ay)} ${r(x2 - dx)},${r(by)} ${r(x2)},${r(by)}`;
  }
  if (a.x >= b.x + b.w) {
    const x1 = a.x, x2 = b.x + b.w, dx = Math.max(24, (x1 - x2) / 2);
    return `M${r(x1)},${r(ay)} C${r(x1 - dx)},${r(ay)} ${r(x2 + dx)},${r(by)} ${r(x2)},${r(by)}`;
  }
  // A cubic's control points at x + bow reach out three quarters of bow.
  const most = Math.max(8, (room - 4) / 0.75);
  const x1 = a.x + a.w, x2 = b.x + b.w, bow = Math.min(most, 18 + Math.min(40, Math.abs(by - ay) / 6));
  return `M${r(x1)},${r(ay)} C${r(x1 + bow)},${r(ay)} ${r(x2 + bow)},${r(by)} ${r(x2)},${r(by)}`;
}

/** Where a pane showing ``size`` of its ``extent`` pixels along one axis is scrolled to show the item at
 *  [``from``, ``to``] (in the pane's content pixels) whole: at its start when the item shows from there, else with
 *  the item in the middle, within the pane's bounds; an item larger than the pane from its start (the pane then
 *  shows it whole as soon as it grows, as a frame the host is still fitting to the view does). */
export function scrollToShow(size, extent, from, to) {
  if (to <= size) return 0;
  const wanted = to - from > size ? from : Math.round((from + to) / 2 - size / 2);
  return Math.max(0, Math.min(Math.max(0, extent - size), wanted));
}

/** The first characters of ``text`` on a node: whole words up to ``max`` characters, then an ellipsis. */
export function snippet(text, max = 90) {
  if (typeof text !== "string") return "";
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return `${(space >= max * 0.5 ? cut.slice(0, space) : cut).replace(/[\s,.;:]+$/, "")}…`;
}

/** Where an arrow key leads from ``[column, row]`` in ``sizes`` (the number of nodes of each column); null: nowhere. */
export function step(sizes, at, key) {
  const [c, r] = at;
  if (key === "ArrowDown") return r + 1 < sizes[c] ? [c, r + 1] : null;
  if (key === "ArrowUp") return r > 0 ? [c, r - 1] : null;
  if (key === "ArrowRight" || key === "ArrowLeft") {
    const d = key === "ArrowRight" ? 1 : -1;
    for (let next = c + d; next >= 0 && next < sizes.length; next += d) {
      if (sizes[next]) return [next, Math.min(r, sizes[next] - 1)];
    }
    return null;
  }
  if (key === "Home") return sizes.some(Boolean) ? [sizes.findIndex(Boolean), 0] : null;
  if (key === "End") {
    for (let last = sizes.length - 1; last >= 0; last -= 1) if (sizes[last]) return [last, sizes[last] - 1];
  }
  return null;
}
