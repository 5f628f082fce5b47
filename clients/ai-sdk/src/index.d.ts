// Types of the middleware in index.js.

import type { LanguageModelV3Middleware } from "@ai-sdk/provider";
import type { ContextParams, Item, Recall, RecallOptions, ToolCall } from "@recallhq/client";

/** What the middleware was doing when an error happened; the user and session it was for. */
export interface RecallErrorInfo {
  phase: "context" | "selection" | "store";
  userId: string;
  sessionId: string;
  agentId?: string;
}

export interface RecallMemoryOptions {
  /** A Recall client, or the options to make one ({ url, tenant, apiKey }). */
  recall: Recall | RecallOptions;
  /** The user the calls speak for; a call may name another in providerOptions.recall.userId. */
  userId?: string;
  /** The conversation; a call may name another in providerOptions.recall.sessionId. */
  sessionId?: string;
  /** The assistant or persona, when one app has several (the turns' agent_id). */
  agentId?: string;
  /** More parameters of the context read (max_messages, budget, lang, ...). */
  context?: Omit<ContextParams, "user_id" | "session_id" | "query">;
  /** How long a call waits for the memory before it goes on without it; 1500 ms. */
  memoryTimeoutMs?: number;
  /**
   * Tools whose result the app shows the user as the numbered list itself
   * (as generative UI does): the newest such result's entries are the
   * answer's items, in the result's order.
   */
  listTools?: string[];
  /** The answer's items by a rule of the app's own; replaces listTools and the numbered-list matching. */
  items?: (answer: { text: string; toolCalls: ToolCall[] }) => Item[] | undefined;
  /** Where errors go (reading or storing memory never fails the app's call); console.warn by default. */
  onError?: (err: unknown, info: RecallErrorInfo) => void;
}

/** Per call, in providerOptions: { recall: { userId, sessionId, agentId, memory: false } }. */
export interface RecallCallOptions {
  userId?: string;
  sessionId?: string;
  agentId?: string;
  /** false: this call neither reads nor stores memory. */
  memory?: boolean;
}

export interface RecallMemoryMiddleware extends LanguageModelV3Middleware {
  /** Settles when every exchange finished so far is stored (or its error reported). */
  flush(): Promise<void>;
}

export declare function recallMemory(options: RecallMemoryOptions): RecallMemoryMiddleware;
