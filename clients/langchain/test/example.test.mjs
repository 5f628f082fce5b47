// example.mjs, the README's example, run as an app runs it: one process a
// message. Its second run remembers what the first was told.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { promisify } from "node:util";

import { env, received, unique, waitForMessages } from "./support.mjs";

const run = promisify(execFile);

test("example.mjs: each run stores its exchange, and the next run's prompt holds it", async () => {
  const session = unique("lc-example");
  const vars = {
    ...process.env,
    RECALL_USER_ID: unique("lc-example-user"),
    RECALL_SESSION_ID: session,
    OPENAI_BASE_URL: env.modelURL,
    OPENAI_API_KEY: "test-model-key",
    MODEL: "lc-example",
  };
  const first = await run("node", ["example.mjs", "My name is Ada and I live in Lisbon."], { env: vars });
  assert.equal(first.stdout, "Nice to meet you, Ada.\n");
  await waitForMessages(session, 2);

  const second = await run("node", ["example.mjs", "Where do I live?"], { env: vars });
  assert.equal(second.stdout, "In Lisbon.\n");
  const reqs = await received("lc-example");
  assert.equal(reqs.length, 2);
  const system = reqs[1].messages[0].content;
  assert.ok(system.startsWith("You are a helpful assistant.\n\n[Memory]"), system);
  assert.ok(system.includes("User: My name is Ada and I live in Lisbon."), system);
  const stored = await waitForMessages(session, 4);
  assert.deepEqual(stored.map((m) => m.content), ["My name is Ada and I live in Lisbon.", "Nice to meet you, Ada.", "Where do I live?", "In Lisbon."]);
});
