// Recall for LangChain.js and LangGraph.js: a retriever over a user's
// memory, a chat message history kept as a Recall session, and the two
// steps a LangGraph agent takes around its model (read the context, store
// the exchange).
//
// Plain ESM with JSDoc types; index.d.ts declares the same for TypeScript.

import { BaseListChatMessageHistory } from "@langchain/core/chat_history";
import { Document } from "@langchain/core/documents";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { BaseRetriever } from "@langchain/core/retrievers";
import { Recall, listCandidates, pickedNumber, presentedItems } from "@recallhq/client";

/** client is the Recall client options name: the client itself, or one made from its options. */
function client(recall) {
  return recall instanceof Recall || typeof recall?.context === "function" ? recall : new Recall(recall);
}

/**
 * RecallRetriever finds what a user's whole history holds that bears on a
 * query (`/v1/users/{id}/search`: turns, summaries and interest facts,
 * hybrid lexical and vector search inside the user's history), as
 * documents: the text as `pageContent`; `kind`, `id`, `session_id`,
 * `role`, `occurred_at` and `score` as metadata.
 */
export class RecallRetriever extends BaseRetriever {
  static lc_name() {
    return "RecallRetriever";
  }

  lc_namespace = ["recall", "retrievers"];

  /** @param {import("./index.js").RecallRetrieverInput} fields */
  constructor(fields) {
    super(fields);
    this.recall = client(fields.recall);
    this.userId = fields.userId;
    this.k = fields.k;
    this.search = fields.search ?? {};
  }

  async _getRelevantDocuments(query) {
    const res = await this.recall.search(this.userId, query, { ...this.search, ...(this.k ? { k: this.k } : {}) });
    return res.hits.map(
      (h) =>
        new Document({
          pageContent: h.text,
          id: h.source_id,
          metadata: {
            kind: h.kind,
            id: h.source_id,
            ...(h.session_id ? { session_id: h.session_id } : {}),
            ...(h.agent_id ? { agent_id: h.agent_id } : {}),
            ...(h.role ? { role: h.role } : {}),
            occurred_at: h.occurred_at,
            score: h.score,
          },
        }),
    );
  }
}

/**
 * RecallChatMessageHistory is a conversation kept as a Recall session:
 * adding messages stores them as turns (an assistant's tool calls and their
 * results with the answer that follows them, the list the answer presented
 * as its items), and the messages are the session's stored turns, tool
 * calls and results given back as the messages they came from. It waits
 * until Recall has stored what it adds, so the next read has it.
 */
export class RecallChatMessageHistory extends BaseListChatMessageHistory {
  lc_namespace = ["recall", "stores", "message"];

  /** @param {import("./index.js").RecallChatMessageHistoryInput} fields */
  constructor(fields) {
    super(fields);
    this.recall = client(fields.recall);
    this.userId = fields.userId;
    this.sessionId = fields.sessionId;
    this.agentId = fields.agentId;
    /** Tool calls with no answer after them yet, kept for the answer an addMessages to come brings. */
    this.pending = [];
  }

  async getMessages() {
    const out = [];
    try {
      for await (const m of this.recall.iterMessages(this.sessionId)) {
        out.push(...turnMessages(m));
      }
    } catch (err) {
      if (err?.status === 404) return []; // no turn stored yet
      throw err;
    }
    return out;
  }

  async addMessage(message) {
    await this.addMessages([message]);
  }

  async addMessages(messages) {
    const { turns, pending } = await messagesToTurns(this.recall, [...this.pending, ...messages], this);
    this.pending = pending;
    if (turns.length > 0) await this.recall.addTurns(turns, { wait: "stored" });
  }

  async clear() {
    this.pending = [];
    await this.recall.deleteSession(this.sessionId);
  }
}

/**
 * recallContext reads Recall's context for the user, the session and the
 * current message, for the system prompt of the model call that follows:
 * the context's prompt, and when the message is a bare pick from the list
 * the session showed ("3"), the item picked with its ref. Returns "" when
 * there is nothing to add.
 *
 * @param {import("./index.js").RecallClientLike} recall
 * @param {{ userId: string, sessionId: string, query: string, context?: object }} params
 */
export async function recallContext(recall, { userId, sessionId, query, context }) {
  const r = client(recall);
  const n = pickedNumber(query);
  const [ctx, sel] = await Promise.all([
    r.context({ ...context, user_id: userId, session_id: sessionId, query }),
    n === undefined ? undefined : r.selection(sessionId, n).catch((err) => (err?.status === 404 ? undefined : Promise.reject(err))),
  ]);
  const parts = [];
  if (ctx.prompt) parts.push(ctx.prompt);
  if (sel?.item) parts.push(pickNote(sel.n, sel.item));
  return parts.join("\n\n");
}

/**
 * storeExchange stores messages of a conversation as Recall turns: the
 * messages a graph run added (the user's message, the model's tool calls,
 * the tools' results, the answer). Tool calls no answer has followed are
 * stored as an assistant turn of their own.
 *
 * @param {import("./index.js").RecallClientLike} recall
 * @param {import("@langchain/core/messages").BaseMessage[]} messages
 * @param {{ userId: string, sessionId: string, agentId?: string, wait?: "stored" | "searchable" }} who
 */
