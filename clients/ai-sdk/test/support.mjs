// What the ai-sdk suite's files share: the environment clients_test.go runs
// them with, the model as an AI SDK app makes one (the real
// @ai-sdk/openai-compatible provider, pointed at the fake model), what that
// model received, and reads of what Recall stored through its HTTP API.
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { Recall } from "@recallhq/client";
import { tool } from "ai";
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

/** recall is a client of the live Recall, for the tests' own reads. */
export const recall = new Recall(recallOptions);

/** provider is the fake model as an app reaches an OpenAI-compatible one. */
export const provider = createOpenAICompatible({ name: "fake", baseURL: env.modelURL, apiKey: "test-model-key" });

export const dramas = [
  { ref: "/film/aftersun", title: "Aftersun", year: 2022 },
  { ref: "/film/past-lives", title: "Past Lives", year: 2023 },
];

/** searchFilms is the tool the film bots offer, as an AI SDK app declares one. */
export const searchFilms = tool({
  description: "Search the film catalogue",
  inputSchema: z.object({ query: z.string().optional(), genre: z.string().optional() }),
  execute: async ({ genre }) => ({ films: genre === "drama" ? dramas : films }),
});
