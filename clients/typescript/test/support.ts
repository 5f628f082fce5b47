// What the tests share: the live Recall they run against, and waiting for
// the workers, which store turns a moment after the API accepts them.

import { randomUUID } from "node:crypto";

import { Recall } from "../src/index.js";

/** A client of the Recall the Go test started (clients/clients_test.go). */
export function live(): Recall {
  const url = process.env.RECALL_URL;
  const tenant = process.env.RECALL_TENANT;
  if (!url || !tenant) throw new Error("RECALL_URL and RECALL_TENANT are not set: run these tests through `go test ./clients/`");
  return new Recall({ url, tenant, apiKey: process.env.RECALL_API_KEY, retry: { attempts: 3, initialMs: 50 } });
}

export function unique(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 12)}`;
}

/** fn's first truthy result, trying every 50 ms; its last error or a timeout fails the test. */
export async function eventually<R>(fn: () => Promise<R>, what = "condition", timeoutMs = 30_000): Promise<NonNullable<R>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<R>;
      last = v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms; last: ${String(last)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
