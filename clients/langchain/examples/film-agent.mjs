// A LangGraph agent with Recall as its memory. Its graph:
//
//   START → remember → agent ⇄ tools
//                        ↓
//                      store → END
//
// remember reads Recall's context for the user, the session and the user's
// message (and, for a bare "3", the item picked); agent calls the model with
// it in the system prompt; tools runs the tools the model asks for; store
// stores the run's exchange as turns (the message, the tool calls with their
// results, the answer and the list it presented). The graph keeps no history
// of its own: each run is given the new message alone, and Recall holds the
// rest. The user and the session come in the run's config:
//
//   await agent.invoke({ messages: [new HumanMessage("3")] },
//                      { configurable: { userId: "u-42", sessionId: "s-1" } });
import { SystemMessage } from "@langchain/core/messages";
import { Annotation, END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";

import { recallContext, storeExchange } from "../src/index.js";

const State = Annotation.Root({
  ...MessagesAnnotation.spec,
  /** What Recall remembers for this run's message, for the system prompt. */
  memory: Annotation({ reducer: (_, next) => next, default: () => "" }),
  /** Where this run's exchange starts in messages: at its user message. */
  from: Annotation({ reducer: (_, next) => next, default: () => 0 }),
});

/**
 * filmAgent builds the graph. recall is a Recall client or its options;
 * model a chat model that can call tools; tools LangChain tools.
 */
export function filmAgent({ recall, model, tools, instructions = "You recommend films. Quote refs exactly as given." }) {
  const withTools = model.bindTools(tools);
  const who = (config) => {
    const { userId, sessionId } = config.configurable ?? {};
    if (!userId || !sessionId) throw new Error("filmAgent: configurable.userId and configurable.sessionId are required");
    return { userId, sessionId };
  };

  return new StateGraph(State)
    .addNode("remember", async (state, config) => {
      const from = state.messages.findLastIndex((m) => m.getType() === "human");
      const query = from >= 0 ? state.messages[from].text : "";
      const memory = query ? await recallContext(recall, { ...who(config), query }) : "";
      return { memory, from: Math.max(from, 0) };
    })
    .addNode("agent", async (state) => {
      const system = new SystemMessage(state.memory ? `${instructions}\n\n${state.memory}` : instructions);
      return { messages: [await withTools.invoke([system, ...state.messages])] };
    })
    .addNode("tools", new ToolNode(tools))
    .addNode("store", async (state, config) => {
      await storeExchange(recall, state.messages.slice(state.from), who(config));
      return {};
    })
    .addEdge(START, "remember")
    .addEdge("remember", "agent")
    .addConditionalEdges("agent", (state) => (state.messages.at(-1)?.tool_calls?.length ? "tools" : "store"), ["tools", "store"])
    .addEdge("tools", "agent")
    .addEdge("store", END)
    .compile();
}
