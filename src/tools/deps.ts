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

/**
 * What `make` answers for a tool, made once per tool version. The read cache hands every call the
 * same tool object until the tool is read again: that object is looked up first, without building
 * the `id@version` key each call.
 */
function perToolVersion<T>(make: (tool: StoredTool) => T): (tool: StoredTool) => T {
  const byObject = new WeakMap<StoredTool, T>();
  const byVersion = new Map<string, T>();
  return (tool) => {
    let found = byObject.get(tool);
    if (found !== undefined) return found;
    const key = `${tool.id}@${tool.version}`;
    found = byVersion.get(key);
    if (found === undefined) {
      if (byVersion.size > 500) byVersion.clear();
      byVersion.set(key, (found = make(tool)));
    }
    byObject.set(tool, found);
    return found;
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
  const openOnce = perToolVersion((tool) => config(tool, openConfig));
  return {
    findTool: (name) => store.tools.findByName(name),
    openConfig: openOnce,
    maskedConfig: (tool) => config(tool, maskConfig),
    secretsOf: perToolVersion((tool) =>
      secretValues((tool.definition as unknown as ToolDef).config, secrets),
    ),
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
