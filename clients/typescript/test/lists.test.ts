// The presented-list rules on their own: no Recall needed.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { listCandidates, listEntries, pickedNumber, presentedItems } from "../src/index.js";

const films = [
  { id: 335984, ref: "/film/blade-runner-2049", title: "Blade Runner 2049", year: 2017 },
  { id: 329865, ref: "/film/arrival", title: "Arrival", year: 2016 },
  { id: 438631, ref: "/film/dune-2021", title: "Dune", year: 2021 },
  { id: 78, ref: "/film/blade-runner", title: "Blade Runner", year: 1982 },
];

describe("listCandidates", () => {
  it("finds list-like objects wherever a tool nests them, in document order, once each", () => {
    const got = listCandidates({ films }, JSON.stringify({ content: [{ text: JSON.stringify([{ url: "https://x.test/a", name: "A" }]) }] }), [
      { ref: "/film/arrival", title: "Arrival again" },
      { title: "no id" },
      { ref: "/no-title" },
    ]);
    assert.deepEqual(
      got.map((c) => `${c.ref}=${c.title}`),
      ["/film/blade-runner-2049=Blade Runner 2049", "/film/arrival=Arrival", "/film/dune-2021=Dune", "/film/blade-runner=Blade Runner", "https://x.test/a=A"],
    );
    assert.deepEqual(got[0]?.attrs, films[0]);
  });
  it("takes an id when there is no ref, and a number as written", () => {
    assert.deepEqual(listCandidates([{ id: 42, name: "Life" }]).map((c) => c.ref), ["42"]);
  });
});

describe("listEntries", () => {
  it("reads the last numbered list, its markup taken off", () => {
    const reply = "Options:\n1. Old\n2. Older\n\nHere are three:\n1. **Dune** (2021)\n2) Arrival\n3、Blade Runner 2049\nEnjoy!";
    assert.deepEqual(listEntries(reply), [
      { n: 1, text: "Dune (2021)" },
      { n: 2, text: "Arrival" },
      { n: 3, text: "Blade Runner 2049" },
    ]);
  });
  it("gives up on a broken sequence, on 1. repeated, and reads no decimals", () => {
    assert.deepEqual(listEntries("1. A\n2. B\n4. D"), []);
    assert.deepEqual(listEntries("1. A\n1. B\n1. C"), []);
    assert.deepEqual(listEntries("It runs 2.5 hours.\n1.5 stars"), []);
  });
});

describe("presentedItems", () => {
  it("pairs each entry with the one candidate its head names, in the reply's order", () => {
    const reply = "Here are three:\n1. Dune (2021), spice\n2. Arrival (2016) — better than Blade Runner\n3. Blade Runner 2049 (2017)";
    assert.deepEqual(
      presentedItems(reply, listCandidates({ films }))?.map((c) => c.ref),
      ["/film/dune-2021", "/film/arrival", "/film/blade-runner-2049"],
    );
  });
  it("gives nothing when an entry names no candidate, two, or one already named", () => {
    const c = listCandidates({ films });
    assert.equal(presentedItems("1. Dune\n2. Solaris", c), undefined);
    assert.equal(presentedItems("1. Dune and Arrival\n2. Blade Runner", c), undefined);
    assert.equal(presentedItems("1. Dune\n2. Dune, again", c), undefined);
    assert.equal(presentedItems("No list here: Dune, Arrival.", c), undefined);
  });
  it("tells items of one title apart by the ref the entry writes", () => {
    const c = listCandidates([
      { ref: "/film/dune-1984", title: "Dune" },
      { ref: "/film/dune-2021", title: "Dune" },
    ]);
    assert.deepEqual(presentedItems("1. Dune (/film/dune-2021)\n2. Dune (/film/dune-1984)", c)?.map((x) => x.ref), ["/film/dune-2021", "/film/dune-1984"]);
  });
});

describe("pickedNumber", () => {
  it("reads a bare pick and nothing else", () => {
    for (const [text, n] of [["3", 3], [" 3. ", 3], ["#2", 2], ["no. 4", 4], ["Number 1", 1]] as const) {
      assert.equal(pickedNumber(text), n, text);
    }
    for (const text of ["0", "3 of them", "give me 3", "3.5", ""]) {
      assert.equal(pickedNumber(text), undefined, text);
    }
  });
});
