// A standing request said in one session reaches the system prompt of the
// same user's next session, through Recall's profile, whatever the new
// message says. One wrapped model serves every user: each call names its
// user and session in providerOptions.
import assert from "node:assert/strict";
import { test } from "node:test";

import { generateText, wrapLanguageModel } from "ai";

import { recallMemory } from "../src/index.js";
import { eventually, provider, recall, received, recallOptions, unique, waitForMessages } from "./support.mjs";

test("a standing preference of one session reaches a new session's system prompt", async () => {
  const user = unique("sdk-prefs-user");
  const [first, second] = [unique("sdk-prefs-1"), unique("sdk-prefs-2")];
  const errors = [];
  // A loaded machine may take longer than the default wait for a context;
  // this test is about what the memory holds, not how fast it comes.
  const memory = recallMemory({ recall: recallOptions, memoryTimeoutMs: 15000, onError: (err) => errors.push(err) });
  const model = wrapLanguageModel({ model: provider.chatModel("sdk-prefs"), middleware: memory });

  const said = await generateText({
    model,
    system: "You recommend films.",
    prompt: "Please never recommend horror films to me.",
    providerOptions: { recall: { userId: user, sessionId: first } },
  });
  assert.equal(said.text, "Noted: no horror films.");
  await memory.flush();
  await waitForMessages(first, 2);

  // Recall's extractor reads the request from the stored turn: a person
  // takes longer to come back than it does.
  const question = "What should I watch tonight?";
  await eventually(
    async () => (await recall.context({ user_id: user, session_id: second, query: question })).prompt.includes("never recommend horror films"),
    "the request in the user's context",
  );

  const asked = await generateText({
    model,
    system: "You recommend films.",
    prompt: question,
    providerOptions: { recall: { userId: user, sessionId: second } },
  });
  assert.equal(asked.text, "How about Paddington 2?");

  const reqs = await received("sdk-prefs");
  assert.equal(reqs.length, 2);
  const system = reqs[1].messages[0].content;
  console.log(`system prompt of the new session:\n${system}`);
  assert.ok(system.startsWith("You recommend films.\n\n"), system);
  assert.match(system, /The user has asked \(follow this unless the current message says otherwise\):[^\n]*never recommend horror films/);
  assert.ok(!reqs[0].messages[0].content.includes("horror"), "the first session's first call knew nothing yet");
  assert.deepEqual(reqs[1].messages.slice(1), [{ role: "user", content: question }], "the new session's own conversation only");

  await memory.flush();
  const stored = await waitForMessages(second, 2);
  assert.deepEqual(stored.map((m) => m.user_id), [user, user]);
  assert.deepEqual(errors, []);
});
