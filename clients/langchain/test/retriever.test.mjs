// RecallRetriever: a search of one user's whole history, as documents with
// the session, the time and the score of each hit.
import assert from "node:assert/strict";
import { test } from "node:test";

import { RecallRetriever } from "../src/index.js";
import { recall, recallOptions, unique } from "./support.mjs";

test("the retriever finds the user's turns by what they say, with session, time and score", async () => {
  const user = unique("lc-ret-user");
  const [dogs, photos] = [unique("lc-ret-dogs"), unique("lc-ret-photos")];
  const added = await recall.addTurns(
    [
      { user_id: user, session_id: dogs, role: "user", content: "We adopted a retired greyhound called Biscuit last spring.", occurred_at: "2026-03-02T10:00:00Z" },
      { user_id: user, session_id: dogs, role: "assistant", content: "Lovely! Greyhounds make calm companions.", occurred_at: "2026-03-02T10:00:05Z" },
      { user_id: user, session_id: photos, role: "user", content: "Which lens should I buy for street photography?", occurred_at: "2026-06-10T18:30:00Z" },
    ],
    { wait: "searchable" },
  );
  assert.equal(added.wait?.reached, true);

  const retriever = new RecallRetriever({ recall: recallOptions, userId: user, k: 3 });
  const docs = await retriever.invoke("What was the name of the greyhound we adopted?");
  assert.ok(docs.length >= 1, "found something");
  assert.equal(docs[0].metadata.session_id, dogs, "the greyhound's session first");
  const top = docs.find((d) => d.metadata.role === "user");
  assert.ok(top, JSON.stringify(docs));
  assert.equal(top.pageContent, "We adopted a retired greyhound called Biscuit last spring.");
  assert.equal(top.metadata.kind, "message");
  assert.equal(top.metadata.session_id, dogs);
  assert.equal(top.metadata.role, "user");
  assert.equal(new Date(top.metadata.occurred_at).toISOString(), "2026-03-02T10:00:00.000Z");
  assert.equal(typeof top.metadata.score, "number");
  assert.ok(top.metadata.score > 0);
  for (let i = 1; i < docs.length; i++) {
    assert.ok(docs[i - 1].metadata.score >= docs[i].metadata.score, "most relevant first");
  }

  // Narrowed to one session, as the search route narrows it.
  const inPhotos = new RecallRetriever({ recall: recallOptions, userId: user, search: { session_id: photos } });
  const found = await inPhotos.invoke("greyhound lens photography");
  assert.ok(found.length >= 1);
  assert.deepEqual([...new Set(found.map((d) => d.metadata.session_id))], [photos]);

  // Another user's retriever sees none of it.
  const stranger = new RecallRetriever({ recall: recallOptions, userId: unique("lc-ret-stranger") });
  assert.deepEqual(await stranger.invoke("greyhound Biscuit"), []);
});
