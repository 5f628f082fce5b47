// One chat turn with Recall as memory: node example.mjs "your message".
// Settings from the environment: RECALL_URL, RECALL_TENANT, RECALL_API_KEY,
// RECALL_USER_ID, RECALL_SESSION_ID; OPENAI_BASE_URL, OPENAI_API_KEY, MODEL
// (any OpenAI-compatible endpoint).
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, wrapLanguageModel } from "ai";
import { recallMemory } from "@recallhq/ai-sdk";

const env = process.env;
const memory = recallMemory({
  recall: { url: env.RECALL_URL, tenant: env.RECALL_TENANT, apiKey: env.RECALL_API_KEY },
  userId: env.RECALL_USER_ID,
  sessionId: env.RECALL_SESSION_ID,
});
const llm = createOpenAICompatible({ name: "llm", baseURL: env.OPENAI_BASE_URL, apiKey: env.OPENAI_API_KEY });
const model = wrapLanguageModel({ model: llm.chatModel(env.MODEL), middleware: memory });

const { text } = await generateText({ model, system: "You are a helpful assistant.", prompt: process.argv[2] });
console.log(text);
await memory.flush(); // the exchange is stored before the process ends
