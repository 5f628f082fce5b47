// Retries against a small local server that fails on purpose: a 503, a
// dropped connection. Every attempt must carry the same ids.

import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, describe, it } from "node:test";

import { ConflictError, ConnectionFailedError, InvalidRequestError, Recall, UnavailableError } from "../src/index.js";

interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: any;
}
/** What the fake answers, by attempt: [status, body], a function of the request body, or "drop". */
type Step = [number, unknown] | ((body: any) => [number, unknown]) | "drop";

const servers: Array<{ close(): void }> = [];
after(() => servers.forEach((s) => s.close()));

async function fake(...script: Step[]) {
  const requests: Recorded[] = [];
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const body = raw ? JSON.parse(raw) : undefined;
    requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
    const step = script.shift() ?? [500, { error: { code: "internal", message: "script ran out" } }];
    if (step === "drop") {
      req.socket.destroy(); // no answer at all
      return;
    }
    const [status, out] = typeof step === "function" ? step(body) : step;
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (status === 503) headers["Retry-After"] = "0";
    res.writeHead(status, headers).end(JSON.stringify(out));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push({ close: () => server.close() });
  const waits: number[] = [];
  const client = new Recall({
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tenant: "acme",
    apiKey: "key-0123456789abcdef",
    retry: { attempts: 3, initialMs: 10, maxDelayMs: 50 },
    sleep: async (ms) => {
      waits.push(ms);
    },
  });
  return { requests, client, waits };
}

const acceptAll = (body: any): [number, unknown] => {
  const turns = Array.isArray(body) ? body : [body];
  return [202, { accepted: turns.map((t: { id: string }, i: number) => ({ id: t.id, sequence: i + 1 })) }];
};

const unavailable: [number, unknown] = [
  503,
  { error: { code: "unavailable", message: "some turns were not stored; resend them (ids are deduplicated)" }, accepted: [], failed: ["x"] },
];

