// The Recall client: one method per route of the HTTP API, on the global
// fetch (Node >= 18), with no dependencies.

import { randomUUID } from "node:crypto";

import { ConnectionFailedError, errorFrom, UnavailableError } from "./errors.js";
import type * as T from "./types.js";

/** A query longer than this (UTF-8 bytes) goes in a POST body instead of the URL. */
export const MAX_GET_QUERY_BYTES = 1024;

const VERSION = "0.1.0";

/**
 * How a request is retried when Recall answers 503 or cannot be reached.
 * Every request the client sends is safe to repeat: turns keep their ids
 * (Recall drops repeats), an unseen request that marks keeps its
 * notification id, the rest read or are idempotent; but for registering a
 * webhook, which is retried only when it cannot have been done (a 503, a
 * refused connection). The wait before attempt
 * n+1 is `initialMs * 2**(n-1)` with jitter, at least what the server's
 * Retry-After asks, and never more than `maxDelayMs`.
 */
export interface RetryOptions {
  attempts: number;
  initialMs: number;
  maxDelayMs: number;
}

export const defaultRetry: RetryOptions = { attempts: 4, initialMs: 200, maxDelayMs: 2000 };

export interface RecallOptions {
  /** The API's base URL, such as http://127.0.0.1:8080. */
  url: string;
  /** The tenant, sent as X-Tenant-ID. */
  tenant: string;
  /** The tenant's key (API_KEYS), sent as a bearer token. */
  apiKey?: string;
  /** Per attempt, in milliseconds (default 10000). */
  timeoutMs?: number;
  retry?: Partial<RetryOptions>;
  /** Waits between attempts; for tests. */
  sleep?: (ms: number) => Promise<void>;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

/** A fresh event id (a random UUID). */
export function newId(): string {
  return randomUUID();
}

function rfc3339(d: Date): string {
  return d.toISOString();
}

/**
 * One path segment: any id (slashes, spaces, non-ASCII) escaped. The ids "."
 * and ".." cannot be sent: a URL parser removes them from the path however
 * they are escaped.
 */
function seg(v: string): string {
  if (typeof v !== "string" || v === "") throw new TypeError("ids in a path must be non-empty strings");
  if (v === "." || v === "..") throw new TypeError(`the id ${JSON.stringify(v)} cannot be put in a URL path`);
  return encodeURIComponent(v);
}

type Param = string | number | boolean | Date | string[] | undefined;

/** A parameter as the API reads it: lists comma-separated, times in RFC 3339. */
function param(v: Exclude<Param, undefined>): string | number | boolean {
  if (Array.isArray(v)) return v.join(",");
  if (v instanceof Date) return rfc3339(v);
  return v;
}

function defined(params: Record<string, Param>): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(params)) if (v !== undefined) out[k] = param(v);
  return out;
}

function queryString(params: Record<string, string | number | boolean>): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) qs.set(k, String(v));
  const s = qs.toString();
  return s ? "?" + s : "";
}

