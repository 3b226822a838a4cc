import { systemClock } from '../clock.js';
import { osUserName } from '../config.js';
import { bootstrap } from '../engine-bootstrap.js';
import { accessOperations } from '../operations/access.js';
import { createInvoker } from '../operations/invoke.js';
import type { EngineServices } from '../operations/types.js';
import { createDataDir } from '../store/file-modes.js';
import { openStore } from '../store/open.js';

/** Runs an access operation (keys.*, workspaces.*) by name, as the local OS user. */
export type AccessInvoke = (name: string, input: unknown) => Promise<{ data: unknown }>;

/**
 * The services an access operation uses: the store and the clock (operations/access.ts), no
 * others; the invoker's type asks for all of an engine's.
 */
const storeOnlyServices = (store: EngineServices['store']): EngineServices =>
  ({ store, clock: systemClock }) as Partial<EngineServices> as EngineServices;

/**
 * The short commands (`keys`, `workspaces`) beside a running app: the store and the access
 * operations only, through the same invoker as HTTP and IPC. A whole engine would load the HTTP
 * server, every provider SDK and the tool runtime (most of such a command's time) to read one
 * table. Like the engine's non-exclusive start: no lock, no background work, the first workspace
 * made on an empty store, never a first key.
 */
export async function withAccessStore<T>(
  where: { dataDir: string; databaseUrl?: string },
  fn: (invoke: AccessInvoke) => Promise<T>,
): Promise<T> {
  createDataDir(where.dataDir);
  const store = await openStore(where);
  try {
    await bootstrap(store, false, systemClock);
    const invoker = createInvoker(accessOperations, storeOnlyServices(store));
    const user = osUserName();
    const caller = { kind: 'local' as const, user: { id: `usr_${user}`, name: user } };
    return await fn((name, input) => invoker(name, input, caller));
  } finally {
    await store.close();
  }
}
