// The film bot through the gateway, not streamed: the model calls a tool,
// lists three of the films it returned, and the user answers "3". The
// gateway must store each turn once, the tool's results with its call, the
// list as the reply's items, and resolve "3" to the third item's real ref
// (clients_test.go checks that the model upstream was told that ref).
import assert from "node:assert/strict";
import { test } from "node:test";

import { gateway, searchFilms, selection, waitForMessages } from "./support.mjs";

const session = "node-film";

/**
 * What the search_films tool returns: objects with ids and refs and titles,
 * in another order than the reply lists them, with one the reply leaves
 * out. The ref is what the stored items must carry (preferred to the id).
 */
const films = [
  { id: 335984, ref: "/film/blade-runner-2049", title: "Blade Runner 2049", year: 2017 },
  { id: 329865, ref: "/film/arrival", title: "Arrival", year: 2016 },
  { id: 438631, ref: "/film/dune-2021", title: "Dune", year: 2021 },
  { id: 157336, ref: "/film/interstellar", title: "Interstellar", year: 2014 },
];

test("film bot: the tool's results, the list and the pick are stored once, and 3 is the third film listed", async () => {
  const client = gateway(session);
  const messages = [
    { role: "system", content: "You recommend films." },
    { role: "user", content: "Can you recommend some science fiction films?" },
  ];

  // 1. The model asks for the tool.
  const { data: asked, response } = await client.chat.completions
    .create({ model: "film-bot", messages, tools: [searchFilms] })
    .withResponse();
  assert.equal(response.headers.get("x-recall-memory"), "on");
  assert.equal(response.headers.get("x-recall-session-id"), session);
  assert.equal(asked.choices[0].finish_reason, "tool_calls");
  const calls = asked.choices[0].message.tool_calls;
  assert.equal(calls.length, 1);
  assert.equal(calls[0].function.name, "search_films");
  assert.deepEqual(JSON.parse(calls[0].function.arguments), { query: "science fiction" });

  // 2. The tool answers; the model lists three of its films.
  messages.push(asked.choices[0].message, {
    role: "tool",
    tool_call_id: calls[0].id,
    content: JSON.stringify({ films }),
  });
  const listed = await client.chat.completions.create({ model: "film-bot", messages, tools: [searchFilms] });
  const list = listed.choices[0].message.content;
  assert.match(list, /1\. Dune[^\n]*\n2\. Arrival[^\n]*\n3\. Blade Runner 2049/);
  messages.push(listed.choices[0].message);

  // Stored so far: the question, and the reply with the call, its result and
  // the list's items in the list's order.
  let stored = await waitForMessages(session, 2);
  assert.deepEqual(stored.map((m) => [m.role, m.content]), [
    ["user", "Can you recommend some science fiction films?"],
    ["assistant", list],
  ]);
  const items = [
    { ref: "/film/dune-2021", title: "Dune" },
    { ref: "/film/arrival", title: "Arrival" },
    { ref: "/film/blade-runner-2049", title: "Blade Runner 2049" },
  ];
  assert.deepEqual(stored[1].items.map(({ ref, title }) => ({ ref, title })), items);
  assert.equal(stored[1].tool_calls.length, 1);
  const { id, name, arguments: args, result } = stored[1].tool_calls[0];
  assert.deepEqual({ id, name, args, result }, { id: calls[0].id, name: "search_films", args: { query: "science fiction" }, result: { films } });

  // 3. The user picks the third.
  messages.push({ role: "user", content: "3" });
  const picked = await client.chat.completions.create({ model: "film-bot", messages, tools: [searchFilms] });
  const answer = picked.choices[0].message.content;
  assert.ok(answer, "the model answered the pick");

  stored = await waitForMessages(session, 4);
  assert.deepEqual(
    stored.map((m) => [m.role, m.content]),
    [
      ["user", "Can you recommend some science fiction films?"],
      ["assistant", list],
      ["user", "3"],
      ["assistant", answer],
    ],
    "every turn once, the resent history stored nothing twice",
  );
  assert.deepEqual(stored[1].tool_calls.map((c) => c.id), [calls[0].id], "the call is stored with the reply that followed it, and only there");
  for (const i of [0, 2, 3]) {
    assert.equal(stored[i].tool_calls, undefined, `message ${i} carries no tool call`);
    assert.equal(stored[i].items, undefined, `message ${i} presents no list`);
  }

  const sel = await selection(session, 3);
  assert.equal(sel.n, 3);
  assert.equal(sel.item.ref, "/film/blade-runner-2049");
  assert.equal(sel.item.title, "Blade Runner 2049");
});
