// Streamed answers through the gateway, read with the SDK's two ways of
// reading them: iterating the chunks of create({stream: true}), and the
// runTools helper, which streams (ChatCompletionStream), calls the tool and
// sends its result back by itself. Pieces must arrive as the model sends
// them (the fake pauses between them), a streamed tool call must reassemble
// to its arguments, and the reply is stored once its stream has ended.
import assert from "node:assert/strict";
import { test } from "node:test";

import { gateway, searchFilms, selection, storedMessages, waitForMessages } from "./support.mjs";

/** The pieces the fake sends the dramas reply in, 250 ms apart (clients/openai_node_test.go). */
const dramaPieces = ["Two", " dramas:\n", "1. Past Lives\n", "2. Aftersun"];

/** The pause the fake makes before every piece but the first. */
const pieceDelayMs = 250;

test("stream: chunks arrive as they are sent, a streamed tool call reassembles, the reply is stored once the stream ended", async () => {
  const session = "node-stream";
  const client = gateway(session);
  const messages = [{ role: "user", content: "Some dramas please" }];

  // The model calls the tool, its arguments streamed in fragments.
  const calls = [];
  let fragments = 0;
  for await (const chunk of await client.chat.completions.create({ model: "stream-bot", stream: true, messages, tools: [searchFilms] })) {
    for (const d of chunk.choices[0]?.delta?.tool_calls ?? []) {
      calls[d.index] ??= { id: "", type: "function", function: { name: "", arguments: "" } };
      const c = calls[d.index];
      c.id ||= d.id ?? "";
      c.function.name += d.function?.name ?? "";
      if (d.function?.arguments) {
        c.function.arguments += d.function.arguments;
        fragments++;
      }
    }
  }
  assert.equal(calls.length, 1);
  assert.ok(calls[0].id, "the call has its id");
  assert.equal(calls[0].function.name, "search_films");
  assert.ok(fragments > 1, `the arguments came in ${fragments} fragments`);
  assert.deepEqual(JSON.parse(calls[0].function.arguments), { genre: "drama" });

  messages.push(
    { role: "assistant", content: null, tool_calls: calls },
    {
      role: "tool",
      tool_call_id: calls[0].id,
      content: JSON.stringify([
        { url: "https://films.example/past-lives", name: "Past Lives" },
        { url: "https://films.example/aftersun", name: "Aftersun" },
      ]),
    },
  );

  // The list, piece by piece.
  const start = performance.now();
  const pieces = [];
  let first = 0;
  let storedMidStream;
  const stream = await client.chat.completions.create({ model: "stream-bot", stream: true, messages, tools: [searchFilms] });
  for await (const chunk of stream) {
    const piece = chunk.choices[0]?.delta?.content;
    if (!piece) {
      continue;
    }
    pieces.push(piece);
    if (pieces.length === 1) {
      first = performance.now() - start;
      storedMidStream = await storedMessages(session);
    }
  }
  const total = performance.now() - start;
  assert.deepEqual(pieces, dramaPieces, "each piece as the model sent it");
  assert.ok(
    first < total - 2 * pieceDelayMs,
    `the first piece came ${Math.round(first)} ms in, the stream ended at ${Math.round(total)} ms: the gateway held it back`,
  );
  assert.ok(
    storedMidStream.every((m) => m.role !== "assistant"),
    `no reply stored while its stream runs: ${JSON.stringify(storedMidStream)}`,
  );

  const stored = await waitForMessages(session, 2);
  assert.deepEqual(stored.map((m) => [m.role, m.content]), [
    ["user", "Some dramas please"],
    ["assistant", dramaPieces.join("")],
  ]);
  assert.deepEqual(
    stored[1].tool_calls.map(({ id, name, arguments: args }) => ({ id, name, args })),
    [{ id: calls[0].id, name: "search_films", args: { genre: "drama" } }],
  );
  assert.equal(stored[1].tool_calls[0].result[1].name, "Aftersun");
  assert.equal((await selection(session, 2)).item.ref, "https://films.example/aftersun");
});

test("stream: runTools streams, calls the tool and sends its result back; the exchange is stored once", async () => {
  const session = "node-runner";
  const client = gateway(session);
  const asked = [];
  const animated = {
    results: [
      { ref: "/film/spirited-away", title: "Spirited Away" },
      { ref: "/film/the-iron-giant", title: "The Iron Giant" },
    ],
  };
  const runner = client.chat.completions.runTools({
    model: "runner-bot",
    stream: true,
    messages: [{ role: "user", content: "Any animated films for tonight?" }],
    tools: [
      {
        type: "function",
        function: {
          ...searchFilms.function,
          parse: JSON.parse,
          function: async (args) => {
            asked.push(args);
            return animated;
          },
        },
      },
    ],
  });
  const deltas = [];
  let firstDelta = 0;
  runner.on("content", (delta) => {
    firstDelta ||= performance.now();
    deltas.push(delta);
  });
  const content = await runner.finalContent();
  const lastDelta = performance.now();

  assert.deepEqual(asked, [{ genre: "animation" }], "the tool was called once, with the streamed arguments");
  assert.ok(deltas.length > 1, `the reply came in ${deltas.length} pieces`);
  // Four pieces, 100 ms apart (clients/openai_node_test.go).
  assert.ok(lastDelta - firstDelta > 200, `the pieces came within ${Math.round(lastDelta - firstDelta)} ms: the gateway held them back`);
  assert.equal(deltas.join(""), content);
  assert.match(content, /1\. Spirited Away\n2\. The Iron Giant/);

  const stored = await waitForMessages(session, 2);
  assert.deepEqual(stored.map((m) => [m.role, m.content]), [
    ["user", "Any animated films for tonight?"],
    ["assistant", content],
  ]);
  assert.equal(stored[1].tool_calls.length, 1);
  assert.deepEqual(stored[1].tool_calls[0].result, animated);
  assert.deepEqual(stored[1].items.map((i) => i.ref), ["/film/spirited-away", "/film/the-iron-giant"]);
});
