// The LangGraph film agent (examples/film-agent.mjs): a run that calls
// search_films and lists three films stores the exchange with the call, its
// result and the list; a later run given nothing but "3" reads Recall and
// hands the model item 3's real ref.
import assert from "node:assert/strict";
import { test } from "node:test";

import { HumanMessage } from "@langchain/core/messages";

import { filmAgent } from "../examples/film-agent.mjs";
import { chatModel, filmList, films, received, recallOptions, searchFilms, unique, waitForMessages } from "./support.mjs";

test("film agent: the run's exchange is stored, and 3 reaches the model as the real ref", async () => {
  const config = { configurable: { userId: unique("lc-graph-user"), sessionId: unique("lc-graph") } };
  const session = config.configurable.sessionId;
  const agent = filmAgent({ recall: recallOptions, model: chatModel("lc-film"), tools: [searchFilms] });

  const first = await agent.invoke({ messages: [new HumanMessage("Can you recommend some science fiction films?")] }, config);
  assert.deepEqual(first.messages.map((m) => m.getType()), ["human", "ai", "tool", "ai"]);
  assert.equal(first.messages.at(-1).text, filmList);

  let stored = await waitForMessages(session, 2);
  assert.deepEqual(stored.map((m) => [m.role, m.content]), [
    ["user", "Can you recommend some science fiction films?"],
    ["assistant", filmList],
  ]);
  assert.deepEqual(stored[1].tool_calls, [
    { id: "call_lc_films", name: "search_films", arguments: { query: "science fiction" }, result: { films }, status: "ok" },
  ]);
  assert.deepEqual(stored[1].items.map(({ ref, title }) => ({ ref, title })), [
    { ref: "/film/dune-2021", title: "Dune" },
    { ref: "/film/arrival", title: "Arrival" },
    { ref: "/film/blade-runner-2049", title: "Blade Runner 2049" },
  ]);

  // A new run, with the new message alone: the graph keeps no history.
  const second = await agent.invoke({ messages: [new HumanMessage("3")] }, config);
  assert.equal(second.messages.at(-1).text, "Blade Runner 2049 it is: a slow, beautiful sequel.");

  const reqs = await received("lc-film");
  assert.equal(reqs.length, 3);
  assert.deepEqual(reqs[0].tools, ["search_films"]);
  assert.deepEqual(reqs[1].messages.map((m) => m.role), ["system", "user", "assistant", "tool"]);
  const last = reqs[2].messages;
  assert.deepEqual(last.map((m) => m.role), ["system", "user"]);
  assert.equal(last[1].content, "3");
  const system = last[0].content;
  console.log(`system prompt of the run with "3":\n${system}`);
  assert.ok(system.startsWith("You recommend films. Quote refs exactly as given.\n\n[Memory]"), system);
  assert.ok(system.includes('3. "Blade Runner 2049" — ref: /film/blade-runner-2049'), system);
  assert.ok(system.includes('picks item 3 of the list just shown: "Blade Runner 2049" (ref: /film/blade-runner-2049)'), system);

  stored = await waitForMessages(session, 4);
  assert.deepEqual(stored.slice(2).map((m) => [m.role, m.content]), [
    ["user", "3"],
    ["assistant", "Blade Runner 2049 it is: a slow, beautiful sequel."],
  ]);
  assert.deepEqual(stored[2].metadata, { selection: { n: 3, ref: "/film/blade-runner-2049" } });
});
