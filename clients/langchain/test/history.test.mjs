// RecallChatMessageHistory: messages added are Recall turns (tool calls with
// their results and the list the answer presented), the messages read are
// the session's stored turns; and as the history of a chain
// (RunnableWithMessageHistory) with a real chat model.
import assert from "node:assert/strict";
import { test } from "node:test";

import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { RunnableWithMessageHistory } from "@langchain/core/runnables";

import { RecallChatMessageHistory } from "../src/index.js";
import { chatModel, filmList, films, received, recallOptions, storedMessages, unique, waitForMessages } from "./support.mjs";

test("messages added are stored as turns, tool calls with their results, and read back as the messages they were", async () => {
  const user = unique("lc-hist-user");
  const session = unique("lc-hist");
  const history = new RecallChatMessageHistory({ recall: recallOptions, userId: user, sessionId: session });
  assert.deepEqual(await history.getMessages(), [], "a session not stored yet has no messages");

  await history.addMessages([
    new HumanMessage("Any good science fiction films?"),
    new AIMessage({ content: "", tool_calls: [{ id: "call_lc_hist", name: "search_films", args: { query: "science fiction" }, type: "tool_call" }] }),
    new ToolMessage({ content: JSON.stringify({ films }), tool_call_id: "call_lc_hist", name: "search_films" }),
    new AIMessage(filmList),
  ]);
  // addMessages waited until Recall had stored them.
  let stored = await storedMessages(session);
  assert.deepEqual(stored.map((m) => [m.role, m.content]), [
    ["user", "Any good science fiction films?"],
    ["assistant", filmList],
  ]);
  assert.deepEqual(stored[1].tool_calls, [
    { id: "call_lc_hist", name: "search_films", arguments: { query: "science fiction" }, result: { films }, status: "ok" },
  ]);
  assert.deepEqual(stored[1].items.map((i) => i.ref), ["/film/dune-2021", "/film/arrival", "/film/blade-runner-2049"]);

  const read = await history.getMessages();
  assert.deepEqual(read.map((m) => m.getType()), ["human", "ai", "tool", "ai"]);
  assert.equal(read[0].text, "Any good science fiction films?");
  assert.deepEqual(read[1].tool_calls.map(({ id, name, args }) => ({ id, name, args })), [{ id: "call_lc_hist", name: "search_films", args: { query: "science fiction" } }]);
  assert.equal(read[2].tool_call_id, "call_lc_hist");
  assert.deepEqual(JSON.parse(read[2].text), { films });
  assert.equal(read[3].text, filmList);

  // One message at a time: the pick keeps the item it named.
  await history.addMessage(new HumanMessage("3"));
  stored = await storedMessages(session);
  assert.equal(stored.length, 3);
  assert.deepEqual(stored[2].metadata, { selection: { n: 3, ref: "/film/blade-runner-2049" } });

  await history.clear();
  assert.deepEqual(await history.getMessages(), []);
});

test("as a chain's history: the stored turns reach the model, and the exchange is stored", async () => {
  const user = unique("lc-chain-user");
  const session = unique("lc-chain");
  const histories = (sessionId) => new RecallChatMessageHistory({ recall: recallOptions, userId: user, sessionId });
  await histories(session).addMessages([new HumanMessage("My favourite director is Céline Sciamma."), new AIMessage("Noted.")]);

  const prompt = ChatPromptTemplate.fromMessages([["system", "You recommend films."], new MessagesPlaceholder("history"), ["human", "{input}"]]);
  const chain = new RunnableWithMessageHistory({
    runnable: prompt.pipe(chatModel("lc-history")),
    getMessageHistory: histories,
    inputMessagesKey: "input",
    historyMessagesKey: "history",
  });
  const answer = await chain.invoke({ input: "Which of her films should I start with?" }, { configurable: { sessionId: session } });
  assert.equal(answer.text, "Start with Portrait of a Lady on Fire.");

  const [req] = await received("lc-history");
  assert.deepEqual(req.messages, [
    { role: "system", content: "You recommend films." },
    { role: "user", content: "My favourite director is Céline Sciamma." },
    { role: "assistant", content: "Noted." },
    { role: "user", content: "Which of her films should I start with?" },
  ]);
  // The chain writes the history once it has the answer.
  const stored = await waitForMessages(session, 4);
  assert.deepEqual(stored.map((m) => [m.role, m.content]), [
    ["user", "My favourite director is Céline Sciamma."],
    ["assistant", "Noted."],
    ["user", "Which of her films should I start with?"],
    ["assistant", "Start with Portrait of a Lady on Fire."],
  ]);
});