function sleepMs(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

interface RequestOptions {
  query?: Record<string, string | number | boolean>;
  body?: unknown;
  timeoutMs?: number;
  /** A 404 on a retry means the first attempt did it (its answer was lost). */
  retry404Ok?: boolean;
  /**
   * Not safe to repeat: after a failed connection the request is sent again
   * only when it was refused (never received).
   */
  onceSent?: boolean;
}

/**
 * A client for one tenant of a Recall API. Methods return the API's JSON
 * answers (typed in types.ts) and throw the errors of errors.ts.
 *
 * ```ts
 * const recall = new Recall({ url: "http://127.0.0.1:8080", tenant: "acme", apiKey });
 * await recall.addTurn({ user_id: "u-42", session_id: "s-1", role: "user", content: "hi" });
 * ```
 */
export class Recall {
  readonly url: string;
  readonly tenant: string;
  readonly apiKey: string | undefined;
  readonly timeoutMs: number;
  readonly retry: RetryOptions;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #fetch: typeof fetch;

  constructor(opts: RecallOptions) {
    if (!opts.tenant) throw new TypeError("tenant: required (sent as X-Tenant-ID)");
    this.url = opts.url.replace(/\/+$/, "");
    this.tenant = opts.tenant;
    this.apiKey = opts.apiKey;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.retry = { ...defaultRetry, ...opts.retry };
    if (this.retry.attempts < 1) throw new TypeError("retry.attempts: at least 1");
    this.#sleep = opts.sleep ?? sleepMs;
    this.#fetch = opts.fetch ?? globalThis.fetch;
  }

  // --- turns ---

  /**
   * Stores one turn (POST /v1/turns with one object). `id` (a new UUID) and
   * `occurred_at` (now) are filled in when missing, once, so every retry
   * sends the same turn.
   */
  async addTurn(turn: T.TurnInput): Promise<T.AcceptedTurn> {
    const res = await this.#request<T.TurnsAccepted>("POST", "/v1/turns", { body: complete(turn, Date.now()) });
    return res.accepted[0]!;
  }

  /**
   * Stores a batch of turns in one request (at most the server's
   * API_MAX_BATCH, 500). Invalid turns reject the whole batch with every
   * field error (`[i].field`); `accepted` lists the ids in order. Turns
   * without `occurred_at` get now plus their index in milliseconds, so that
   * they keep the batch's order in the session.
   *
   * `wait` ("stored" or "searchable") answers once every accepted turn is
   * stored, or stored and searchable, or when `timeout` passes (seconds or a
   * Go duration; the server's API_TURN_WAIT, 2 s, when absent; at most
   * API_TURN_WAIT_MAX, 10 s): the answer's `wait` says which (`reached`).
   * Each attempt's timeout is the client's plus the wait's.
   */
  async addTurns(turns: T.TurnInput[], opts: { wait?: T.WaitFor; timeout?: T.Duration } = {}): Promise<T.TurnsAccepted> {
    if (turns.length === 0) throw new TypeError("turns: at least one");
    const timeout = opts.timeout === undefined ? undefined : goDuration("timeout", opts.timeout);
    // Without a timeout the server waits API_TURN_WAIT, which is at most
    // API_TURN_WAIT_MAX (10 s unless configured); an unreadable duration is
    // refused by the API at once.
    const waitMs = timeout !== undefined ? (durationMs(timeout) ?? 0) : opts.wait !== undefined ? 10_000 : 0;
    const now = Date.now();
    return this.#request<T.TurnsAccepted>("POST", "/v1/turns", {
      query: defined({ wait: opts.wait, timeout }),
      body: turns.map((t, i) => complete(t, now + i)),
      timeoutMs: this.timeoutMs + waitMs,
    });
  }

  /**
   * Where one turn stands: `stored`, each turn-stream worker's progress
   * (`workers`), `searchable`, `summarized`. A turn not stored yet is found
   * only with `seq`, the `sequence` its add answered; without it, and for
   * another tenant's turn, NotFoundError.
   */
  async turnStatus(turnId: string, opts: { seq?: number } = {}): Promise<T.TurnStatus> {
    return this.#request<T.TurnStatus>("GET", `/v1/turns/${seg(turnId)}`, { query: defined(opts) });
  }

  // --- context and search ---

  /**
   * The assembled context for the next prompt; put `prompt` in the system
   * prompt. `query` is the user's current message: the user's history is
   * searched for it. A long query is sent in a POST body.
   */
  async context(params: T.ContextParams): Promise<T.Context> {
    const ttl = params.ttl === undefined ? undefined : goDuration("ttl", params.ttl);
    return this.#getOrPost<T.Context>("/v1/context", defined({ ...params, ttl }), params.query ?? "");
  }

  /** The raw hits of a search of one user's history. */
  async search(userId: string, q: string, params: T.SearchParams = {}): Promise<T.SearchResult> {
    return this.#getOrPost<T.SearchResult>(`/v1/users/${seg(userId)}/search`, defined({ q, ...params }), q);
  }

  #getOrPost<R>(path: string, params: Record<string, string | number | boolean>, text: string): Promise<R> {
    if (new TextEncoder().encode(text).length > MAX_GET_QUERY_BYTES) {
      return this.#request<R>("POST", path, { body: params });
    }
    return this.#request<R>("GET", path, { query: params });
  }

  // --- sessions ---

  /** A session's aggregates, its newest `recent` messages (1-200, default 10) and summary. */
  async session(sessionId: string, opts: { recent?: number } = {}): Promise<T.Session> {
    return this.#request<T.Session>("GET", `/v1/sessions/${seg(sessionId)}`, { query: defined(opts) });
  }

  /**
   * One page of a session's messages in event-time order (`limit` 1-500,
   * default 50); pass the page's `next_cursor` for the next one.
   */
  async messages(sessionId: string, opts: { limit?: number; cursor?: string } = {}): Promise<T.MessagesPage> {
    return this.#request<T.MessagesPage>("GET", `/v1/sessions/${seg(sessionId)}/messages`, { query: defined(opts) });
  }

  /** Every message of a session, oldest first, a page at a time. */
  async *iterMessages(sessionId: string, opts: { pageSize?: number } = {}): AsyncGenerator<T.Message> {
    let cursor: string | undefined;
    do {
      const page = await this.messages(sessionId, { limit: opts.pageSize ?? 100, cursor });
      yield* page.messages;
      cursor = page.next_cursor;
    } while (cursor);
  }

  /**
   * Item `n` (1-based, as shown) of the session's current list, exactly as
   * it was sent: what the user means by answering "3". Throws NotFoundError
   * with code `no_list` or `out_of_range` (field `n`).
   */
  async selection(sessionId: string, n: number): Promise<T.Selection> {
    if (!Number.isInteger(n)) throw new TypeError("n: want a whole number");
    return this.#request<T.Selection>("GET", `/v1/sessions/${seg(sessionId)}/selection/${n}`);
  }

  /**
   * Asks for the session's summary now; `wait` (seconds, or a Go duration
   * such as "10s"; up to 30 s) waits for it. Each attempt's timeout is the
   * client's plus the wait.
   */
  async summarize(sessionId: string, opts: { wait?: T.Duration } = {}): Promise<T.SummarizeResult> {
    const wait = opts.wait === undefined ? undefined : goDuration("wait", opts.wait);
    // An unreadable duration is refused by the API at once.
    const timeoutMs = this.timeoutMs + (wait === undefined ? 0 : (durationMs(wait) ?? 0));
    return this.#request<T.SummarizeResult>("POST", `/v1/sessions/${seg(sessionId)}/summarize`, {
      query: defined({ wait }),
      body: {},
      timeoutMs,
    });
  }

  /**
   * Removes a session, its messages and its turns in the stream. A retry
   * that finds it gone (the first attempt's answer was lost) succeeds.
   */
  async deleteSession(sessionId: string): Promise<void> {
    await this.#request<null>("DELETE", `/v1/sessions/${seg(sessionId)}`, { retry404Ok: true });
  }

  // --- users ---

  /** Deletes everything stored about a user, in every table and stream. Idempotent. */
  async forgetUser(userId: string): Promise<T.ForgetReport> {
    return this.#request<T.ForgetReport>("DELETE", `/v1/users/${seg(userId)}`);
  }

  /**
   * Which of `refs` the user was never shown nor notified of, in the order
   * given. With `markNotified` they are recorded as notified, under
   * `notificationId` (generated when missing, and kept across retries, so a
   * retry gets the same answer).
   */
  async unseen(userId: string, refs: string[], opts: { markNotified?: boolean; notificationId?: string } = {}): Promise<T.Unseen> {
    const body: Partial<T.UnseenRequest> = { refs, mark_notified: opts.markNotified ?? false };
    const id = opts.notificationId || (opts.markNotified ? newId() : undefined);
    if (id) body.notification_id = id;
    return this.#request<T.Unseen>("POST", `/v1/users/${seg(userId)}/items/unseen`, { body });
  }

  /** The items the user has been shown, most recently shown first (`limit` 1-1000). */
  async seen(userId: string, opts: { limit?: number } = {}): Promise<T.Seen> {
    return this.#request<T.Seen>("GET", `/v1/users/${seg(userId)}/items/seen`, { query: defined(opts) });
  }

  /**
   * The user's interest facts by current weight and the interest vector's
   * metadata (its components with `vector: true`). NotFoundError when Recall
   * holds neither.
   */
  async interests(userId: string, opts: { limit?: number; vector?: boolean } = {}): Promise<T.Interests> {
    return this.#request<T.Interests>("GET", `/v1/users/${seg(userId)}/interests`, { query: defined(opts) });
  }

  /**
   * The user's interests.
   * @deprecated Use interests().
   */
  async profile(userId: string, opts: { limit?: number; vector?: boolean } = {}): Promise<T.Interests> {
    return this.interests(userId, opts);
  }

  /**
   * Who the user is and what they asked for: the current values of their
   * attributes' keys, and with `history: true` every earlier one.
   */
  async attributes(userId: string, opts: { history?: boolean } = {}): Promise<T.Attributes> {
    return this.#request<T.Attributes>("GET", `/v1/users/${seg(userId)}/attributes`, { query: defined(opts) });
  }

  /**
   * Sets and removes values of the user's attributes explicitly. Every edit is
   * checked first (InvalidRequestError naming `edits[i].key`, nothing stored);
   * an `id` is generated when missing and kept across retries, so a retry
   * stores nothing twice.
   */
  async editAttributes(userId: string, edits: T.AttributeEdit[], opts: { id?: string; occurredAt?: string | Date } = {}): Promise<T.AttributesAccepted> {
    const body: T.AttributeEdits = { id: opts.id || newId(), edits };
    if (opts.occurredAt !== undefined) body.occurred_at = opts.occurredAt instanceof Date ? opts.occurredAt.toISOString() : opts.occurredAt;
    return this.#request<T.AttributesAccepted>("PATCH", `/v1/users/${seg(userId)}/attributes`, { body });
  }

  /** Queues a recompute of the user's interest vector as of now (debounced per user). */
  async refreshInterests(userId: string): Promise<T.InterestsRefresh> {
    return this.#request<T.InterestsRefresh>("POST", `/v1/users/${seg(userId)}/interests/refresh`, { body: {} });
  }

  /**
   * Queues a recompute of the user's interest vector.
   * @deprecated Use refreshInterests().
   */
  async refreshProfile(userId: string): Promise<T.InterestsRefresh> {
    return this.refreshInterests(userId);
  }

  /**
   * Catalog items nearest the user's interests (`k` 1-100). ConflictError
   * (code `no_profile`) while the user has no interest vector.
   */
  async recommendations(userId: string, opts: { k?: number } = {}): Promise<T.Recommendations> {
    return this.#request<T.Recommendations>("GET", `/v1/users/${seg(userId)}/recommendations`, { query: defined(opts) });
  }

  // --- webhooks (docs/webhooks.md) ---

  /**
   * Registers an endpoint for the tenant's change feed: every change whose
   * type it wants (`types`: a type, a prefix such as "attribute.*", or "*")
   * is POSTed to `url`, signed with its `secret` (made by the server when left
   * out). The answer is the only one that holds the secret. Unless the server
   * has WEBHOOK_ALLOW_PRIVATE=true, a URL on a loopback, private or
   * link-local address is refused (InvalidRequestError, field `url`).
   *
   * Not safe to repeat: a second request would register a second endpoint.
   * So it is retried only when nothing can have been registered (a 503, a
   * refused connection); a connection that broke or timed out after the
   * request was sent throws ConnectionFailedError at once.
   */
  async createWebhook(webhook: T.WebhookCreate): Promise<T.Webhook> {
    return this.#request<T.Webhook>("POST", "/v1/webhooks", { body: webhook, onceSent: true });
  }

  /** The tenant's endpoints, oldest first, without their secrets. */
  async webhooks(): Promise<T.Webhooks> {
    return this.#request<T.Webhooks>("GET", "/v1/webhooks");
  }

  /**
   * Removes an endpoint and its deliveries: nothing more is sent to it.
   * NotFoundError when there is no such endpoint; a retry that finds it gone
   * (the first attempt's answer was lost) succeeds.
   */
  async deleteWebhook(webhookId: string): Promise<void> {
    await this.#request<null>("DELETE", `/v1/webhooks/${seg(webhookId)}`, { retry404Ok: true });
  }

  /**
   * An endpoint's newest deliveries (`status`: pending, delivered or failed;
   * `limit` 1-200, default 50) and how many it has of each status.
   */
  async webhookDeliveries(webhookId: string, opts: { status?: T.WebhookDelivery["status"]; limit?: number } = {}): Promise<T.WebhookDeliveries> {
    return this.#request<T.WebhookDeliveries>("GET", `/v1/webhooks/${seg(webhookId)}/deliveries`, { query: defined(opts) });
  }

  /**
   * Makes a failed delivery pending again, due now, with as many attempts as
   * a new one. NotFoundError when the endpoint has no delivery of the change;
   * ConflictError (code `not_failed`) when it is pending or delivered.
   */
  async redriveWebhookDelivery(webhookId: string, changeId: string): Promise<T.WebhookDelivery> {
    return this.#request<T.WebhookDelivery>("POST", `/v1/webhooks/${seg(webhookId)}/deliveries/${seg(changeId)}/redrive`);
  }

  // --- transport ---

  async #request<R>(method: string, path: string, opts: RequestOptions = {}): Promise<R> {
    const url = this.url + path + queryString(opts.query ?? {});
    const headers: Record<string, string> = {
      "X-Tenant-ID": this.tenant,
      Accept: "application/json",
      "User-Agent": `recall-client-typescript/${VERSION}`,
    };
    if (this.apiKey) headers.Authorization = `Bearer ${this.apiKey}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      // Encoded once: every attempt sends the same bytes, ids included.
      body = JSON.stringify(opts.body);
      headers["Content-Type"] = "application/json";
    }
    const { attempts } = this.retry;
    for (let attempt = 1; ; attempt++) {
      let resp: Response;
      let raw: string;
      try {
        resp = await this.#fetch(url, { method, headers, body, signal: AbortSignal.timeout(opts.timeoutMs ?? this.timeoutMs) });
        raw = await resp.text();
      } catch (err) {
        if (opts.onceSent && !refused(err)) {
          // The request may have been carried out, its answer lost.
          throw new ConnectionFailedError(`${method} ${path}: ${describe(err)} (not retried: it may have been carried out)`, attempt, { cause: err });
        }
        if (attempt >= attempts) {
          throw new ConnectionFailedError(`${method} ${path}: ${describe(err)} (after ${attempts} attempts)`, attempts, { cause: err });
        }
        await this.#sleep(this.#delay(attempt, undefined));
        continue;
      }
      if (resp.ok) return (raw ? JSON.parse(raw) : null) as R;
      if (resp.status === 404 && attempt > 1 && opts.retry404Ok) return null as R;
      const err = errorFrom(resp.status, decode(raw));
      if (err instanceof UnavailableError && attempt < attempts) {
        await this.#sleep(this.#delay(attempt, retryAfterMs(resp.headers.get("Retry-After"))));
        continue;
      }
      throw err;
    }
  }

  #delay(attempt: number, retryAfter: number | undefined): number {
    let d = this.retry.initialMs * 2 ** (attempt - 1) * (0.5 + Math.random() / 2);
    if (retryAfter !== undefined) d = Math.max(d, retryAfter);
    return Math.min(d, this.retry.maxDelayMs);
  }
}

/** The turn to send: a copy with its id and time filled in. */
function complete(turn: T.TurnInput, nowMs: number): T.TurnInput {
  const out: T.TurnInput = { ...turn, content: turn.content ?? "" };
  if (!out.id) out.id = newId();
  if (!out.occurred_at) out.occurred_at = rfc3339(new Date(nowMs));
  else if (out.occurred_at instanceof Date) out.occurred_at = rfc3339(out.occurred_at);
  return out;
}

function decode(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/** Retry-After in milliseconds (the API sends whole seconds); undefined when absent or a date. */
function retryAfterMs(v: string | null): number | undefined {
  if (!v) return undefined;
  const s = Number(v);
  return Number.isFinite(s) && s >= 0 ? s * 1000 : undefined;
}

/**
 * Parameter `name`, a Duration, as the API reads it: a Go duration. Numbers
 * are seconds, written in decimal to the microsecond (Go reads "2.5s", not
 * "2.5e-7s"); strings are sent as they are.
 */
function goDuration(name: string, v: T.Duration): string {
  if (typeof v === "string") return v;
  if (typeof v !== "number") throw new TypeError(`${name}: want seconds (a number) or a duration such as "10s", not ${typeof v}`);
  if (!Number.isFinite(v) || v < 0) throw new RangeError(`${name}: want a number of seconds from 0, not ${v}`);
  return `${v.toFixed(6).replace(/\.?0+$/, "")}s`;
}

const goUnitMs = { ns: 1e-6, us: 1e-3, "µs": 1e-3, "μs": 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** Milliseconds of a Go duration ("500ms", "10s", "1m30s"); undefined when it is not one. */
function durationMs(d: string): number | undefined {
  if (d === "0") return 0;
  if (!/^((\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/.test(d)) return undefined;
  let ms = 0;
  for (const [, n, unit] of d.matchAll(/(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) {
    ms += Number(n) * goUnitMs[unit as keyof typeof goUnitMs];
  }
  return ms;
}

/**
 * Whether a failed fetch was refused: the request was never received, so
 * nothing was done. Node's fetch puts the socket's error in `cause`, an
 * AggregateError when every address of a host was tried.
 */
function refused(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === "ECONNREFUSED") return true;
    if (e instanceof AggregateError && e.errors.length > 0) return e.errors.every(refused);
  }
  return false;
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error ? `${err.message}: ${cause.message}` : err.message;
  }
  return String(err);
}
