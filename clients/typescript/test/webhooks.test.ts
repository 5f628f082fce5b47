// Webhooks against the live Recall: an endpoint on a local receiver gets a
// signed delivery of a change, which the check docs/webhooks.md shows for
// TypeScript, compiled here with the suite's own tsc, accepts.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

import { ConflictError, InvalidRequestError, NotFoundError } from "../src/index.js";
import type { Change } from "../src/index.js";
import { eventually, live, unique } from "./support.js";

// The test runs from dist/test: the package is two directories up, the repository four.
const pkg = fileURLToPath(new URL("../../", import.meta.url));
const doc = fileURLToPath(new URL("../../../../docs/webhooks.md", import.meta.url));

type Verify = (secret: string, headers: IncomingHttpHeaders, body: Buffer, now?: number) => boolean;

/**
 * verifyWebhook exactly as docs/webhooks.md shows it (its only TypeScript
 * block), compiled with the suite's tsc and options (strict) and imported.
 */
async function documentedCheck(): Promise<Verify> {
  const blocks = [...readFileSync(doc, "utf8").matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
  assert.equal(blocks.length, 1, "docs/webhooks.md: want one TypeScript block");
  const dir = mkdtempSync(join(tmpdir(), "recall-webhook-doc-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "verify.ts"), blocks[0]!);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  const suite = JSON.parse(readFileSync(join(pkg, "tsconfig.json"), "utf8")) as { compilerOptions: Record<string, unknown> };
  const compilerOptions = { ...suite.compilerOptions, rootDir: ".", outDir: "out", declaration: false, sourceMap: false, typeRoots: [join(pkg, "node_modules", "@types")] };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["verify.ts"] }));
  try {
    execFileSync(process.execPath, [join(pkg, "node_modules", "typescript", "bin", "tsc"), "-p", join(dir, "tsconfig.json")], { encoding: "utf8" });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    assert.fail(`docs/webhooks.md's TypeScript check does not compile:\n${e.stdout ?? ""}${e.stderr ?? ""}`);
  }
  const mod = (await import(pathToFileURL(join(dir, "out", "verify.js")).href)) as { verifyWebhook?: Verify };
  assert.equal(typeof mod.verifyWebhook, "function", "docs/webhooks.md's TypeScript block exports verifyWebhook");
  return mod.verifyWebhook!;
}

interface Got {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A webhook endpoint on 127.0.0.1: it records each request's headers and raw body and answers 204. */
async function receiver() {
  const got: Got[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    got.push({ headers: req.headers, body: Buffer.concat(chunks) });
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  after(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/recall`;
  const ofUser = (user: string) => got.filter((g) => (JSON.parse(g.body.toString("utf8")) as Change).user_id === user);
  return { url, ofUser };
}

describe("webhooks on a live Recall", () => {
  it("delivers an attribute edit signed, as the documented check verifies", async () => {
    const recall = live();
    const user = unique("hooked");
    const rec = await receiver();

    const wh = await recall.createWebhook({ url: rec.url, types: ["attribute.*"] });
    after(() => recall.deleteWebhook(wh.id).catch(() => undefined));
    assert.match(wh.id, /^wh_/);
    assert.deepEqual([wh.url, wh.types], [rec.url, ["attribute.*"]]);
    const secret = wh.secret ?? "";
    assert.match(secret, /^whsec_[0-9a-f]{48}$/, "the server made the secret");
    const listed = (await recall.webhooks()).webhooks.filter((w) => w.id === wh.id);
    assert.equal(listed.length, 1);
    assert.equal(listed[0]?.secret, undefined, "the secret is answered once, by the registration");

    await recall.editAttributes(user, [{ key: "location", op: "put", value: "Lisbon" }]);
    const { headers, body } = await eventually(async () => rec.ofUser(user)[0], "a delivery of the user's change");
    const change = JSON.parse(body.toString("utf8")) as Change;
    assert.equal(change.type, "attribute.asserted");
    assert.deepEqual([change.attribute?.key, change.attribute?.value], ["location", "Lisbon"]);
    assert.equal(headers["content-type"], "application/json");
    assert.equal(headers["recall-webhook-id"], change.id);
    assert.equal(headers["recall-webhook-type"], change.type);

    const verifyWebhook = await documentedCheck();
    assert.equal(verifyWebhook(secret, headers, body), true, JSON.stringify(headers));
    assert.equal(verifyWebhook("whsec_" + "0".repeat(48), headers, body), false, "another secret");
    assert.equal(verifyWebhook(secret, headers, Buffer.concat([body, Buffer.from(" ")])), false, "another body");
    const ts = Number(headers["recall-webhook-timestamp"]);
    assert.equal(verifyWebhook(secret, headers, body, (ts + 301) * 1000), false, "too late");
    const more = { ...headers, "recall-webhook-signature": `v2=${"f".repeat(64)} ${String(headers["recall-webhook-signature"])}` };
    assert.equal(verifyWebhook(secret, more, body), true, "one of several signatures");

    const d = await eventually(async () => {
      const page = await recall.webhookDeliveries(wh.id, { status: "delivered", limit: 10 });
      return page.deliveries.some((x) => x.change_id === change.id) ? page : undefined;
    }, "the delivery recorded as delivered");
    assert.equal(d.webhook_id, wh.id);
    assert.ok(d.counts.delivered >= 1, JSON.stringify(d.counts));
    const mine = d.deliveries.find((x) => x.change_id === change.id)!;
    assert.deepEqual([mine.type, mine.user_id, mine.status, mine.last_status_code], ["attribute.asserted", user, "delivered", 204]);
    assert.ok(mine.attempts >= 1);
    assert.deepEqual((await recall.webhookDeliveries(wh.id, { status: "failed" })).deliveries, []);

    await assert.rejects(recall.redriveWebhookDelivery(wh.id, change.id), (err: unknown) => err instanceof ConflictError && err.code === "not_failed");
    await assert.rejects(recall.redriveWebhookDelivery(wh.id, "chg-none"), (err: unknown) => err instanceof NotFoundError);

    await recall.deleteWebhook(wh.id);
    assert.ok(!(await recall.webhooks()).webhooks.some((w) => w.id === wh.id));
    await assert.rejects(recall.deleteWebhook(wh.id), (err: unknown) => err instanceof NotFoundError);
    await assert.rejects(recall.webhookDeliveries(wh.id), (err: unknown) => err instanceof NotFoundError);
  });

  it("refuses bad endpoints, naming the field", async () => {
    const recall = live();
    await assert.rejects(recall.createWebhook({ url: "ftp://hooks.example.com/recall", types: ["*"] }),
      (err: unknown) => err instanceof InvalidRequestError && err.field("url") !== undefined);
    await assert.rejects(recall.createWebhook({ url: "https://hooks.example.com/recall", types: [] }),
      (err: unknown) => err instanceof InvalidRequestError && err.field("types") !== undefined);
    await assert.rejects(recall.webhookDeliveries(unique("wh"), { status: "lost" as "failed" }),
      (err: unknown) => err instanceof InvalidRequestError && err.field("status") !== undefined);
  });
});
