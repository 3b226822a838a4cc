import { reportedCallRecord } from '../domain/tools.js';
import type { CallSource, ToolCallRecord } from '../domain/tools.js';
import type { CallToolCall } from '../domain/providers.js';
import type { Store } from '../store/index.js';
import type { ToolDef } from './types.js';

/**
 * Turns tool calls that agents report (provider call history, provider chat, their own URL) into
 * call log rows: a name we define is that tool (its logPayloads says whether arguments and results
 * are kept); another is `ext_<name>`. Names are looked up once per resolver.
 */
export function reportedCalls(store: Store, source: CallSource) {
  const tools = new Map<string, { toolId: string; logPayloads: boolean }>();
  const toolOf = async (name: string) => {
    let found = tools.get(name);
    if (!found) {
      const tool = await store.tools.findByName(name);
      found = {
        toolId: tool?.id ?? `ext_${name}`,
        logPayloads: (tool?.definition as unknown as ToolDef | undefined)?.logPayloads === true,
      };
      tools.set(name, found);
    }
    return found;
  };
  return async (
    call: CallToolCall,
    agentId: string | null,
    startedMs: number,
  ): Promise<ToolCallRecord> =>
    reportedCallRecord(call, { ...(await toolOf(call.name)), agentId, source, startedMs });
}
