// The shapes of Recall's requests and answers.
//
// Each type mirrors the Go struct the API encodes (pkg/contract, and
// pkg/events for turns), field for field by its json tag (pkg/contract's
// TestShapesMatchEverywhere holds them to it): a field the Go
// side writes with `omitempty` is optional here, every other field is always
// present (nullable where Go writes a nil pointer as null). Times are RFC 3339
// strings as the API sends them; `attrs`, `arguments`, `result` and
// `metadata` are any JSON, kept as sent.

/** Any JSON value. */
export type JSONValue = string | number | boolean | null | JSONValue[] | { [key: string]: JSONValue };

/** A JSON object. */
export type JSONObject = { [key: string]: JSONValue };

// --- turns (pkg/events) ---

/** Roles a turn may carry. */
export type Role = "user" | "assistant" | "system" | "tool";

/** A tool call made while producing a turn, its result kept as JSON (events.ToolCall). */
export interface ToolCall {
  id?: string;
  name: string;
  arguments?: JSONValue;
  result?: JSONValue;
  status?: string;
  duration_ms?: number;
}

/**
 * One entry of the list shown to the user; `ref` is what the assistant quotes
 * (events.Item). Anything else about it (a url, a rating) goes in `attrs`: the
 * API refuses a field an item does not define, naming it.
 */
export interface Item {
  ref: string;
  title?: string;
  attrs?: JSONObject;
}

/** A chat turn as the API stores it (events.Turn). */
export interface Turn {
  v?: number;
  id: string;
  tenant_id: string;
  site_id?: string;
  user_id: string;
  session_id: string;
  agent_id?: string;
  occurred_at: string;
  role: Role;
  content: string;
  tool_calls?: ToolCall[];
  items?: Item[];
  metadata?: JSONObject;
}

/**
 * A turn as the client takes it: `id` and `occurred_at` are filled in when
 * missing (and kept across retries), `tenant_id` comes from the client's
 * tenant, `content` defaults to "" (allowed with tool calls or items).
 */
export type TurnInput = Omit<Turn, "id" | "tenant_id" | "occurred_at" | "content"> & {
  id?: string;
  tenant_id?: string;
  occurred_at?: string | Date;
  content?: string;
};

/** A turn JetStream stored; `duplicate` (absent when false) says it had it already. */
export interface AcceptedTurn {
  id: string;
  sequence: number;
  duplicate?: boolean;
}

/** The answer of POST /v1/turns (202); `wait` when the request asked to wait. */
export interface TurnsAccepted {
  accepted: AcceptedTurn[];
  wait?: TurnsWait;
}

/** What a POST of turns may wait for: stored by ingest, or stored and indexed. */
export type WaitFor = "stored" | "searchable";

/**
 * How a wait of POST /v1/turns ended: `reached` when it held for every
 * accepted turn within the bound; `pending` the ids it did not hold for,
 * `dead_lettered` those a worker it waited for gave up on.
 */
export interface TurnsWait {
  for: WaitFor;
  reached: boolean;
  waited_ms: number;
  pending?: string[];
  dead_lettered?: string[];
}

/**
 * Where one turn stands (GET /v1/turns/{id}): each turn-stream worker's
 * progress from its consumer's acknowledgement floor; `summarized` when a
 * summary version has read it.
 */
export interface TurnStatus {
  id: string;
  sequence: number;
  session_id: string;
  user_id: string;
  stored: boolean;
  searchable: boolean;
  summarized: boolean;
  workers: Record<string, WorkerProgress>;
}

/** Whether one worker has finished with a turn; `dead_letter` when it gave up on it. */
export interface WorkerProgress {
  done: boolean;
  dead_letter?: number;
}

// --- errors ---

/** One thing wrong with a request, naming the field ("[1].role", "n", "X-Tenant-ID"). */
export interface FieldError {
  field: string;
  message: string;
}

