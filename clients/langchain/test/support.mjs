// What the langchain suite's files share: the environment clients_test.go
// runs them with, a chat model as a LangChain app makes one (the real
// @langchain/openai, pointed at the fake model), what that model received,
// and reads of what Recall stored through its HTTP API.
import { tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { Recall } from "@recallhq/client";
import { z } from "zod";

import { films, need, recallEnv } from "../../nodetest/recall.mjs";

export { eventually, films, received, storedMessages, unique, waitForMessages } from "../../nodetest/recall.mjs";

export const env = {
  ...recallEnv,
  /** The fake model's API root, an OpenAI-compatible base URL. */
  modelURL: need("RECALL_MODEL_URL"),
  /** Answers the chat requests the fake model received, for ?model=. */
  modelRequests: need("RECALL_MODEL_REQUESTS"),
};

/** recallOptions are the options of a client of the live Recall, as the tenant. */
export const recallOptions = { url: env.recallURL, tenant: env.tenant, apiKey: env.recallKey };

/** recall is a client of the live Recall, for the tests' own writes and reads. */
export const recall = new Recall(recallOptions);

/** chatModel is the fake model as a LangChain app reaches an OpenAI-compatible one; no retries. */
export function chatModel(model) {
  return new ChatOpenAI({ model, apiKey: "test-model-key", maxRetries: 0, configuration: { baseURL: env.modelURL } });
}

/** The numbered list the film bots answer with (clients/frameworks_test.go). */
export const filmList =
  "Here are three science-fiction films:\n1. Dune (2021), spice and sandworms\n2. Arrival (2016), language as time\n3. Blade Runner 2049 (2017), replicants and memory";

/** searchFilms is the tool the film agent offers, as a LangChain app declares one. */
export const searchFilms = tool(async () => ({ films }), {
  name: "search_films",
  description: "Search the film catalogue",
  schema: z.object({ query: z.string().optional(), genre: z.string().optional() }),
});
