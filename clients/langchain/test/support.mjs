// What the langchain suite's files share: the environment clients_test.go
// runs them with, a chat model as a LangChain app makes one (the real
// @langchain/openai, pointed at the fake model), what that model received,
// and reads of what Recall stored through its HTTP API.
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";

import { tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { Recall } from "@recallhq/client";
import { z } from "zod";

/** need reads a variable the Go test sets, and fails clearly without it. */
function need(name) {
  const v = process.env[name];
  if (!v) {
    throw new Error(`${name} is not set: these tests run from clients/clients_test.go (go test ./clients/ -run TestClients)`);
  }
  return v;
}

export const env = {
  recallURL: need("RECALL_URL"),
  tenant: need("RECALL_TENANT"),
  recallKey: need("RECALL_API_KEY"),
  /** The fake model's API root, an OpenAI-compatible base URL. */
  modelURL: need("RECALL_MODEL_URL"),
  /** Answers the chat requests the fake model received, for ?model=. */
  modelRequests: need("RECALL_MODEL_REQUESTS"),
};

/** recallOptions are the options of a client of the live Recall, as the tenant. */
export const recallOptions = { url: env.recallURL, tenant: env.tenant, apiKey: env.recallKey };

/** recall is a client of the live Recall, for the tests' own writes and reads. */
export const recall = new Recall(recallOptions);

/** chatModel is the fake model as a LangChain app reaches an OpenAI-compatible one; no retries. */
export function chatModel(model) {
  return new ChatOpenAI({ model, apiKey: "test-model-key", maxRetries: 0, configuration: { baseURL: env.modelURL } });
}

/** received is what the fake model received for a model, request by request. */
export async function received(model) {
  const res = await fetch(`${env.modelRequests}?model=${encodeURIComponent(model)}`);
  assert.equal(res.status, 200);
  return res.json();
}

/**
 * What search_films returns: films with ids, refs and titles, in another
 * order than the replies list them, with one the replies leave out.
 */
export const films = [
  { id: 335984, ref: "/film/blade-runner-2049", title: "Blade Runner 2049", year: 2017 },
  { id: 329865, ref: "/film/arrival", title: "Arrival", year: 2016 },
  { id: 438631, ref: "/film/dune-2021", title: "Dune", year: 2021 },
  { id: 157336, ref: "/film/interstellar", title: "Interstellar", year: 2014 },
];

/** The numbered list the film bots answer with (clients/frameworks_test.go). */
export const filmList =
  "Here are three science-fiction films:\n1. Dune (2021), spice and sandworms\n2. Arrival (2016), language as time\n3. Blade Runner 2049 (2017), replicants and memory";

/** searchFilms is the tool the film agent offers, as a LangChain app declares one. */
export const searchFilms = tool(async () => ({ films }), {
  name: "search_films",
  description: "Search the film catalogue",
  schema: z.object({ query: z.string().optional(), genre: z.string().optional() }),
});

/** storedMessages is a session's stored messages now, oldest first; none before it exists. */
export async function storedMessages(session) {
  const res = await fetch(`${env.recallURL}/v1/sessions/${encodeURIComponent(session)}/messages`, {
    headers: { "X-Tenant-ID": env.tenant, Authorization: `Bearer ${env.recallKey}` },
  });
  if (res.status === 404) {
    return [];
  }
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.messages;
}

/**
 * waitForMessages waits until the session holds at least n messages and
 * returns them all, so that the caller can assert that there are exactly n.
 */
export async function waitForMessages(session, n, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const msgs = await storedMessages(session);
    if (msgs.length >= n) {
      return msgs;
    }
    if (Date.now() > until) {
      assert.fail(`session ${session}: ${msgs.length} messages stored after ${timeoutMs} ms, want ${n}: ${JSON.stringify(msgs)}`);
    }
    await sleep(50);
  }
}

/** unique is a fresh id, so that a rerun against the same Recall starts clean. */
export function unique(prefix) {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
