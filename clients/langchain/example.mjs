// One chat turn with Recall as memory: node example.mjs "your message".
// Settings from the environment: RECALL_URL, RECALL_TENANT, RECALL_API_KEY,
// RECALL_USER_ID, RECALL_SESSION_ID; OPENAI_BASE_URL, OPENAI_API_KEY, MODEL
// (any OpenAI-compatible endpoint).
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { RecallChatMessageHistory, recallContext } from "@recallhq/langchain";

const env = process.env;
const recall = { url: env.RECALL_URL, tenant: env.RECALL_TENANT, apiKey: env.RECALL_API_KEY };
const who = { userId: env.RECALL_USER_ID, sessionId: env.RECALL_SESSION_ID };
const model = new ChatOpenAI({ model: env.MODEL, apiKey: env.OPENAI_API_KEY, configuration: { baseURL: env.OPENAI_BASE_URL } });

const question = new HumanMessage(process.argv[2]);
const memory = await recallContext(recall, { ...who, query: question.text });
const answer = await model.invoke([new SystemMessage(`You are a helpful assistant.\n\n${memory}`), question]);
await new RecallChatMessageHistory({ recall, ...who }).addMessages([question, answer]);
console.log(answer.text);
