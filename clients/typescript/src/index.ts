// A TypeScript client for Recall, memory for chat assistants. No runtime
// dependencies: the global fetch of Node >= 18 (or a browser).

export * from "./client.js";
export * from "./errors.js";
export * from "./lists.js";
export type * from "./types.js";
