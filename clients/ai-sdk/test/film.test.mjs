// The film bot with generateText: the model calls search_films, the SDK
// runs it and calls the model again, which lists three of the films. The
// exchange is stored with the call, its result and the list's items; then,
// in a new request that carries nothing but "3" (as a new process of the
// app would send it), the model is told item 3's real ref.
import assert from "node:assert/strict";
import { test } from "node:test";

import { generateText, stepCountIs, wrapLanguageModel } from "ai";

import { recallMemory } from "../src/index.js";
import { provider, received, recallOptions, searchFilms, unique, waitForMessages } from "./support.mjs";

test("film bot: the exchange is stored with its tool call, result and list, and 3 reaches the model as the real ref", async () => {
  const user = unique("sdk-film-user");
  const session = unique("sdk-film");
  const errors = [];
  const app = () => {
    // A loaded machine may take longer than the default wait for a context;
    // this test is about what the memory holds, not how fast it comes.
    const memory = recallMemory({ recall: recallOptions, userId: user, sessionId: session, memoryTimeoutMs: 15000, onError: (err) => errors.push(err) });
    return { memory, model: wrapLanguageModel({ model: provider.chatModel("sdk-film"), middleware: memory }) };
  };

  // 1. The question: a tool step, then the list.
  const first = app();
  const asked = await generateText({
    model: first.model,
    system: "You recommend films.",
    prompt: "Can you recommend some science fiction films?",
    tools: { search_films: searchFilms },
    stopWhen: stepCountIs(5),
  });
  assert.equal(asked.steps.length, 2);
  assert.equal(asked.text, "Here are three science-fiction films:\n1. Dune (2021), spice and sandworms\n2. Arrival (2016), language as time\n3. Blade Runner 2049 (2017), replicants and memory");

  await first.memory.flush();
  let stored = await waitForMessages(session, 2);
  assert.deepEqual(stored.map((m) => [m.role, m.content]), [
    ["user", "Can you recommend some science fiction films?"],
    ["assistant", asked.text],
  ]);
  assert.equal(stored[1].tool_calls.length, 1);
  const { id, name, arguments: args, result, status } = stored[1].tool_calls[0];
  assert.deepEqual({ name, args, status }, { name: "search_films", args: { query: "science fiction" }, status: "ok" });
  assert.equal(id, "call_sdk_films");
  assert.deepEqual(result.films.map((f) => f.ref), ["/film/blade-runner-2049", "/film/arrival", "/film/dune-2021", "/film/interstellar"]);
  assert.deepEqual(
    stored[1].items.map(({ ref, title }) => ({ ref, title })),
    [
      { ref: "/film/dune-2021", title: "Dune" },
      { ref: "/film/arrival", title: "Arrival" },
      { ref: "/film/blade-runner-2049", title: "Blade Runner 2049" },
    ],
    "the list's items in the list's order, not the tool's",
  );
  assert.ok(new Date(stored[0].occurred_at) < new Date(stored[1].occurred_at), "the question before the answer");

  // The SDK's second model call carried the tool's result back.
  let reqs = await received("sdk-film");
  assert.equal(reqs.length, 2);
  assert.deepEqual(reqs[0].tools, ["search_films"]);
  assert.deepEqual(reqs[1].messages.map((m) => m.role), ["system", "user", "assistant", "tool"]);
  assert.equal(reqs[1].messages[3].tool_call_id, "call_sdk_films");

  // 2. A new request, as a new process of the app sends it: "3" alone.
  const second = app();
  const picked = await generateText({ model: second.model, system: "You recommend films.", prompt: "3" });
  assert.equal(picked.text, "Blade Runner 2049 it is: a slow, beautiful sequel.");

  reqs = await received("sdk-film");
  assert.equal(reqs.length, 3);
  const last = reqs[2].messages;
  assert.deepEqual(last.map((m) => m.role), ["system", "user"], "the memory is merged into the system message");
  assert.deepEqual(last[1], { role: "user", content: "3" });
  const system = last[0].content;
  console.log(`system prompt of the request with "3":\n${system}`);
  assert.ok(system.startsWith("You recommend films.\n\n[Memory]"), system);
  // From Recall's context: the list with its refs, and the earlier turns.
  assert.ok(system.includes('3. "Blade Runner 2049" — ref: /film/blade-runner-2049'), system);
  assert.ok(system.includes("Can you recommend some science fiction films?"), system);
  // From Recall's selection route: the pick itself.
  assert.ok(system.includes('picks item 3 of the list just shown: "Blade Runner 2049" (ref: /film/blade-runner-2049)'), system);

  await second.memory.flush();
  stored = await waitForMessages(session, 4);
  assert.deepEqual(stored.slice(2).map((m) => [m.role, m.content]), [
    ["user", "3"],
    ["assistant", "Blade Runner 2049 it is: a slow, beautiful sequel."],
  ]);
  assert.deepEqual(stored[2].metadata, { selection: { n: 3, ref: "/film/blade-runner-2049" } });
  assert.equal(stored[3].tool_calls, undefined);
  assert.equal(stored[3].items, undefined);
  assert.deepEqual(errors, []);
});
