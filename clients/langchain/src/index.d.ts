// Types of index.js.

import type { BaseListChatMessageHistory } from "@langchain/core/chat_history";
import type { Document } from "@langchain/core/documents";
import type { BaseMessage } from "@langchain/core/messages";
import type { BaseRetriever, BaseRetrieverInput } from "@langchain/core/retrievers";
import type { ContextParams, Recall, RecallOptions, SearchParams } from "@recallhq/client";

/** A Recall client of @recallhq/client, or the options to make one ({ url, tenant, apiKey }). */
export type RecallClientLike = Recall | RecallOptions;

/** What a retrieved document's metadata holds: the hit's kind, source id, session, role, time and score. */
export interface RecallDocumentMetadata {
  kind: "message" | "summary" | "fact";
  id: string;
  session_id?: string;
  agent_id?: string;
  role?: string;
  occurred_at: string;
  score: number;
}

export interface RecallRetrieverInput extends BaseRetrieverInput {
  recall: RecallClientLike;
  /** Whose history is searched: a search never reads another user's. */
  userId: string;
  /** How many documents at most (the search's k). */
  k?: number;
  /** More of the search's parameters: session_id, agent_id, role, kind, since, until, ... */
  search?: SearchParams;
}

export declare class RecallRetriever extends BaseRetriever {
  constructor(fields: RecallRetrieverInput);
  recall: Recall;
  userId: string;
  k?: number;
  search: SearchParams;
  _getRelevantDocuments(query: string): Promise<Document<RecallDocumentMetadata>[]>;
}

export interface RecallChatMessageHistoryInput {
  recall: RecallClientLike;
  userId: string;
  sessionId: string;
  /** The assistant or persona, when one app has several (the turns' agent_id). */
  agentId?: string;
}

export declare class RecallChatMessageHistory extends BaseListChatMessageHistory {
  constructor(fields: RecallChatMessageHistoryInput);
  recall: Recall;
  userId: string;
  sessionId: string;
  agentId?: string;
  getMessages(): Promise<BaseMessage[]>;
  addMessage(message: BaseMessage): Promise<void>;
  addMessages(messages: BaseMessage[]): Promise<void>;
  /** Deletes the session from Recall, its turns and what was derived from them alone. */
  clear(): Promise<void>;
}

/** The memory for a model call's system prompt: Recall's context, and the item a bare pick names; "" when there is none. */
export declare function recallContext(
  recall: RecallClientLike,
  params: { userId: string; sessionId: string; query: string; context?: Omit<ContextParams, "user_id" | "session_id" | "query"> },
): Promise<string>;

/** Stores a run's messages as Recall turns (the user's message, tool calls with results, the answer and its list). */
export declare function storeExchange(
  recall: RecallClientLike,
  messages: BaseMessage[],
  who: { userId: string; sessionId: string; agentId?: string; wait?: "stored" | "searchable" },
): Promise<void>;
