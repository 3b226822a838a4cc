import type { ModelClient } from '../llm/types.js';
import type { ChatMessage, ToolSpec, Usage } from '../llm/types.js';
import type { AgentConfiguration } from '../providers/types.js';
import { executeTool } from '../tools/runtime.js';
import type { ParameterDefinition } from '../tools/params.js';
import type { RuntimeDeps, ToolDef } from '../tools/types.js';
import { END_MARKER, stripEnd } from '../conversation/caller.js';
import type { Turn } from './scoring.js';
import type { AgentReply, AgentUnderTest } from '../conversation/agent-under-test.js';

const MAX_TOOL_ROUNDS = 5;

/** Our parameter definitions as the JSON Schema a model's tool calling expects. */
function schemaOf(params: ParameterDefinition[] = []): Record<string, unknown> {
  return {
    type: 'object',
    properties: Object.fromEntries(
      params.map((p) => [
        p.name,
        {
          type: p.type,
          ...(p.description ? { description: p.description } : {}),
          ...(p.enum ? { enum: p.enum } : {}),
        },
      ]),
    ),
    required: params.filter((p) => p.required).map((p) => p.name),
  };
}

/** What a replica runs on: the agent's effective configuration, the replica model, our tools. */
export interface ReplicaOptions {
  config: AgentConfiguration;
  model: ModelClient;
  tools: RuntimeDeps;
  agentId: string;
  /** Model calls and tokens are added here. */
  usage: Usage;
  /** When the conversation began (tool turns are timed from it). */
  startedAt: number;
}

type OfferedTool = NonNullable<Awaited<ReturnType<RuntimeDeps['findTool']>>>;

/** The agent's tools that we define (by name), and how the model is told of them. */
async function offeredTools(config: AgentConfiguration, tools: RuntimeDeps) {
  const found = await Promise.all(config.tools.map((t) => tools.findTool(t.name)));
  const offered = found.filter((t) => t !== undefined);
  const specs: ToolSpec[] = offered.map((t) => {
    const def = t.definition as unknown as ToolDef & { description?: string };
    return {
      name: t.name,
      description: def.description || t.name,
      parameters: schemaOf(def.parameters),
    };
  });
  return { offered, specs };
}

/** Calls the tool the model asked for, for real; what the model is told back, and whether it worked. */
async function callTool(
  tool: OfferedTool | undefined,
  call: { name: string; arguments: Record<string, unknown> },
  opts: ReplicaOptions,
): Promise<{ result: unknown; success: boolean }> {
  if (!tool) return { result: { error: `no tool named ${call.name}` }, success: false };
  try {
    const answer = await executeTool(tool, call.arguments, {
      deps: opts.tools,
      source: 'simulation',
      agentId: opts.agentId,
    });
    if (answer.success) return { result: answer.result, success: true };
    return {
      result: {
        error: answer.error,
        fallback: answer.fallback,
        approvalRequired: answer.approvalRequired,
        message: answer.message,
      },
      success: false,
    };
  } catch (err) {
    return { result: { error: (err as Error).message }, success: false };
  }
}

/**
 * The agent under test run from its effective configuration (synced snapshot plus local
 * overrides) on the replica model. Its tools are ours of the same name, called for real.
 */
export async function replicaAgent(opts: ReplicaOptions): Promise<AgentUnderTest> {
  const { config, model, usage, startedAt } = opts;
  const { offered, specs } = await offeredTools(config, opts.tools);
  const system = `${config.prompt ?? 'You are a helpful voice agent.'}\n\nYou are on a phone call: answer in short spoken sentences. When the conversation is finished, say goodbye and end your message with ${END_MARKER}.`;
  const messages: ChatMessage[] = [];
  if (config.firstMessage) messages.push({ role: 'assistant', content: config.firstMessage });

  return {
    firstMessage: config.firstMessage,
    close: async () => {},
    async reply(callerText: string): Promise<AgentReply> {
      messages.push({ role: 'user', content: callerText });
      const toolTurns: Turn[] = [];
      for (let round = 0; round <= MAX_TOOL_ROUNDS; round++) {
        const out = await model(
          {
            system,
            messages,
            tools: specs,
            temperature: config.model.temperature ?? undefined,
            maxTokens: config.model.maxTokens ?? undefined,
          },
          usage,
        );
        if (out.toolCalls.length === 0 || round === MAX_TOOL_ROUNDS) {
          messages.push({ role: 'assistant', content: out.text });
          return { ...stripEnd(out.text), toolTurns };
        }
        messages.push({ role: 'assistant', content: out.text, toolCalls: out.toolCalls });
        for (const call of out.toolCalls) {
          const began = performance.now();
          const tool = offered.find((t) => t.name === call.name);
          const { result, success } = await callTool(tool, call, opts);
          toolTurns.push({
            role: 'tool',
            text: '',
            at_ms: Date.now() - startedAt,
            latency_ms: Math.round(performance.now() - began),
            tool: { name: call.name, arguments: call.arguments, result, success },
          });
          messages.push({
            role: 'tool',
            toolCallId: call.id,
            name: call.name,
            content: JSON.stringify(result),
          });
        }
      }
      return { text: '', ended: false, toolTurns };
    },
  };
}
