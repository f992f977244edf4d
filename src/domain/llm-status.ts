// What is known of the configured LLM endpoint (src/llm/capabilities.ts probes it), as /healthz reports it.

/**
 * How tool calls are asked for: `native` as OpenAI documents them; `native-plain` without `parallel_tool_calls` and
 * `tool_choice`, which some servers refuse; `text`, the tools in the system prompt and the call read back from the
 * answer's JSON, for models without tools.
 */
export type ToolMode = 'native' | 'native-plain' | 'text';

export interface LlmCapabilities {
  model: string;
  /** Native tool calls (`tool_calls` in the answer). */
  tools: boolean;
  /** Native tool calls when streaming, assembled from the fragments. */
  streamingTools: boolean;
  /** `parallel_tool_calls` accepted; null when tools are not native. */
  parallelToolCallsParam: boolean | null;
  /** `response_format: json_schema` answered with JSON that fits. */
  jsonSchema: boolean;
  /** An image in a user message accepted. */
  images: boolean;
  /** The context window the server reports for the model (null: it does not say). */
  contextTokens: number | null;
  /** How the agent asks for tool calls on this endpoint. */
  toolMode: ToolMode;
  probedAt: string;
  /** What each refused probe answered, for a person reading /healthz. */
  notes: Record<string, string>;
}

/** Not configured, being probed, or what the probe found. */
export type LlmStatus =
  | { configured: false }
  | {
      configured: true;
      model: string;
      toolMode: ToolMode;
      probing: boolean;
      capabilities: LlmCapabilities | null;
      fixedMode: boolean;
    };
