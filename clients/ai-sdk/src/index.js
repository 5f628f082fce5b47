// Recall as the memory of an AI SDK app: a language-model middleware for
// wrapLanguageModel. Before a call it reads the context Recall assembled for
// the user, the session and the user's latest message, and adds it to the
// system prompt; once the model has answered, it stores the exchange (the
// user's message, the tool calls with their results, the answer and the
// list the answer presented) as turns, after the answer, never in its way.
//
// Plain ESM with JSDoc types; index.d.ts declares the same for TypeScript.

import { Recall, listCandidates, pickedNumber, presentedItems } from "@recallhq/client";

/** How long a call waits for the memory before it goes on without it (ms). */
const DEFAULT_MEMORY_TIMEOUT_MS = 1500;

/** How long the memory read for one exchange is kept for its later steps (ms). */
const EXCHANGE_TTL_MS = 10 * 60 * 1000;

/**
 * recallMemory is the middleware. Give it a Recall client (or the options
 * to make one), and the user and session it speaks for; a call may name
 * others in `providerOptions.recall` ({ userId, sessionId, agentId, memory:
 * false }). A call without a user or a session passes through untouched.
 *
 * @param {import("./index.js").RecallMemoryOptions} options
 * @returns {import("./index.js").RecallMemoryMiddleware}
 */
export function recallMemory(options) {
  const recall = options.recall instanceof Recall || typeof options.recall?.context === "function" ? options.recall : new Recall(options.recall);
  const onError =
    options.onError ??
    ((err, info) => {
      console.warn(`recall: ${info.phase} (user ${info.userId}, session ${info.sessionId}): ${err instanceof Error ? err.message : String(err)}`);
    });
  const timeoutMs = options.memoryTimeoutMs ?? DEFAULT_MEMORY_TIMEOUT_MS;
  /** @type {Set<Promise<unknown>>} */
  const pending = new Set();
  /** The exchanges under way, by who and the message: the memory read for their first step, when they began. */
  const exchanges = new Map();

  /** report hands an error to onError, which must not break the app either. */
  const report = (err, info) => {
    try {
      onError(err, info);
    } catch {
      // An error in the error handler has nowhere left to go.
    }
  };

  /** who the call speaks for, or undefined when memory is off for it. */
  const who = (params) => {
    const o = params.providerOptions?.recall ?? {};
    if (o.memory === false) return undefined;
    const userId = o.userId ?? options.userId;
    const sessionId = o.sessionId ?? options.sessionId;
    if (!userId || !sessionId) return undefined;
    return { userId, sessionId, agentId: o.agentId ?? options.agentId };
  };

  /** exchange is the exchange a call belongs to: the first step of one reads the memory, the later ones reuse it. */
  const exchange = (id, message) => {
    const key = JSON.stringify([id.userId, id.sessionId, id.agentId ?? "", message]);
    const now = Date.now();
    for (const [k, ex] of exchanges) {
      if (now - ex.startedAt > EXCHANGE_TTL_MS) exchanges.delete(k);
    }
    let ex = exchanges.get(key);
    if (!ex) {
      ex = { key, startedAt: now, memory: readMemory(id, message) };
      exchanges.set(key, ex);
    }
    return ex;
  };

  /**
   * readMemory is the text to add to the system prompt and the item the
   * message picks, if any; it never fails (an error is reported, and the
   * call goes on without memory).
   */
  const readMemory = async (id, message) => {
    const n = pickedNumber(message);
    const work = Promise.all([
      recall.context({ ...options.context, user_id: id.userId, session_id: id.sessionId, query: message }),
      n === undefined
        ? undefined
        : recall.selection(id.sessionId, n).catch((err) => {
            // No list, or none that long: the context still shows what there is.
            if (err?.status !== 404) report(err, { phase: "selection", ...id });
            return undefined;
          }),
    ]);
    let timer;
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no memory within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      const [ctx, sel] = await Promise.race([work, late]);
      const parts = [];
      if (ctx?.prompt) parts.push(ctx.prompt);
      if (sel?.item) parts.push(pickNote(sel.n, sel.item));
      return { text: parts.join("\n\n"), pick: sel?.item ? { n: sel.n, ref: sel.item.ref } : undefined };
    } catch (err) {
      report(err, { phase: "context", ...id });
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  };

  /** store stores a finished exchange, in the background; flush() waits for it. */
  const store = (id, params, answerText, answerCalls) => {
    const prompt = params.prompt;
    const u = lastUserIndex(prompt);
    if (u < 0) return;
    const message = userText(prompt[u]);
    const key = JSON.stringify([id.userId, id.sessionId, id.agentId ?? "", message]);
    const ex = exchanges.get(key);
    exchanges.delete(key);
    const work = (async () => {
      const memory = ex ? await ex.memory : undefined;
      const { calls, texts } = exchangeSince(prompt, u, answerCalls);
      const content = [...texts, answerText].filter((t) => t.trim() !== "").join("\n\n");
      const items = presented(options, content, calls);
      const base = { user_id: id.userId, session_id: id.sessionId, ...(id.agentId ? { agent_id: id.agentId } : {}) };
      const answeredAt = new Date();
      const askedAt = new Date(Math.min(ex?.startedAt ?? answeredAt.getTime() - 1, answeredAt.getTime() - 1));
      const turns = [
        { ...base, role: "user", content: message, occurred_at: askedAt, ...(memory?.pick ? { metadata: { selection: memory.pick } } : {}) },
        {
          ...base,
          role: "assistant",
          content,
          occurred_at: answeredAt,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
          ...(items ? { items } : {}),
        },
      ];
      await recall.addTurns(turns);
    })().catch((err) => report(err, { phase: "store", ...id }));
    pending.add(work);
    work.finally(() => pending.delete(work));
  };

  return {
    specificationVersion: "v3",

    async transformParams({ params }) {
      const id = who(params);
      const u = lastUserIndex(params.prompt);
      if (!id || u < 0) return params;
      const memory = await exchange(id, userText(params.prompt[u])).memory;
      if (!memory?.text) return params;
      return { ...params, prompt: withMemory(params.prompt, memory.text) };
    },

    async wrapGenerate({ doGenerate, params }) {
      const result = await doGenerate();
      const id = who(params);
      if (id && answered(result.finishReason)) {
        const text = result.content.filter((p) => p.type === "text").map((p) => p.text).join("");
        const calls = result.content.filter((p) => p.type === "tool-call");
        store(id, params, text, calls);
      }
      return result;
    },

    async wrapStream({ doStream, params }) {
      const { stream, ...rest } = await doStream();
      const id = who(params);
      if (!id) return { stream, ...rest };
      let text = "";
      const calls = [];
      let finish;
      const watched = stream.pipeThrough(
        new TransformStream({
          transform(part, controller) {
            if (part.type === "text-delta") text += part.delta;
            else if (part.type === "tool-call") calls.push(part);
            else if (part.type === "finish") finish = part.finishReason;
            controller.enqueue(part);
          },
          flush() {
            // The answer has gone on to the app, whole: now store it.
            if (finish && answered(finish)) store(id, params, text, calls);
          },
        }),
      );
      return { stream: watched, ...rest };
    },

    flush() {
      return Promise.allSettled([...pending]).then(() => undefined);
    },
  };
}