/** The API's error body: `{"error": ErrorDetail}`. */
export interface ErrorDetail {
  code: string;
  message: string;
  fields?: FieldError[];
  /** When the same request will work, where the server knows (still_duplicate). */
  retry_at?: string;
}

/** The body of an error answer. POST /v1/turns's 503 adds what was and was not stored. */
export interface ErrorBody {
  error: ErrorDetail;
  accepted?: AcceptedTurn[];
  failed?: string[] | null;
}

// --- sessions and messages (pkg/contract) ---

/** A stored turn (contract.Message), with its tool calls, items and metadata as sent. */
export interface Message {
  id: string;
  session_id: string;
  user_id: string;
  site_id?: string;
  agent_id?: string;
  role: Role;
  content: string;
  tool_calls?: ToolCall[];
  items?: Item[];
  metadata?: JSONObject;
  occurred_at: string;
  stored_at: string;
}

/** One version of a session's summary (contract.Summary). */
export interface Summary {
  session_id: string;
  user_id: string;
  version: number;
  from_count: number;
  through_count: number;
  first_event_id: string;
  first_at: string;
  last_event_id: string;
  last_at: string;
  covers_from: string;
  covers_to: string;
  messages_read: number;
  summary: string;
  key_topics: string[];
  model: string;
  reason: string;
  created_at: string;
}

/** GET /v1/sessions/{id}: the aggregates (contract.SessionInfo), the newest messages (oldest first), the summary. */
export interface Session {
  session_id: string;
  user_id: string;
  site_id?: string;
  agent_id?: string;
  message_count: number;
  system_count: number;
  first_message_at: string;
  last_message_at: string;
  created_at: string;
  updated_at: string;
  recent_messages: Message[];
  summary: Summary | null;
}

/** One page of GET /v1/sessions/{id}/messages; `next_cursor` is absent on the last. */
export interface MessagesPage {
  messages: Message[];
  next_cursor?: string;
  summary: Summary | null;
}

// --- context (pkg/contract) ---

/** How many entries of a part were left out, and why. */
export interface Cut {
  reason: string;
  count: number;
}

export interface WindowLimits {
  max_messages: number;
  max_chars: number;
}

/** One key of the user's attributes as the prompt states it (contract.AttributeEntry). */
export interface AttributeEntry {
  key: string;
  /** How the prompt names the key, in its language. */
  label: string;
  values: string[];
}

/** Who the user is (`about`) and what they asked the assistant to do (`requests`), in every context. */
export interface ContextAttributes {
  about: AttributeEntry[];
  requests: AttributeEntry[];
  /** The user's own standing statements: those that bear on the message first, then the strongest. */
  statements?: AttributeStatement[];
  cuts?: Cut[];
}

/** A self-statement of the user's as the prompt shows it. */
export interface AttributeStatement {
  text: string;
  at: string;
  session_id?: string;
  /** Chosen for bearing on the current message, or for its strength. */
  matched: boolean;
}

/** @deprecated Use ContextAttributes; this name goes in the next minor release. */
export type ContextProfile = ContextAttributes;
/** @deprecated Use AttributeEntry; this name goes in the next minor release. */
export type ProfileEntry = AttributeEntry;
/** @deprecated Use AttributeStatement; this name goes in the next minor release. */
export type ProfileStatement = AttributeStatement;

/** The characters each part of the context takes in the prompt. */
export interface PartSpend {
  framing: number;
  attributes: number;
  /** @deprecated The same count as `attributes`, under its old name: read `attributes`; `profile` goes in the next minor release. */
  profile: number;
  list: number;
  window: number;
  recalled: number;
  summaries: number;
  facts: number;
}

/** The total character budget (0: none), what the parts used, and what each used. */
export interface Budget {
  limit: number;
  used: number;
  parts: PartSpend;
}

/** An item of the current list with the number it was shown under. */
export interface ListEntry {
  n: number;
  ref: string;
  title?: string;
  attrs?: JSONObject;
}

