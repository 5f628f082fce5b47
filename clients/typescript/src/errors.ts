// Errors the client throws, one class per kind of answer. Every answer that
// is not a success becomes an APIError subclass carrying the API's error
// body: code, message and fields (each {field, message}, naming what to
// fix). A server that could not be reached after the retries is a
// ConnectionFailedError.

import type { AcceptedTurn, FieldError } from "./types.js";

/** The base of every error the client throws. */
export class RecallError extends Error {
  override name = "RecallError";
}

/** Recall could not be reached (refused, reset, timed out) on any attempt. */
export class ConnectionFailedError extends RecallError {
  override name = "ConnectionFailedError";
  constructor(
    message: string,
    readonly attempts: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Recall answered with an error status. */
export class APIError extends RecallError {
  override name = "APIError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: FieldError[],
    readonly body: unknown,
  ) {
    const detail = fields.map((f) => `${f.field}: ${f.message}`).join("; ");
    super(`${status} ${code}: ${message}` + (detail ? ` (${detail})` : ""));
    this.detail = message;
  }

  /** The API's message, without the status and fields. */
  readonly detail: string;

  /** The message about field `name` ("role", "[1].role", "n"), or undefined. */
  field(name: string): string | undefined {
    return this.fields.find((f) => f.field === name)?.message;
  }
}

/** 400 (or 415): the request is wrong; `fields` says where. */
export class InvalidRequestError extends APIError {
  override name = "InvalidRequestError";
}

/** 401: no key, or a key Recall does not know. */
export class AuthenticationError extends APIError {
  override name = "AuthenticationError";
}

/** 403: the key belongs to another tenant. */
export class PermissionDeniedError extends APIError {
  override name = "PermissionDeniedError";
}

/** 404: no such session or route; for a selection also `no_list` and `out_of_range`. */
export class NotFoundError extends APIError {
  override name = "NotFoundError";
}

/** 409: nothing is wrong with the request, but the state does not allow it yet (`no_profile`). */
export class ConflictError extends APIError {
  override name = "ConflictError";
}

/** 413: the body or batch is over the server's limit. */
export class TooLargeError extends APIError {
  override name = "TooLargeError";
}

/** 500 and other server failures that are not worth retrying. */
export class ServerError extends APIError {
  override name = "ServerError";
}

/**
 * 503 on every attempt: a dependency of Recall is away. For POST /v1/turns,
 * `accepted` and `failed` say which turns of the last attempt were and were
 * not stored; resending the same turns (same ids) is safe.
 */
export class UnavailableError extends APIError {
  override name = "UnavailableError";
  get accepted(): AcceptedTurn[] {
    return (asObject(this.body)?.accepted as AcceptedTurn[] | undefined) ?? [];
  }
  get failed(): string[] {
    return (asObject(this.body)?.failed as string[] | null | undefined) ?? [];
  }
}

const byStatus: Record<number, typeof APIError> = {
  400: InvalidRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  413: TooLargeError,
  415: InvalidRequestError,
  503: UnavailableError,
};

function asObject(v: unknown): Record<string, unknown> | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** The typed error for an error answer with its decoded body (undefined when not JSON). */
export function errorFrom(status: number, body: unknown): APIError {
  const detail = asObject(asObject(body)?.error) ?? {};
  const code = typeof detail.code === "string" && detail.code ? detail.code : `http_${status}`;
  const message = typeof detail.message === "string" && detail.message ? detail.message : `HTTP ${status}`;
  const fields: FieldError[] = [];
  for (const f of Array.isArray(detail.fields) ? detail.fields : []) {
    const o = asObject(f);
    if (o) fields.push({ field: String(o.field ?? ""), message: String(o.message ?? "") });
  }
  const cls = byStatus[status] ?? (status >= 500 ? ServerError : APIError);
  return new cls(status, code, message, fields, body);
}
