import type { SecretBox } from '../kernel/secret-box.js';
import { createModelClient } from '../llm/client.js';
import { connectionFor } from '../llm/settings.js';
import { emptyUsage, type ModelConnection } from '../llm/types.js';
import { modelJudge } from '../simulations/judge.js';
import type { Store } from '../store/index.js';
import type { JudgeSource } from './rescore.js';

/**
 * The judge role's model as the settings say now (else the engine's default), opened only when a
 * rescored metric asks for it. Its calls run on this thread, not the runner's model threads: a
 * rescore is a few calls a request, where the runner's pool serves whole executions. Their tokens
 * are spent for the comparison, on no simulation's usage.
 */
export function judgeFromSettings(deps: {
  store: Store;
  secrets: SecretBox;
  llmDefault: ModelConnection | null;
}): JudgeSource {
  return async () => {
    const connection = await connectionFor(deps.store, deps.secrets, 'judge', deps.llmDefault);
    return connection ? modelJudge(createModelClient(connection), emptyUsage()) : null;
  };
}
