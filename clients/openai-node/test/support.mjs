// What the suites share: the environment clients_test.go runs them with, an
// OpenAI client pointed at Recall's chat gateway as a chat backend would
// configure one, and reads of what Recall stored, through its HTTP API.
//
// The fake model upstream answers by model name: each suite uses models of
// its own (the replies are scripted on the Go side, in
// clients/openai_node_test.go), so the suites can run in any order, and at
// the same time.
import assert from "node:assert/strict";

import OpenAI from "openai";

import { need, recallEnv, recallGet } from "../../nodetest/recall.mjs";

export { storedMessages, waitForMessages } from "../../nodetest/recall.mjs";

/** The environment clients_test.go sets. */
export const env = {
  /** The gateway's API root (http://127.0.0.1:port/v1): the SDK's baseURL. */
  gatewayURL: need("RECALL_GATEWAY_URL"),
  /** Recall's HTTP API, to read what was stored; the tenant and its key. */
  ...recallEnv,
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

/** selection is item n of the list the session presented last, as Recall resolves it. */
export async function selection(session, n) {
  const { status, body } = await recallGet(`/v1/sessions/${encodeURIComponent(session)}/selection/${n}`);
  assert.equal(status, 200, JSON.stringify(body));
  return body;
}
