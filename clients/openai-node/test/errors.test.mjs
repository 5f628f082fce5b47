// What the gateway answers besides a chat: an upstream's error reaches the
// SDK as the APIError it is, a malformed request and a wrong Recall key are
// refused in the protocol's words (never reaching the upstream), and the
// model list and a model pass through.
import assert from "node:assert/strict";
import { test } from "node:test";

import OpenAI from "openai";

import { env, gateway, waitForMessages } from "./support.mjs";

test("errors: the upstream's 429 surfaces as a RateLimitError, streamed or not, and stores nothing", async () => {
  const session = "node-errors";
  const client = gateway(session);
  const failing = { model: "rate-limited", messages: [{ role: "user", content: "Recommend me a thriller" }] };
  const isRateLimit = (err) => {
    assert.ok(err instanceof OpenAI.APIError, `an APIError: ${err}`);
    assert.ok(err instanceof OpenAI.RateLimitError, `a RateLimitError: ${err}`);
    assert.equal(err.status, 429);
    assert.equal(err.type, "rate_limit_error");
    assert.match(err.message, /^429 Rate limit reached for requests/);
    assert.equal(err.headers.get("retry-after"), "20");
    return true;
  };
  await assert.rejects(client.chat.completions.create(failing), isRateLimit);
  await assert.rejects(client.chat.completions.stream(failing).finalChatCompletion(), isRateLimit);

  // The same session goes on; only this exchange is stored.
  const ok = await client.chat.completions.create({ model: "rate-limited", messages: [{ role: "user", content: "What's on at the cinema tonight?" }] });
  const stored = await waitForMessages(session, 2);
  assert.deepEqual(stored.map((m) => [m.role, m.content]), [
    ["user", "What's on at the cinema tonight?"],
    ["assistant", ok.choices[0].message.content],
  ]);
});

test("errors: an empty messages array is a BadRequestError naming the param", async () => {
  const err = await gateway("node-errors").chat.completions.create({ model: "malformed", messages: [] }).then(
    () => assert.fail("an empty messages array was accepted"),
    (e) => e,
  );
  assert.ok(err instanceof OpenAI.BadRequestError, `a BadRequestError: ${err}`);
  assert.equal(err.status, 400);
  assert.equal(err.type, "invalid_request_error");
  assert.equal(err.param, "messages");
  assert.match(err.message, /^400 /);
});

test("errors: a wrong Recall key is an AuthenticationError", async () => {
  const client = gateway("node-errors", { recallKey: "not-the-tenants-key-0123456789" });
  await assert.rejects(
    client.chat.completions.create({ model: "unauthorized", messages: [{ role: "user", content: "hi" }] }),
    (err) => err instanceof OpenAI.AuthenticationError && err.status === 401 && err.type === "authentication_error",
  );
});

test("models: client.models.list() passes through to the upstream", async () => {
  const client = gateway("node-models");
  const page = await client.models.list();
  assert.deepEqual(page.data.map((m) => m.id), env.models);
  const ids = [];
  for await (const m of client.models.list()) {
    ids.push(m.id);
  }
  assert.deepEqual(ids, env.models, "the SDK's auto-pagination reads the same list");
});

test("models: client.models.retrieve() passes through, an id with a slash as one segment", async () => {
  const client = gateway("node-models");
  const model = await client.models.retrieve(env.models[0]);
  assert.equal(model.id, env.models[0]);
  // The SDK sends org%2Fnot-served; the upstream gets the same one segment
  // and names the whole id in its 404.
  await assert.rejects(client.models.retrieve("org/not-served"), (err) => {
    assert.ok(err instanceof OpenAI.NotFoundError, `a NotFoundError: ${err}`);
    assert.match(err.message, /The model 'org\/not-served' does not exist/);
    return true;
  });
});
