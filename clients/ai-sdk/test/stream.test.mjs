// The film bot with streamText: a tool step, then the list streamed chunk by
// chunk. The exchange is stored after the stream has ended, and the answer
// never waits on Recall: here Recall's turns route is held shut until the
// whole answer has been read. Then the user answers "2", streamed too.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, test } from "node:test";

import { stepCountIs, streamText, wrapLanguageModel } from "ai";

import { recallMemory } from "../src/index.js";
import { env, provider, received, searchFilms, storedMessages, unique, waitForMessages } from "./support.mjs";

/**
 * gatedRecall is a proxy to the live Recall that holds every POST
 * /v1/turns until open() is called, and counts those it holds.
 */
async function gatedRecall() {
  let open;
  const opened = new Promise((resolve) => {
    open = resolve;
  });
  const state = { held: 0, open: () => open() };
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    if (req.method === "POST" && req.url.startsWith("/v1/turns")) {
      state.held++;
      await opened;
    }
    const headers = { ...req.headers };
    delete headers.host;
    delete headers["content-length"];
    const up = await fetch(env.recallURL + req.url, {
      method: req.method,
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    res.writeHead(up.status, { "Content-Type": up.headers.get("content-type") ?? "application/json" });
    res.end(Buffer.from(await up.arrayBuffer()));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  after(() => server.close());
  state.url = `http://127.0.0.1:${server.address().port}`;
  return state;
}

test("streamed: stored after the stream ends, without holding the answer back; 2 is the second film listed", async () => {
  const user = unique("sdk-stream-user");
  const session = unique("sdk-stream");
  const gate = await gatedRecall();
  const errors = [];
  const memory = recallMemory({
    recall: { url: gate.url, tenant: env.tenant, apiKey: env.recallKey },
    userId: user,
    sessionId: session,
    // The context may come slowly on a loaded machine: this test is about
    // the store not holding the stream back.
    memoryTimeoutMs: 15000,
    onError: (err) => errors.push(err),
  });
  const model = wrapLanguageModel({ model: provider.chatModel("sdk-stream"), middleware: memory });

  const result = streamText({ model, prompt: "Any good dramas?", tools: { search_films: searchFilms }, stopWhen: stepCountIs(5) });
  const chunks = [];
  for await (const delta of result.textStream) {
    chunks.push(delta);
  }
  assert.equal(chunks.join(""), "Two dramas:\n1. Past Lives\n2. Aftersun");
  assert.ok(chunks.length >= 4, `streamed in pieces: ${JSON.stringify(chunks)}`);

  // The whole answer was read while Recall's turns route held its request:
  // the store came after the stream, and nothing waited for it.
  const held = Date.now();
  while (gate.held === 0 && Date.now() - held < 5000) {
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(gate.held, 1, "the exchange was sent to Recall once the stream had ended");
  assert.deepEqual(await storedMessages(session), [], "nothing stored before the route opens");
  gate.open();
  await memory.flush();

  let stored = await waitForMessages(session, 2);
  assert.deepEqual(stored.map((m) => [m.role, m.content]), [
    ["user", "Any good dramas?"],
    ["assistant", "Two dramas:\n1. Past Lives\n2. Aftersun"],
  ]);
  assert.deepEqual(
    stored[1].tool_calls.map(({ id, name, arguments: args, status }) => ({ id, name, args, status })),
    [{ id: "call_sdk_dramas", name: "search_films", args: { genre: "drama" }, status: "ok" }],
  );
  assert.deepEqual(stored[1].tool_calls[0].result, { films: [
    { ref: "/film/aftersun", title: "Aftersun", year: 2022 },
    { ref: "/film/past-lives", title: "Past Lives", year: 2023 },
  ] });
  assert.deepEqual(stored[1].items.map((i) => i.ref), ["/film/past-lives", "/film/aftersun"]);

  // The user answers "2", streamed as well.
  const picked = streamText({ model, prompt: "2" });
  assert.equal(await picked.text, "Aftersun it is.");
  const reqs = await received("sdk-stream");
  assert.equal(reqs.length, 3);
  assert.deepEqual(reqs.map((r) => r.stream), [true, true, true]);
  const system = reqs[2].messages[0];
  assert.equal(system.role, "system", "a memory message first, the app having none");
  assert.ok(system.content.includes('2. "Aftersun" — ref: /film/aftersun'), system.content);
  assert.ok(system.content.includes('picks item 2 of the list just shown: "Aftersun" (ref: /film/aftersun)'), system.content);
  await memory.flush();
  stored = await waitForMessages(session, 4);
  assert.deepEqual(stored[2].metadata, { selection: { n: 2, ref: "/film/aftersun" } });
  assert.equal(stored[3].content, "Aftersun it is.");
  assert.deepEqual(errors, []);
});
