import type { SecretBox } from '../kernel/secret-box.js';
import { connectionFor } from '../llm/settings.js';
import { emptyUsage, type ModelClient, type ModelConnection } from '../llm/types.js';
import { modelJudge } from '../simulations/judge.js';
import type { Store } from '../store/index.js';
import type { JudgeSource } from './rescore.js';

/**
 * The judge role's model as the settings say now (else the engine's default), opened only when a
 * rescored metric asks for it. Its calls go to the runner's model threads, where the model SDKs
 * load (never on the engine's thread). Their tokens are spent for the comparison, on no
 * simulation's usage.
 */
export function judgeFromSettings(deps: {
  store: Store;
  secrets: SecretBox;
  llmDefault: ModelConnection | null;
  runner: { modelClient: (connection: ModelConnection) => ModelClient };
}): JudgeSource {
  return async () => {
    const connection = await connectionFor(deps.store, deps.secrets, 'judge', deps.llmDefault);
    return connection ? modelJudge(deps.runner.modelClient(connection), emptyUsage()) : null;
  };
}
