import type { Clock } from '../clock.js';
import type { SecretBox } from '../secrets.js';
import type { Store } from '../store/index.js';
import type { StoredTool } from '../store/tools.js';
import { OAuthTokenCache, type TargetAuth } from './auth.js';
import { maskAuth, openAuth } from './secrets.js';
import type { RuntimeDeps, ToolDef } from './types.js';

export interface ToolRuntimeOptions {
  store: Store;
  secrets: SecretBox;
  clock: Clock;
  /** First retry delay; later ones double (plus jitter). */
  retryBaseMs?: number;
}

/** What the tool runtime needs from the engine: tools by name, secrets, a clock, the call log. */
export function createToolRuntime({ store, secrets, clock, retryBaseMs = 250 }: ToolRuntimeOptions): RuntimeDeps {
  const withAuth = (tool: StoredTool, transform: typeof openAuth): ToolDef['config'] => {
    const config = (tool.definition as unknown as ToolDef).config;
    if (!config?.auth) return config;
    return { ...config, auth: transform(config.auth as unknown as Record<string, unknown>, secrets) as unknown as TargetAuth };
  };
  return {
    findTool: (name) => store.tools.findByName(name),
    openConfig: (tool) => withAuth(tool, openAuth),
    maskedConfig: (tool) => withAuth(tool, maskAuth),
    oauth: new OAuthTokenCache(() => clock.now()),
    now: () => clock.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    retryBaseMs,
    record: (call) => store.toolCalls.insert(call),
  };
}
