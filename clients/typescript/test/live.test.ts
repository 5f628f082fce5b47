// The client against a live Recall: every operation, with what the workers
// made of the turns.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { AuthenticationError, ConflictError, InvalidRequestError, NotFoundError, Recall } from "../src/index.js";
import type { Item, Role, TurnInput } from "../src/index.js";
import { eventually, live, unique } from "./support.js";

const FILMS: Item[] = [
  { ref: "/film/sol-7Q2X", title: "Solaris", attrs: { year: 1972 } },
  { ref: "/film/stk-4M8B", title: "Stalker", attrs: { year: 1979 } },
  { ref: "/film/arr-9K1C", title: "Arrival", attrs: { year: 2016 } },
];

function setup() {
  const recall = live();
  const user = unique("user");
  // An id with a slash, a space and Han characters: every path escapes it.
  const session = unique("sess/映画 night");
  const turn = (role: Role, content: string, more: Partial<TurnInput> = {}): TurnInput => ({
    user_id: user,
    session_id: session,
    role,
    content,
    ...more,
  });
  const stored = (n: number) => eventually(async () => (await recall.session(session)).message_count >= n, `${n} messages stored`);
  return { recall, user, session, turn, stored };
}

describe("live Recall", { concurrency: true }, () => {
  it("waits until turns are searchable and reports a turn's status", async () => {
    const { recall, user, session, turn } = setup();
    const res = await recall.addTurns([turn("user", "My neighbour keeps bees on the roof of the old observatory")], { wait: "searchable", timeout: 10 });
    const acc = res.accepted[0]!;
    assert.ok(res.wait?.reached, JSON.stringify(res.wait));
    assert.equal(res.wait?.for, "searchable");
    // Searchable as soon as the answer came: no polling.
    const hits = (await recall.search(user, "bees observatory")).hits;
    assert.equal(hits[0]?.source_id, acc.id);

    const st = await recall.turnStatus(acc.id);
    assert.ok(st.stored && st.searchable, JSON.stringify(st));
    assert.deepEqual([st.sequence, st.session_id, st.user_id], [acc.sequence, session, user]);
    assert.deepEqual(st.workers["ingest"], { done: true });
    assert.deepEqual(st.workers["indexer"], { done: true });
    assert.equal((await recall.turnStatus(acc.id, { seq: acc.sequence })).id, acc.id);

    await assert.rejects(recall.turnStatus(unique("never")), (err: unknown) => err instanceof NotFoundError);
    await assert.rejects(recall.addTurns([turn("user", "x")], { wait: "soon" as "stored" }),
      (err: unknown) => err instanceof InvalidRequestError && err.field("wait") !== undefined);
    await assert.rejects(recall.addTurns([turn("user", "x")], { wait: "stored", timeout: "11s" }),
      (err: unknown) => err instanceof InvalidRequestError && err.field("timeout") !== undefined);
  });

  it("reaches every route with any id a turn may have, escaped", async () => {
    // "/" and "%2F" too, which a router takes for a slash unless escaped.
    const recall = live();
    for (const id of ["/", "a/b", "%2F", "..x", "x..", "a b", "?", "#", "名字"]) {
      const res = await recall.addTurns([{ id, user_id: id, session_id: id, role: "assistant", content: `hello ${id}`, items: [{ ref: "/a", title: "A" }] }],
        { wait: "searchable" });
      assert.ok(res.wait?.reached, JSON.stringify(res));
      assert.equal((await recall.turnStatus(id)).session_id, id);
      assert.equal((await recall.session(id)).user_id, id);
      assert.equal((await recall.messages(id)).messages[0]!.session_id, id);
      assert.equal((await recall.selection(id, 1)).item.ref, "/a");
      assert.equal((await recall.context({ user_id: id, session_id: id })).window.messages[0]!.id, id);
      assert.ok((await recall.search(id, "hello")).hits.length > 0, id);
      // The seen registry is the seen worker's, which the wait does not wait for.
      await eventually(async () => (await recall.unseen(id, ["/a", "/z"])).unseen.join() === "/z", `${id}: /a seen`);
      assert.equal((await recall.seen(id)).user_id, id);
      assert.equal((await recall.attributes(id)).user_id, id);
      assert.equal((await recall.editAttributes(id, [{ key: "name", op: "put", value: "Ada" }])).user_id, id);
      assert.equal((await recall.refreshInterests(id)).user_id, id);
      assert.ok(["queued", "current"].includes((await recall.summarize(id)).status), id);
      await recall.deleteSession(id);
      await assert.rejects(recall.session(id), (err: unknown) => err instanceof NotFoundError);
      assert.equal((await recall.forgetUser(id)).user_id, id);
    }
  });

  it("refuses a turn's unknown fields and the ids . and .., naming them", async () => {
    const { recall, turn } = setup();
    await assert.rejects(recall.addTurns([turn("user", "fine"), { ...turn("assistant", "here"), itmes: [{ ref: "/a" }] } as TurnInput]),
      (err: unknown) => err instanceof InvalidRequestError && (err.field("[1].itmes") ?? "").includes("metadata"));
    for (const dots of [".", ".."]) {
      await assert.rejects(recall.addTurn({ user_id: dots, session_id: dots, role: "user", content: "dots" }),
        (err: unknown) => err instanceof InvalidRequestError && (err.field("user_id") ?? "").includes("cannot be an id"));
      // A URL parser resolves them away however escaped: refused before sending.
      await assert.rejects(recall.messages(dots), TypeError);
    }
  });

  it("shows a stored turn in the context and the messages", async () => {
    const { recall, user, session, turn, stored } = setup();
    const acc = await recall.addTurn(turn("user", "Which films did Tarkovsky make in the seventies?"));
    assert.ok(acc.id, "the client gave the turn an id");
    assert.ok(acc.sequence > 0);
    await stored(1);

    const page = await recall.messages(session);
    assert.deepEqual(page.messages.map((m) => m.id), [acc.id]);
    assert.equal(page.messages[0]!.content, "Which films did Tarkovsky make in the seventies?");
    assert.equal(page.messages[0]!.session_id, session);

    const ctx = await recall.context({ user_id: user, session_id: session });
    assert.deepEqual(ctx.window.messages.map((m) => m.id), [acc.id]);
    assert.match(ctx.prompt, /User: Which films did Tarkovsky make in the seventies\?/);

    const sess = await recall.session(session, { recent: 5 });
    assert.equal(sess.message_count, 1);
    assert.equal(sess.user_id, user);
    assert.equal(sess.summary, null);
  });

  it("stores a batch in order and pages through it", async () => {
    const { recall, session, turn, stored } = setup();
    const turns = [0, 1, 2, 3, 4].map((i) => turn(i % 2 === 0 ? "user" : "assistant", `message ${i}`));
    const res = await recall.addTurns(turns);
    const ids = res.accepted.map((a) => a.id);
    assert.equal(new Set(ids).size, 5);
    await stored(5);

    const first = await recall.messages(session, { limit: 2 });
    assert.equal(first.messages.length, 2);
    assert.ok(first.next_cursor);
    const second = await recall.messages(session, { limit: 2, cursor: first.next_cursor });
    assert.deepEqual(second.messages.map((m) => m.content), ["message 2", "message 3"]);
    const all = [];
    for await (const m of recall.iterMessages(session, { pageSize: 2 })) all.push(m);
    assert.deepEqual(all.map((m) => m.id), ids, "event-time order, every page");

    // Resending the same turns (same ids) stores nothing twice.
    const again = await recall.addTurns(turns.map((t, i) => ({ ...t, id: ids[i] })));
    assert.ok(again.accepted.every((a) => a.duplicate === true));
    assert.equal((await recall.session(session)).message_count, 5);
  });

  it("resolves a selection to the presented item's real ref", async () => {
    const { recall, user, session, turn, stored } = setup();
    await recall.addTurns([
      turn("user", "Recommend slow science fiction"),
      turn("assistant", "Three to start with:", {
        tool_calls: [{ id: "call_1", name: "search_films", arguments: { q: "slow sci-fi" }, result: { total: 3 }, status: "ok", duration_ms: 12 }],
        items: FILMS,
      }),
    ]);
    await stored(2);
    const sel = await recall.selection(session, 3);
    assert.deepEqual(sel.item, FILMS[2], "the item exactly as sent");
    assert.equal(sel.n, 3);
    assert.equal(sel.list.count, 3);

    const ctx = await recall.context({ user_id: user, session_id: session });
    assert.deepEqual(ctx.list?.items.map((e) => [e.n, e.ref]), [[1, "/film/sol-7Q2X"], [2, "/film/stk-4M8B"], [3, "/film/arr-9K1C"]]);
    assert.ok(ctx.prompt.includes('3. "Arrival" — ref: /film/arr-9K1C'), ctx.prompt);
    // As of a moment before the session, nothing of it yet.
    const before = await recall.context({ user_id: user, session_id: session, at: new Date("2020-01-01T00:00:00Z") });
    assert.equal(before.list, null);
    assert.deepEqual(before.window.messages, []);

    const msgs = (await recall.messages(session)).messages;
    assert.deepEqual(msgs[1]!.tool_calls![0]!.arguments, { q: "slow sci-fi" });
    assert.deepEqual(msgs[1]!.items, FILMS);

    await assert.rejects(recall.selection(session, 4), (err: unknown) => {
      assert.ok(err instanceof NotFoundError);
      assert.equal(err.code, "out_of_range");
      assert.equal(err.field("n"), "want 1 to 3");
      return true;
    });

    // The seen worker records what was shown: unseen answers the rest.
    const un = await eventually(async () => {
      const u = await recall.unseen(user, ["/film/arr-9K1C", "/film/new-1", "/film/sol-7Q2X"]);
      return u.unseen.length === 1 && u.unseen[0] === "/film/new-1" ? u : undefined;
    }, "items recorded as seen");
    assert.equal(un.marked, 0);
    const seen = await recall.seen(user);
    assert.deepEqual(seen.items.map((i) => i.ref).sort(), FILMS.map((f) => f.ref).sort());
    const marked = await recall.unseen(user, ["/film/new-1"], { markNotified: true });
    assert.deepEqual([marked.unseen, marked.marked], [["/film/new-1"], 1]);
    assert.deepEqual((await recall.unseen(user, ["/film/new-1", "/film/new-2"])).unseen, ["/film/new-2"]);
  });

  it("throws typed errors naming the field", async () => {
    const { recall, user, session, turn } = setup();
    await assert.rejects(recall.addTurn(turn("bot" as Role, "hello")), (err: unknown) => {
      assert.ok(err instanceof InvalidRequestError);
      assert.equal(err.status, 400);
      assert.equal(err.code, "invalid_request");
      assert.ok(err.field("role"), JSON.stringify(err.fields));
      return true;
    });
    await assert.rejects(recall.addTurns([turn("user", "fine"), turn("bot" as Role, "not fine")]), (err: unknown) => {
      assert.ok(err instanceof InvalidRequestError);
      assert.ok(err.field("[1].role"), JSON.stringify(err.fields));
      assert.equal(err.field("[0].role"), undefined);
      return true;
    });
    await assert.rejects(recall.context({ user_id: user, session_id: session, lang: "fr" as "en" }), (err: unknown) => {
      assert.ok(err instanceof InvalidRequestError);
      assert.equal(err.field("lang"), "one of en, zh, auto");
      return true;
    });
    await assert.rejects(recall.context({ user_id: user, session_id: session, at: "2020-01-01" }), (err: unknown) => {
      assert.ok(err instanceof InvalidRequestError);
      assert.ok(err.field("at"), JSON.stringify(err.fields));
      return true;
    });
    await assert.rejects(recall.selection(session, 0), (err: unknown) => err instanceof InvalidRequestError && err.field("n") !== undefined);
    await assert.rejects(recall.session(unique("never")), (err: unknown) => err instanceof NotFoundError && err.code === "not_found");
    if (process.env.RECALL_API_KEY) {
      const stranger = new Recall({ url: recall.url, tenant: recall.tenant, apiKey: "not-a-key-of-this-server" });
      await assert.rejects(stranger.session(session), AuthenticationError);
    }
  });

  it("searches, and sends a long query in a POST body", async () => {
    const { recall, user, turn, stored } = setup();
    await recall.addTurns([turn("user", "My grandmother grew quinces in Andalusia"), turn("assistant", "Quinces make a fine membrillo.")]);
    await stored(2);
    // Both turns indexed: the indexer may store one a batch before the other.
    const found = await eventually(
      async () => (await recall.search(user, "quinces")).hits.filter((h) => h.kind === "message").length === 2,
      "both turns indexed",
    );
    assert.ok(found);
    const res = await recall.search(user, "quinces", { k: 1, role: ["user"], kind: "message" });
    assert.equal(res.hits.length, 1);
    assert.equal(res.hits[0]!.role, "user");
    assert.match(res.hits[0]!.text, /quinces/i);
    const near = await recall.search(user, "grandmother", { k: 1, neighbors: 2 });
    assert.equal(near.hits[0]!.next?.content, "Quinces make a fine membrillo.");
    assert.equal(near.hits[0]!.later, undefined);

    const longQuery = "quinces " + "and more words ".repeat(200);
    const ctx = await recall.context({ user_id: user, session_id: unique("other-session"), query: longQuery, max_recalled: 5 });
    assert.equal(ctx.recalled?.query, longQuery);
    assert.ok(ctx.recalled?.hits.some((h) => /quince/i.test(h.text)), JSON.stringify(ctx.recalled));
    assert.ok((await recall.search(user, longQuery)).hits.length > 0);
  });

  it("takes durations as seconds or Go durations", async () => {
    const { recall, user, session, turn, stored } = setup();
    // The API answers the window's ttl as a Go duration: what it read.
    for (const [ttl, want] of [[5400, "1h30m0s"], [2.5, "2.5s"], ["45m", "45m0s"]] as const) {
      assert.equal((await recall.context({ user_id: user, session_id: session, ttl })).ttl, want, String(ttl));
    }
    await recall.addTurns([turn("user", "I am reading 《三体》 again and love hard science fiction"), turn("assistant", "Then try Greg Egan next.")]);
    await stored(2);
    const res = await recall.summarize(session, { wait: 20 });
    assert.equal(res.status, "summarized", JSON.stringify(res));
    // Nothing new since: current, however the wait is written.
    for (const wait of [5, 0.5, "1s"]) assert.equal((await recall.summarize(session, { wait })).status, "current", String(wait));
    for (const wait of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      await assert.rejects(recall.summarize(session, { wait }), (err: unknown) => err instanceof RangeError && err.message.startsWith("wait: "));
    }
    await assert.rejects(recall.summarize(session, { wait: 31 }), (err: unknown) => err instanceof InvalidRequestError && err.field("wait") !== undefined);
  });

  it("sets attributes that reach every context", async () => {
    const { recall, user } = setup();
    const acc = await recall.editAttributes(user, [
      { key: "location", op: "put", value: "Paris" },
      { key: "allergies", op: "put", value: "peanuts" },
    ], { occurredAt: new Date("2026-11-01T00:00:00Z") });
    assert.equal(acc.accepted.length, 2);
    await recall.editAttributes(user, [{ key: "location", op: "put", value: "Berlin" }]);
    // Each edit is stored on its own: Berlin and peanuts may be current
    // before Paris, made earlier, is stored as superseded.
    const attrs = await eventually(async () => {
      const a = await recall.attributes(user, { history: true });
      return a.current.map((v) => v.value).join() === "Berlin,peanuts" && a.history?.length === 3 ? a : undefined;
    }, "the edits stored");
    assert.deepEqual(attrs.history?.map((v) => `${v.value}:${v.status}`).sort(), ["Berlin:current", "Paris:superseded", "peanuts:current"]);
    const ctx = await recall.context({ user_id: user, session_id: unique("new-session"), query: "any dessert ideas for the weekend?" });
    assert.deepEqual(ctx.attributes?.about.map((e) => e.key), ["location", "allergies"]);
    assert.match(ctx.prompt, /allergic to: peanuts/);
    assert.doesNotMatch(ctx.prompt, /Paris/);
    await assert.rejects(recall.editAttributes(user, [{ key: "shoe_size", op: "put", value: "42" }]),
      (err: unknown) => err instanceof InvalidRequestError && err.field("edits[0].key") !== undefined);
  });

  it("summarizes, reads interests and forgets", async () => {
    const { recall, user, session, turn, stored } = setup();
    await recall.addTurns([turn("user", "I am reading 《三体》 again and love hard science fiction"), turn("assistant", "Then try Greg Egan next.")]);
    await stored(2);
    const res = await recall.summarize(session, { wait: "20s" });
    assert.equal(res.status, "summarized", JSON.stringify(res));
    assert.ok(res.summary?.summary);
    assert.equal((await recall.summarize(session)).status, "current");

    const facts = await eventually(async () => {
      const p = await recall.interests(user);
      return p.facts.length > 0 ? p.facts : undefined;
    }, "a fact extracted");
    assert.ok(facts.map((f) => f.value).includes("三体"));
    assert.equal((await recall.refreshInterests(user)).user_id, user);
    // The former names still answer.
    const old = await recall.profile(user, { limit: 1 });
    assert.equal(old.user_id, user);
    assert.equal(old.facts.length, 1);
    assert.equal((await recall.refreshProfile(user)).user_id, user);
    await assert.rejects(recall.recommendations(unique("no-profile-user")), (err: unknown) => err instanceof ConflictError && err.code === "no_profile");

    await recall.deleteSession(session);
    await assert.rejects(recall.session(session), NotFoundError);
    const report = await recall.forgetUser(user);
    assert.equal(report.user_id, user);
    assert.ok("facts" in report.rows);
    await assert.rejects(recall.interests(user), NotFoundError);
  });
});
