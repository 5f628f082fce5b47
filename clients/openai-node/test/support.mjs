// What the suites share: the environment clients_test.go runs them with, an
// OpenAI client pointed at Recall's chat gateway as a chat backend would
// configure one, and reads of what Recall stored, through its HTTP API.
//
// The fake model upstream answers by model name: each suite uses models of
// its own (the replies are scripted on the Go side, in
// clients/openai_node_test.go), so the suites can run in any order, and at
// the same time.
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";

import OpenAI from "openai";

/** need reads a variable the Go test sets, and fails clearly without it. */
function need(name) {
  const v = process.env[name];
  if (!v) {
    throw new Error(`${name} is not set: these tests run from clients/clients_test.go (go test ./clients/ -run TestClients)`);
  }
  return v;
}

/** The environment clients_test.go sets. */
export const env = {
  /** The gateway's API root (http://127.0.0.1:port/v1): the SDK's baseURL. */
  gatewayURL: need("RECALL_GATEWAY_URL"),
  /** Recall's HTTP API, to read what was stored. */
  recallURL: need("RECALL_URL"),
  tenant: need("RECALL_TENANT"),
  /** The tenant's Recall key. */
  recallKey: need("RECALL_API_KEY"),
  /** The model API key the SDK sends, which the gateway forwards upstream. */
  upstreamKey: need("OPENAI_API_KEY"),
  /** The models the fake upstream lists, comma-separated. */
  models: need("RECALL_UPSTREAM_MODELS").split(","),
};

/** The user every suite speaks as; each suite has sessions of its own. */
export const user = "node-user";

/**
 * gateway is the official client as a chat backend configures it to reach
 * the gateway: the base URL, the model API key (forwarded upstream, as
 * GATEWAY_UPSTREAM_API_KEY is not set), and Recall's headers naming the
 * tenant, its key, the user and the session. No retries: every request the
 * fake upstream sees is one the test made, and a 429 surfaces at once.
 */
export function gateway(session, { recallKey = env.recallKey } = {}) {
  return new OpenAI({
    baseURL: env.gatewayURL,
    apiKey: env.upstreamKey,
    maxRetries: 0,
    timeout: 30_000,
    defaultHeaders: {
      "X-Tenant-ID": env.tenant,
      "X-Recall-Key": `Bearer ${recallKey}`,
      "X-Recall-User-ID": user,
      "X-Recall-Session-ID": session,
    },
  });
}

/** The tool the film bots offer the model. */
export const searchFilms = {
  type: "function",
  function: {
    name: "search_films",
    description: "Search the film catalogue",
    parameters: {
      type: "object",
      properties: { query: { type: "string" }, genre: { type: "string" } },
    },
  },
};

/** recall calls Recall's HTTP API as the tenant; it returns the status and the JSON body. */
export async function recall(path) {
  const res = await fetch(env.recallURL + path, {
    headers: { "X-Tenant-ID": env.tenant, Authorization: `Bearer ${env.recallKey}` },
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** storedMessages is a session's stored messages now, oldest first; none before it exists. */
export async function storedMessages(session) {
  const { status, body } = await recall(`/v1/sessions/${encodeURIComponent(session)}/messages`);
  if (status === 404) {
    return [];
  }
  assert.equal(status, 200, JSON.stringify(body));
  return body.messages;
}

/**
 * waitForMessages waits until the session holds at least n messages (the
 * gateway publishes after the answer, and the ingest worker stores
 * asynchronously) and returns them all, so that the caller can assert that
 * there are exactly n.
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

/** selection is item n of the list the session presented last, as Recall resolves it. */
export async function selection(session, n) {
  const { status, body } = await recall(`/v1/sessions/${encodeURIComponent(session)}/selection/${n}`);
  assert.equal(status, 200, JSON.stringify(body));
  return body;
}