/** The session's current list: the items of its newest turn that presented one. */
export interface PresentedList {
  event_id: string;
  occurred_at: string;
  count: number;
  items: ListEntry[];
  cuts?: Cut[];
}

export interface Window {
  messages: Message[];
  chars: number;
  truncated?: boolean;
  cuts?: Cut[];
}

export interface WeightedFact {
  type: string;
  value: string;
  display: string;
  weight: number;
  mention_count: number;
  last_mentioned_at: string;
}

export interface Facts {
  facts: WeightedFact[];
  cuts?: Cut[];
}

export interface SessionSummary {
  session_id: string;
  summary: string;
  key_topics: string[];
  version: number;
  message_count: number;
  covers_from: string;
  covers_to: string;
  last_message_at: string;
  model: string;
}

export interface Summaries {
  previous: SessionSummary[];
  current?: SessionSummary;
  cuts?: Cut[];
}

/** Why a search ran short without failing: `{"reason": "embedder", "detail": "timeout"}`. */
export interface Note {
  reason: string;
  detail?: string;
}

export interface RecalledHit {
  kind: "message" | "summary" | "fact";
  event_id?: string;
  session_id?: string;
  role?: Role;
  occurred_at: string;
  text: string;
  truncated?: boolean;
  score: number;
}

/** A stretch of time, [from, to): RFC 3339 times. */
export interface Span {
  from: string;
  to: string;
}

export interface Recalled {
  query: string;
  search: "hybrid" | "lexical";
  hits: RecalledHit[];
  cuts?: Cut[];
  notes?: Note[];
  /** The times the message names ("last Saturday", "four weeks ago"), as the search read them in the user's time zone; absent when it names none. */
  during?: Span[];
}

/** GET/POST /v1/context: the parts and `prompt`, the block to put in the system prompt. */
export interface Context {
  user_id: string;
  session_id: string;
  lang: string;
  limits: WindowLimits;
  ttl: string;
  budget: Budget;
  /** Who the user is and what they asked for; absent when nothing is known. */
  attributes?: ContextAttributes;
  /** @deprecated The same value as `attributes`, under its old name: read `attributes`; `profile` goes in the next minor release. */
  profile?: ContextAttributes;
  list: PresentedList | null;
  window: Window;
  facts: Facts;
  summaries: Summaries;
  recalled?: Recalled;
  prompt: string;
}

/**
 * A length of time as the client takes it: a number of seconds (`5`, `0.5`),
 * or a Go duration as the API reads it (`"10s"`, `"1m30s"`), sent as it is.
 */
export type Duration = number | string;

/** The parameters of a context (all but the ids optional). */
export interface ContextParams {
  user_id: string;
  session_id: string;
  /** The user's current message: the user's history is searched for it. */
  query?: string;
  max_messages?: number;
  max_chars?: number;
  /** The oldest message the window keeps: seconds, or a Go duration ("30m", "24h"). */
  ttl?: Duration;
  max_facts?: number;
  max_summaries?: number;
  max_recalled?: number;
  budget?: number;
  lang?: "en" | "zh" | "auto";
  /**
   * The context as it would have been assembled then (RFC 3339 with its offset,
   * or a Date): its time rules count from it, and nothing from it on is in it.
   */
  at?: string | Date;
}

// --- search ---

export interface Neighbor {
  id: string;
  role: Role;
  occurred_at: string;
  content: string;
}

export interface SearchHit {
  kind: "message" | "summary" | "fact";
  source_id: string;
  session_id?: string;
  agent_id?: string;
  role?: Role;
  occurred_at: string;
  text: string;
  score: number;
  lexical_rank?: number;
  lexical_score?: number;
  vector_rank?: number;
  similarity?: number;
  /** The hit's place among what happened when the query says (`during`). */
  time_rank?: number;
  /** The hit's place among the user's turns that hold the kind of answer the query asks for (the user's age). */
  asked_rank?: number;
  previous?: Neighbor;
  next?: Neighbor;
  /** With more than one neighbouring turn asked for: the turns before `previous`, nearest first. */
  earlier?: Neighbor[];
  /** With more than one neighbouring turn asked for: the turns after `next`, nearest first. */
  later?: Neighbor[];
}

