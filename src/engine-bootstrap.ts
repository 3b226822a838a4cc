import { isoNow, type Clock } from './clock.js';
import { newId, newSecret } from './ids.js';
import type { Store } from './store/index.js';
import { defaultScorecard } from './simulations/default-scorecard.js';

/** What a first start of an empty store made: its first API key, shown once. */
export interface StartResult {
  /** Generated on the first start of an empty store; shown once. */
  firstApiKey?: string;
}

/**
 * A new store's first workspace (with the default scorecard) and, when exclusive, its first key.
 * Its own module: the CLI's short commands run it on the store alone, without the whole engine.
 */
export function bootstrap(store: Store, exclusive: boolean, clock: Clock): Promise<StartResult> {
  return store.transaction(
    async (s) => {
      if ((await s.workspaces.count()) === 0) {
        const ws = await s.workspaces.insert({
          id: newId('ws', clock.now()),
          name: 'Default workspace',
          created_at: isoNow(clock),
        });
        await s.scorecards.insert(ws.id, defaultScorecard(clock.now(), isoNow(clock)));
      }
      if (!exclusive || (await s.credentials.countKeys()) > 0) return {};
      const secret = newSecret('cbk');
      await s.credentials.insertKey({
        id: newId('key', clock.now()),
        label: 'first key',
        secret,
        created_at: isoNow(clock),
      });
      return { firstApiKey: secret };
    },
    // Servers sharing a database may start together: one bootstraps, the others see its work.
    { lock: 'callbench-bootstrap' },
  );
}
