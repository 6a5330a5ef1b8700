import { test } from "node:test";
import assert from "node:assert/strict";
import { columnsOf, edgePath, scrollToShow, snippet, step } from "../src/layout.js";
import { ADAPTERS } from "../src/adapters.js";
import { answer } from "./fixtures.mjs";

test("columns run in the profile's order: Educação Infantil age groups youngest first", () => {
  const g = ADAPTERS.traverse_learning_progressions.read(answer("ei", "traverse_learning_progressions"));
  const columns = columnsOf([...g.nodes.values()], g.grades);
  assert.deepEqual(columns.map((c) => c.label), ["Bebês", "Crianças bem pequenas", "Crianças pequenas"]);
  assert.match(columns[0].display, /^Bebês \(/);
});

test("a standard of several grades sits in its first; standards of no grade last; codes in number order", () => {
  const grades = [{ label: "1", display: "Grade 1" }, { label: "2", display: "Grade 2" }];
  const nodes = [{ id: "a", code: "X10", grades: ["2"] }, { id: "b", code: "X9", grades: ["2", "1"] },
    { id: "c", code: "X2", grades: [] }, { id: "d", code: "X9", grades: ["2"] }, { id: "e", code: "X10b", grades: ["2"] }];
  const columns = columnsOf(nodes, grades);
  assert.deepEqual(columns.map((c) => [c.label, c.nodes.map((n) => n.id)]), [["1", ["b"]], ["2", ["d", "a", "e"]], ["", ["c"]]]);
  assert.equal(columns[2].display, null);
});

test("a link runs from the facing side of its source to its target; in one column it bows out", () => {
  const a = { x: 0, y: 0, w: 100, h: 40 };
  const right = { x: 200, y: 100, w: 100, h: 40 };
  assert.equal(edgePath(a, right), "M100,20 C150,20 150,120 200,120");
  assert.match(edgePath(right, a), /^M200,120 C/);
  assert.match(edgePath(right, a), / 100,20$/);
  const below = { x: 0, y: 100, w: 100, h: 40 };
  assert.match(edgePath(a, below), /^M100,20 C\d+(\.\d)?,20 \d+(\.\d)?,120 100,120$/);
});

test("a node shows the start of its statement, cut at a word", () => {
  assert.equal(snippet("short"), "short");
  assert.equal(snippet("one two three four five", 12), "one two…");
  assert.equal(snippet("x".repeat(8000), 10), `${"x".repeat(10)}…`);
  assert.equal(snippet(null), "");
});

test("arrow keys move by row and column, skipping empty columns, and stop at the edges", () => {
  const sizes = [2, 0, 3];
  assert.deepEqual(step(sizes, [0, 1], "ArrowRight"), [2, 1]);
  assert.deepEqual(step(sizes, [2, 2], "ArrowLeft"), [0, 1]);
  assert.equal(step(sizes, [0, 1], "ArrowDown"), null);
  assert.equal(step(sizes, [0, 0], "ArrowUp"), null);
  assert.deepEqual(step(sizes, [2, 1], "Home"), [0, 0]);
  assert.deepEqual(step(sizes, [0, 0], "End"), [2, 2]);
});

test("a map area stays at its start when the focus shows from there, else centres it, within its bounds", () => {
  // 700 pixels shown of 1240: a card at 381-525 shows from the start; one at 800-944 is brought to the middle;
  // one at the far end only as far as the area scrolls.
  assert.equal(scrollToShow(700, 1240, 381, 525), 0);
  assert.equal(scrollToShow(700, 1240, 800, 944), 522);
  assert.equal(scrollToShow(700, 1240, 1096, 1240), 540);
  // An area that does not scroll.
  assert.equal(scrollToShow(700, 700, 600, 700), 0);
  // An area smaller than the card (a frame still growing): the card's start at the area's start.
  assert.equal(scrollToShow(112, 2000, 400, 541), 400);
});

test("a bow between standards of one column stays within the gap before the next column", () => {
  const a = { x: 0, y: 0, w: 100, h: 40 };
  const far = { x: 0, y: 900, w: 100, h: 40 };
  for (const room of [28, 36, 56]) {
    const [, c1] = /^M100,20 C([\d.]+),/.exec(edgePath(a, far, room));
    assert.ok((Number(c1) - 100) * 0.75 <= room - 4 + 0.1, `${room}: ${c1}`); // coordinates to a tenth
  }
});