/** pickNote states the item a message picks, in the words Recall's gateway uses. */
function pickNote(n, item) {
  const title = item.title ? `: ${JSON.stringify(item.title)}` : "";
  return `The user's message picks item ${n} of the list just shown${title} (ref: ${item.ref}). Use this ref when answering; do not make up another link or id.`;
}

/** answered tells a finished answer from a step that only asks for tools (or failed). */
function answered(finishReason) {
  const unified = typeof finishReason === "string" ? finishReason : finishReason?.unified;
  return unified !== "tool-calls" && unified !== "error";
}

/** lastUserIndex is the index of the prompt's last user message, or -1. */
function lastUserIndex(prompt) {
  for (let i = prompt.length - 1; i >= 0; i--) {
    if (prompt[i].role === "user") return i;
  }
  return -1;
}

/** userText is a user message's text parts, joined. */
function userText(message) {
  return message.content
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("\n");
}

/**
 * withMemory puts the memory in the system prompt: after the caller's
 * leading system message, a blank line between, or as a system message of
 * its own first when there is none.
 */
function withMemory(prompt, text) {
  if (prompt[0]?.role === "system") {
    const [first, ...rest] = prompt;
    return [{ ...first, content: first.content ? `${first.content}\n\n${text}` : text }, ...rest];
  }
  return [{ role: "system", content: text }, ...prompt];
}

/**
 * exchangeSince reads what happened after the user's message at index u:
 * the assistant's texts and tool calls of the earlier steps, each call with
 * the result the tool gave, and the final step's own calls (results a
 * provider ran itself included).
 */
function exchangeSince(prompt, u, answerCalls) {
  const calls = [];
  const texts = [];
  const results = new Map();
  for (const m of prompt.slice(u + 1)) {
    if (m.role !== "assistant" && m.role !== "tool") continue;
    for (const p of m.content) {
      if (p.type === "text" && m.role === "assistant") texts.push(p.text);
      else if (p.type === "tool-call") calls.push({ id: p.toolCallId, name: p.toolName, input: p.input });
      else if (p.type === "tool-result") results.set(p.toolCallId, p.output);
    }
  }
  for (const c of answerCalls) {
    calls.push({ id: c.toolCallId, name: c.toolName, input: typeof c.input === "string" ? parseJSON(c.input) : c.input });
  }
  return {
    texts,
    calls: calls.map((c) => {
      const out = toolOutput(results.get(c.id));
      return {
        id: c.id,
        name: c.name,
        ...(c.input === undefined ? {} : { arguments: c.input }),
        ...(out ? { result: out.result, status: out.status } : {}),
      };
    }),
  };
}

/** toolOutput is a tool result as Recall stores it: JSON kept as JSON, with how the call ended. */
function toolOutput(output) {
  if (!output) return undefined;
  switch (output.type) {
    case "json":
      return { result: output.value ?? null, status: "ok" };
    case "text":
      return { result: parseJSON(output.value), status: "ok" };
    case "error-json":
      return { result: output.value ?? null, status: "error" };
    case "error-text":
      return { result: output.value, status: "error" };
    case "execution-denied":
      return { result: output.reason ?? null, status: "denied" };
    case "content":
      return { result: output.value, status: "ok" };
    default:
      return undefined;
  }
}

/** parseJSON is the value a JSON text holds, or the text itself when it holds none. */
function parseJSON(text) {
  if (typeof text !== "string") return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * presented is the list the answer showed: the app's own rule (options.items)
 * when it has one; else the newest result of a tool the app shows as a list
 * (options.listTools); else the answer's numbered list paired with what the
 * tools returned.
 */
function presented(options, content, calls) {
  if (options.items) return options.items({ text: content, toolCalls: calls }) ?? undefined;
  if (options.listTools?.length) {
    for (let i = calls.length - 1; i >= 0; i--) {
      if (options.listTools.includes(calls[i].name) && calls[i].status === "ok") {
        const items = listCandidates(calls[i].result);
        if (items.length > 0) return items;
      }
    }
  }
  return presentedItems(
    content,
    listCandidates(...calls.filter((c) => c.status === "ok").map((c) => c.result)),
  );
}
