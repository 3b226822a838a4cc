import type { Clock } from '../clock.js';
import type { EventBus } from '../events.js';
import type { SecretBox } from '../kernel/secret-box.js';
import type { Store } from '../store/index.js';
import type { StoredTool } from '../store/tools.js';
import { OAuthTokenCache } from './auth.js';
import { maskConfig, openConfig, secretValues } from './secrets.js';
import type { RuntimeDeps, ToolDef } from './types.js';

export interface ToolRuntimeOptions {
  store: Store;
  secrets: SecretBox;
  clock: Clock;
  /** First retry delay; later ones double (plus jitter). */
  retryBaseMs?: number;
  /** Told which tools were called, a quarter second at a time. */
  events?: EventBus;
}

const CALLED_EVENT_MS = 250;

/** Collects the ids of tools called and emits them at most once per interval. */
function calledTools(events: EventBus | undefined): (toolId: string) => void {
  const called = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | null = null;
  return (toolId) => {
    if (!events) return;
    called.add(toolId);
    timer ??= setTimeout(() => {
      timer = null;
      events.emit('tools.called', { toolIds: [...called] });
      called.clear();
    }, CALLED_EVENT_MS);
    timer.unref?.();
  };
}

/** What the tool runtime needs from the engine: tools by name, secrets, a clock, the call log. */
export function createToolRuntime({
  store,
  secrets,
  clock,
  retryBaseMs = 250,
  events,
}: ToolRuntimeOptions): RuntimeDeps {
  const called = calledTools(events);
  const config = (tool: StoredTool, transform: typeof openConfig): ToolDef['config'] =>
    transform((tool.definition as unknown as ToolDef).config, secrets);
  // Opening secrets is an AES decryption: do it once per tool version, not once per call.
  const opened = new Map<string, ToolDef['config']>();
  const openOnce = (tool: StoredTool): ToolDef['config'] => {
    const key = `${tool.id}@${tool.version}`;
    let found = opened.get(key);
    if (!found) {
      if (opened.size > 500) opened.clear();
      opened.set(key, (found = config(tool, openConfig)));
    }
    return found;
  };
  const clearSecrets = new Map<string, string[]>();
  return {
    findTool: (name) => store.tools.findByName(name),
    openConfig: openOnce,
    maskedConfig: (tool) => config(tool, maskConfig),
    secretsOf: (tool) => {
      const key = `${tool.id}@${tool.version}`;
      let found = clearSecrets.get(key);
      if (!found) {
        if (clearSecrets.size > 500) clearSecrets.clear();
        clearSecrets.set(
          key,
          (found = secretValues((tool.definition as unknown as ToolDef).config, secrets)),
        );
      }
      return found;
    },
    oauth: new OAuthTokenCache(() => clock.now()),
    now: () => clock.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    retryBaseMs,
    // Not async: the insert only buffers the row, and every tool call passes here.
    record: (call) => {
      const buffered = store.toolCalls.insert(call);
      called(call.toolId);
      return buffered;
    },
  };
}