describe("retries", () => {
  it("resends the same ids after a 503", async () => {
    const { requests, client, waits } = await fake(unavailable, acceptAll);
    const res = await client.addTurns([
      { user_id: "u", session_id: "s", role: "user", content: "one" },
      { user_id: "u", session_id: "s", role: "assistant", content: "two" },
    ]);
    assert.equal(requests.length, 2);
    const [first, second] = requests.map((r) => r.body);
    const ids = first.map((t: { id: string }) => t.id);
    assert.equal(new Set(ids).size, 2, "the client generated an id per turn");
    assert.deepEqual(second, first, "the retry sent the same turns: same ids, same times");
    assert.deepEqual(res.accepted.map((a) => a.id), ids);
    assert.equal(waits.length, 1);
    assert.ok(waits[0]! <= 50, "the backoff is bounded");
    assert.equal(requests[1]!.headers["x-tenant-id"], "acme");
    assert.equal(requests[1]!.headers.authorization, "Bearer key-0123456789abcdef");
  });

  it("retries a dropped connection with the same id", async () => {
    const { requests, client } = await fake("drop", acceptAll);
    const acc = await client.addTurn({ user_id: "u", session_id: "s", role: "user", content: "hello", id: "mine-1" });
    assert.equal(acc.id, "mine-1");
    assert.deepEqual(requests.map((r) => r.body.id), ["mine-1", "mine-1"]);
  });

  it("gives up after the attempts", async () => {
    const { requests, client, waits } = await fake(unavailable, unavailable, unavailable, acceptAll);
    await assert.rejects(client.addTurn({ user_id: "u", session_id: "s", role: "user", content: "hello" }), (err: unknown) => {
      assert.ok(err instanceof UnavailableError);
      assert.equal(err.status, 503);
      assert.deepEqual(err.failed, ["x"]);
      return true;
    });
    assert.equal(requests.length, 3);
    assert.equal(new Set(requests.map((r) => r.body.id)).size, 1);
    assert.equal(waits.length, 2);
    assert.ok(waits.every((w) => w <= 50));

    const dropped = await fake("drop", "drop", "drop");
    await assert.rejects(dropped.client.session("s"), (err: unknown) => err instanceof ConnectionFailedError && err.attempts === 3);
  });

  it("does not retry other errors", async () => {
    const { requests, client } = await fake([400, { error: { code: "invalid_request", message: "bad", fields: [{ field: "role", message: "unknown" }] } }]);
    await assert.rejects(client.addTurn({ user_id: "u", session_id: "s", role: "bot" as "user", content: "x" }), (err: unknown) => {
      assert.ok(err instanceof InvalidRequestError);
      assert.deepEqual(err.fields, [{ field: "role", message: "unknown" }]);
      assert.equal(err.field("role"), "unknown");
      return true;
    });
    assert.equal(requests.length, 1);
  });

  it("keeps the notification id of a marking unseen request", async () => {
    const { requests, client } = await fake(unavailable, [200, { user_id: "u", unseen: ["/a"], marked: 1 }]);
    await client.unseen("u", ["/a"], { markNotified: true });
    const ids = requests.map((r) => r.body.notification_id);
    assert.equal(ids.length, 2);
    assert.ok(ids[0]);
    assert.equal(ids[0], ids[1]);
  });

  it("refuses the ids a URL path cannot hold, before sending", async () => {
    const { requests, client } = await fake();
    await assert.rejects(client.session(".."), TypeError);
    await assert.rejects(client.interests("."), TypeError);
    await assert.rejects(client.profile("."), TypeError);
    await assert.rejects(client.messages(""), TypeError);
    assert.equal(requests.length, 0);
  });

  it("takes a 404 on a retried delete as done", async () => {
    const { requests, client } = await fake("drop", [404, { error: { code: "not_found", message: "no such session" } }]);
    await client.deleteSession("s");
    assert.deepEqual(requests.map((r) => r.method), ["DELETE", "DELETE"]);
  });

  it("does not register a webhook again once the request was sent", async () => {
    // A connection broken after the request was sent: the endpoint may be
    // registered already, and a second request would register another.
    const wh = { id: "wh_1", url: "https://x.test/", types: ["*"], created_at: "2026-04-01T09:00:00Z", secret: "whsec_1" };
    const dropped = await fake("drop", [201, wh]);
    await assert.rejects(dropped.client.createWebhook({ url: "https://x.test/", types: ["*"] }),
      (err: unknown) => err instanceof ConnectionFailedError && err.attempts === 1);
    assert.equal(dropped.requests.length, 1);

    // A 503 registered nothing: it is retried.
    const { requests, client } = await fake(unavailable, [201, wh]);
    assert.deepEqual(await client.createWebhook({ url: "https://x.test/", types: ["*"] }), wh);
    assert.deepEqual(requests.map((r) => r.body), [{ url: "https://x.test/", types: ["*"] }, { url: "https://x.test/", types: ["*"] }]);
  });

  it("registers a webhook again when the connection was refused", async () => {
    // Nothing listens on the port: every attempt is refused, none received.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const waits: number[] = [];
    const client = new Recall({ url: `http://127.0.0.1:${port}`, tenant: "acme", retry: { attempts: 3, initialMs: 10, maxDelayMs: 50 },
      sleep: async (ms) => { waits.push(ms); } });
    await assert.rejects(client.createWebhook({ url: "https://x.test/", types: ["*"] }),
      (err: unknown) => err instanceof ConnectionFailedError && err.attempts === 3);
    assert.equal(waits.length, 2);
  });

  it("escapes the webhook routes' ids", async () => {
    const { requests, client } = await fake(
      [200, { webhook_id: "wh/1", counts: { pending: 0, delivered: 0, failed: 0 }, deliveries: [] }],
      [409, { error: { code: "not_failed", message: "delivered, not failed" } }],
      "drop",
      [404, { error: { code: "not_found", message: "no webhook wh/1" } }],
    );
    await client.webhookDeliveries("wh/1", { status: "failed", limit: 5 });
    await assert.rejects(client.redriveWebhookDelivery("wh/1", "chg-1"), (err: unknown) => err instanceof ConflictError && err.code === "not_failed");
    // The first delete went through but its answer was lost; the retry finds nothing.
    await client.deleteWebhook("wh/1");
    assert.deepEqual(requests.map((r) => [r.method, r.url, r.body]), [
      ["GET", "/v1/webhooks/wh%2F1/deliveries?status=failed&limit=5", undefined],
      ["POST", "/v1/webhooks/wh%2F1/deliveries/chg-1/redrive", undefined],
      ["DELETE", "/v1/webhooks/wh%2F1", undefined],
      ["DELETE", "/v1/webhooks/wh%2F1", undefined],
    ]);
  });
});
