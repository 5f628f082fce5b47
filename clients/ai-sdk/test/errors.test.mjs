// Recall out of reach never fails the app's call: the model answers without
// memory, and the errors go to onError. A call may turn memory off itself.
import assert from "node:assert/strict";
import { test } from "node:test";

import { generateText, streamText, wrapLanguageModel } from "ai";

import { recallMemory } from "../src/index.js";
import { env, provider, received, recallOptions, storedMessages, unique } from "./support.mjs";

test("Recall out of reach: the answer comes without memory, generated and streamed, and the errors are reported", async () => {
  const errors = [];
  const memory = recallMemory({
    // Nothing listens on port 9 (discard) here: every request is refused at once.
    recall: { url: "http://127.0.0.1:9", tenant: env.tenant, apiKey: env.recallKey, retry: { attempts: 1 } },
    userId: unique("sdk-errors-user"),
    sessionId: unique("sdk-errors"),
    onError: (err, info) => errors.push(info.phase),
  });
  const model = wrapLanguageModel({ model: provider.chatModel("sdk-errors"), middleware: memory });

  const generated = await generateText({ model, system: "Be brief.", prompt: "Hello?" });
  assert.equal(generated.text, "Still here without memory.");
  const streamed = streamText({ model, system: "Be brief.", prompt: "Hello again?" });
  assert.equal(await streamed.text, "Still streaming.");
  await memory.flush();
  assert.deepEqual(errors.sort(), ["context", "context", "store", "store"]);

  const reqs = await received("sdk-errors");
  assert.deepEqual(reqs[0].messages, [
    { role: "system", content: "Be brief." },
    { role: "user", content: "Hello?" },
  ]);
});

test("providerOptions.recall.memory false: nothing read, nothing stored", async () => {
  const session = unique("sdk-off");
  const errors = [];
  const memory = recallMemory({ recall: recallOptions, userId: unique("sdk-off-user"), sessionId: session, onError: (err) => errors.push(err) });
  const model = wrapLanguageModel({ model: provider.chatModel("sdk-errors"), middleware: memory });
  const result = await generateText({ model, system: "Be brief.", prompt: "Off the record?", providerOptions: { recall: { memory: false } } });
  assert.equal(result.text, "Nothing remembered.");
  await memory.flush();
  const reqs = await received("sdk-errors");
  assert.deepEqual(reqs.at(-1).messages, [
    { role: "system", content: "Be brief." },
    { role: "user", content: "Off the record?" },
  ]);
  assert.deepEqual(await storedMessages(session), []);
  assert.deepEqual(errors, []);
});