export interface SearchResult {
  user_id: string;
  query: string;
  terms: string[];
  search: "hybrid" | "lexical";
  /** The times the query names, read in the user's time zone: what happened then was lifted. */
  during?: Span[];
  notes?: Note[];
  hits: SearchHit[];
}

/** The parameters of a search besides the user and `q`. */
export interface SearchParams {
  k?: number;
  session_id?: string;
  agent_id?: string;
  role?: string | string[];
  kind?: string | string[];
  since?: string | Date;
  until?: string | Date;
  /** `true` for the turn on each side of a hit, or how many turns on each side (0 to 3). */
  neighbors?: boolean | number;
  max_per_session?: number;
  /** The history as it stood then (RFC 3339 with its offset, or a Date): nothing from it on is read. */
  at?: string | Date;
}

// --- presented lists and seen items ---

export interface ListInfo {
  event_id: string;
  occurred_at: string;
  count: number;
}

/** Item `n` of the session's current list, exactly as it was sent. */
export interface Selection {
  session_id: string;
  n: number;
  item: Item;
  list: ListInfo;
}

export interface UnseenRequest {
  refs: string[];
  mark_notified: boolean;
  notification_id: string;
}

export interface Unseen {
  user_id: string;
  unseen: string[];
  marked: number;
}

export interface SeenItem {
  ref: string;
  title?: string;
  attrs?: JSONObject;
  times_shown: number;
  first_seen_at: string;
  last_seen_at: string;
  last_event_id: string;
  last_session_id: string;
}

export interface Seen {
  user_id: string;
  items: SeenItem[];
}

// --- interests ---

/** An interest fact with its stored base weight and its weight now, by which the list is ordered. */
export interface InterestFact {
  type: string;
  value: string;
  display: string;
  base_weight: number;
  weight: number;
  mention_count: number;
  last_mentioned_at: string;
  expires_at: string;
  status: string;
}

/** The interest vector's metadata; `values` only when asked for. */
export interface InterestVector {
  present: boolean;
  dims?: number;
  model?: string;
  sources?: Record<string, number>;
  computed_from?: string;
  updated_at?: string;
  revision?: number;
  values?: number[];
}

/** The interest facts and vector gathered from what the user talks about. */
export interface Interests {
  user_id: string;
  at: string;
  facts: InterestFact[];
  cuts?: Cut[];
  vector: InterestVector;
}

/** A queued recompute of a user's interest vector. */
export interface InterestsRefresh {
  user_id: string;
  requested_at: string;
  duplicate: boolean;
}

/** @deprecated Use Interests; this name goes in the next minor release. */
export type Profile = Interests;
/** @deprecated Use InterestFact; this name goes in the next minor release. */
export type ProfileFact = InterestFact;
/** @deprecated Use InterestVector; this name goes in the next minor release. */
export type ProfileVector = InterestVector;
/** @deprecated Use InterestsRefresh; this name goes in the next minor release. */
export type ProfileRefresh = InterestsRefresh;

export interface Recommendation {
  ref: string;
  type: string;
  title: string;
  attrs?: JSONObject;
  distance: number;
  score: number;
}

export interface Recommendations {
  user_id: string;
  k: number;
  model: string;
  items: Recommendation[];
}

// --- attributes: who the user is and what they asked for ---

/** One value of an attribute key, with where it came from and when it held (contract.AttributeValue). */
export interface AttributeValue {
  key: string;
  group: "about" | "preference";
  item?: string;
  value: string;
  op: "put" | "remove";
  source: "explicit" | "stated" | "inferred" | "derived";
  status: "current" | "superseded" | "retracted" | "removal" | "ignored";
  event_id: string;
  evidence?: string[];
  session_id?: string;
  confidence: number;
  valid_from: string;
  valid_to?: string;
  ended_by?: string;
}

