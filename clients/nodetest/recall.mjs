// What every Node suite of clients/ shares, whatever it drives: the variables
// clients_test.go sets, reads of what the live Recall stored through its
// HTTP API, and the waits for the pipeline to store it. Node's standard
// library only, so that each suite imports it without installing anything.
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";

/** need reads a variable the Go test sets, and fails clearly without it. */
export function need(name) {
  const v = process.env[name];
  if (!v) {
    throw new Error(`${name} is not set: these tests run from clients/clients_test.go (go test ./clients/ -run TestClients)`);
  }
  return v;
}

/** Recall's HTTP API and the tenant the suites speak as, from the Go test. */
export const recallEnv = {
  recallURL: need("RECALL_URL"),
  tenant: need("RECALL_TENANT"),
  /** The tenant's Recall key. */
  recallKey: need("RECALL_API_KEY"),
};

/** recallGet calls Recall's HTTP API as the tenant; it returns the status and the JSON body. */
export async function recallGet(path) {
  const res = await fetch(recallEnv.recallURL + path, {
    headers: { "X-Tenant-ID": recallEnv.tenant, Authorization: `Bearer ${recallEnv.recallKey}` },
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** storedMessages is a session's stored messages now, oldest first; none before it exists. */
export async function storedMessages(session) {
  const { status, body } = await recallGet(`/v1/sessions/${encodeURIComponent(session)}/messages`);
  if (status === 404) {
    return [];
  }
  assert.equal(status, 200, JSON.stringify(body));
  return body.messages;
}

/**
 * waitForMessages waits until the session holds at least n messages (the
 * ingest worker stores a moment after Recall accepted the turns) and returns
 * them all, so that the caller can assert that there are exactly n.
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

/** eventually is fn's first truthy result, tried every 100 ms. */
export async function eventually(fn, what, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) {
      return v;
    }
    if (Date.now() > until) {
      assert.fail(`${what}: not within ${timeoutMs} ms`);
    }
    await sleep(100);
  }
}

/** unique is a fresh id, so that a rerun against the same Recall starts clean. */
export function unique(prefix) {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

/** received is what the fake model received for a model, request by request (RECALL_MODEL_REQUESTS). */
export async function received(model) {
  const res = await fetch(`${need("RECALL_MODEL_REQUESTS")}?model=${encodeURIComponent(model)}`);
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