export async function storeExchange(recall, messages, who) {
  const r = client(recall);
  const { turns, pending } = await messagesToTurns(r, messages, who);
  if (pending.length > 0) turns.push(assistantTurn(who, "", pending, new Date()));
  if (turns.length > 0) await r.addTurns(turns, who.wait ? { wait: who.wait } : {});
}

/** pickNote states the item a message picks, in the words Recall's gateway uses. */
function pickNote(n, item) {
  const title = item.title ? `: ${JSON.stringify(item.title)}` : "";
  return `The user's message picks item ${n} of the list just shown${title} (ref: ${item.ref}). Use this ref when answering; do not make up another link or id.`;
}

/** kind is a message's type: human, ai, tool, system. */
function kind(m) {
  return typeof m.getType === "function" ? m.getType() : m._getType();
}

/** text is a message's content as text: its text parts, joined. */
function text(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((p) => typeof p === "string" || p?.type === "text")
    .map((p) => (typeof p === "string" ? p : p.text))
    .join("");
}

/** parseJSON is the value a JSON text holds, or the text itself. */
function parseJSON(s) {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

/**
 * messagesToTurns turns messages into Recall turns, in order, with event
 * times a millisecond apart ending now. Tool calls wait for the assistant
 * message with text that follows their results, and are stored with it;
 * calls a user message follows instead are an assistant turn of their own;
 * calls still unanswered at the end are returned as pending. A user message
 * that is a bare pick from the session's list keeps what it picked in its
 * metadata.
 */
async function messagesToTurns(recall, messages, who) {
  const turns = [];
  let pending = [];
  const results = new Map();
  const now = Date.now();
  const at = () => new Date(now - messages.length + turns.length);
  const attach = () =>
    pending.map((c) => {
      const r = results.get(c.id);
      return r ? { ...c, ...r } : c;
    });
  for (const m of messages) {
    switch (kind(m)) {
      case "human": {
        if (pending.length > 0) {
          turns.push(assistantTurn(who, "", attach(), at()));
          pending = [];
        }
        const content = text(m.content);
        const n = pickedNumber(content);
        let metadata;
        if (n !== undefined) {
          const sel = await recall.selection(who.sessionId, n).catch(() => undefined);
          if (sel?.item) metadata = { selection: { n, ref: sel.item.ref } };
        }
        turns.push({ ...base(who), role: "user", content, occurred_at: at(), ...(metadata ? { metadata } : {}) });
        break;
      }
      case "ai": {
        for (const c of m.tool_calls ?? []) {
          pending.push({ id: c.id, name: c.name, arguments: c.args });
        }
        const content = text(m.content);
        if (content.trim() !== "" && !(m.tool_calls?.length > 0)) {
          turns.push(assistantTurn(who, content, attach(), at()));
          pending = [];
        }
        break;
      }
      case "tool":
        results.set(m.tool_call_id, {
          result: parseJSON(text(m.content)),
          status: m.status === "error" ? "error" : "ok",
        });
        break;
      case "system":
        break; // instructions, not conversation
      default:
        break;
    }
  }
  return { turns, pending: attach() };
}

/** base is what every turn of the conversation carries: its user, session and agent. */
function base(who) {
  return { user_id: who.userId, session_id: who.sessionId, ...(who.agentId ? { agent_id: who.agentId } : {}) };
}

/** assistantTurn is an answer with the tool calls that led to it and the list it presented. */
function assistantTurn(who, content, calls, at) {
  const items = presentedItems(content, listCandidates(...calls.filter((c) => c.status === "ok").map((c) => c.result)));
  return {
    ...base(who),
    role: "assistant",
    content,
    occurred_at: at,
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
    ...(items ? { items } : {}),
  };
}

/**
 * turnMessages is a stored turn as the LangChain messages it came from: an
 * assistant turn with tool calls gives the AI message that made them, a
 * tool message for each result, then the answer.
 */
function turnMessages(m) {
  switch (m.role) {
    case "user":
      return [new HumanMessage({ content: m.content, id: m.id })];
    case "system":
      return [new SystemMessage({ content: m.content, id: m.id })];
    case "tool":
      return [new ToolMessage({ content: m.content, tool_call_id: m.tool_calls?.[0]?.id ?? "", id: m.id })];
    case "assistant": {
      const calls = (m.tool_calls ?? []).map((c, i) => ({ ...c, id: c.id || `${m.id}-${i + 1}` }));
      const out = [];
      if (calls.length > 0) {
        out.push(new AIMessage({ content: "", tool_calls: calls.map((c) => ({ id: c.id, name: c.name, args: c.arguments ?? {}, type: "tool_call" })) }));
        for (const c of calls) {
          out.push(
            new ToolMessage({
              content: typeof c.result === "string" ? c.result : JSON.stringify(c.result ?? null),
              tool_call_id: c.id,
              name: c.name,
              status: c.status === "error" ? "error" : "success",
            }),
          );
        }
      }
      if (m.content !== "" || calls.length === 0) out.push(new AIMessage({ content: m.content, id: m.id }));
      return out;
    }
    default:
      return [];
  }
}