/** GET /v1/users/{id}/attributes. */
export interface Attributes {
  user_id: string;
  current: AttributeValue[];
  history?: AttributeValue[];
}

/** One explicit edit: `put` a value (or add an item to a set), or `remove` one (every item without a value). */
export interface AttributeEdit {
  key: string;
  op: "put" | "remove";
  value?: string;
}

/** PATCH /v1/users/{id}/attributes's body. */
export interface AttributeEdits {
  id?: string;
  occurred_at?: string;
  edits: AttributeEdit[];
}

/** The answer to an edit (202): the events published. */
export interface AttributesAccepted {
  user_id: string;
  accepted: AcceptedTurn[];
}

// --- summaries, deletion ---

export interface SummarizeRequest {
  from_count: number;
  through_count: number;
  duplicate: boolean;
}

/** `status`: current (nothing new), queued, or summarized (within `wait`). */
export interface SummarizeResult {
  session_id: string;
  status: "current" | "queued" | "summarized";
  summary: Summary | null;
  request?: SummarizeRequest;
}

/** An endpoint to register (POST /v1/webhooks): types are change types, prefixes such as "attribute.*", or "*"; secret left out: the server makes one. */
export interface WebhookCreate {
  url: string;
  types: string[];
  secret?: string;
}

/** An endpoint of the tenant; secret only in the answer that registered it. */
export interface Webhook {
  id: string;
  url: string;
  types: string[];
  created_at: string;
  secret?: string;
}

export interface Webhooks {
  webhooks: Webhook[];
}

/** One change for one endpoint, as its delivery stands. */
export interface WebhookDelivery {
  change_id: string;
  type: string;
  user_id: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  redrives: number;
  in_flight: boolean;
  next_attempt_at?: string;
  last_status_code?: number;
  last_error?: string;
  last_attempt_at?: string;
  created_at: string;
  finished_at?: string;
}

export interface WebhookCounts {
  pending: number;
  delivered: number;
  failed: number;
}

/** An endpoint's newest deliveries and how many it has of each status. */
export interface WebhookDeliveries {
  webhook_id: string;
  counts: WebhookCounts;
  deliveries: WebhookDelivery[];
}

/** What forgetting a user removed: rows per table, stream messages per stream. */
export interface ForgetReport {
  tenant_id: string;
  user_id: string;
  rows: Record<string, number>;
  stream_messages: Record<string, number>;
}

/** One change to what Recall holds about a user, as the change feed carries it (recall.changes.<tenant>.<user>; contract.Change). */
export interface Change {
  v: number;
  id: string;
  type:
    | "attribute.asserted"
    | "attribute.superseded"
    | "attribute.removed"
    | "user.forgotten"
    | "fact.new"
    | "fact.archived"
    | "fact.expired"
    | "summary.updated"
    | "list.presented";
  tenant_id: string;
  user_id: string;
  at: string;
  attribute?: AttributeValue;
  forgotten?: ForgetReport;
  fact?: ChangedFact;
  summary?: Summary;
  list?: ChangedList;
}

/** The interest fact a fact.* change is about; event_id (fact.new) is the event of its first mention. */
export interface ChangedFact {
  type: string;
  value: string;
  display: string;
  status: "active" | "archived" | "expired";
  source: string;
  session_id?: string;
  event_id?: string;
  base_weight: number;
  weight: number;
  mention_count: number;
  first_seen_at: string;
  last_mentioned_at: string;
  expires_at: string;
}

/** The list a list.presented change is about: the turn that presented it, numbered as the user saw it. */
export interface ChangedList {
  session_id: string;
  event_id: string;
  count: number;
  items: ListEntry[];
}
