import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { openStore } from '../../src/store/open.js';
import { tempDir } from '../helpers/server.js';

const at = '2026-06-01T00:00:00.000Z';
const workspace = (id: string) => ({ id, name: id, created_at: at });

describe('store transactions', () => {
  let opened: Store | null = null;
  const open = async (options: { checkTransactions?: boolean } = {}): Promise<Store> =>
    (opened = await openStore({ dataDir: tempDir(), ...options }));
  afterEach(async () => {
    await opened?.close();
    opened = null;
  });

  it('a write made elsewhere while a transaction awaits waits for it, and survives its rollback', async () => {
    const store = await open();
    const elsewhere: { write?: Promise<unknown> } = {};
    await expect(
      store.transaction(async (tx) => {
        await tx.workspaces.insert(workspace('ws_inside'));
        // Another request's write arrives while the transaction is open.
        elsewhere.write = store.workspaces.insert(workspace('ws_elsewhere'));
        await tx.workspaces.count();
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    await elsewhere.write;
    const names = (await store.workspaces.list()).map((w) => w.id);
    expect(names).toEqual(['ws_elsewhere']);
  });

  it('a read made elsewhere never sees what an open transaction has written', async () => {
    const store = await open();
    const elsewhere: { read?: Promise<number> } = {};
    await store.transaction(async (tx) => {
      await tx.workspaces.insert(workspace('ws_a'));
      elsewhere.read = store.workspaces.count();
      await tx.workspaces.insert(workspace('ws_b'));
    });
    // The read waited for the commit: it sees both rows or, had it run first, none; never one.
    expect(await elsewhere.read).toBe(2);
  });

  it('transactions run one after another, in the order they were asked for', async () => {
    const store = await open();
    const order: string[] = [];
    const run = (name: string) =>
      store.transaction(async (tx) => {
        order.push(`${name} begins`);
        await tx.workspaces.insert(workspace(name));
        await tx.workspaces.count();
        order.push(`${name} ends`);
      });
    await Promise.all([run('ws_1'), run('ws_2'), run('ws_3')]);
    expect(order).toEqual([
      'ws_1 begins',
      'ws_1 ends',
      'ws_2 begins',
      'ws_2 ends',
      'ws_3 begins',
      'ws_3 ends',
    ]);
    expect(await store.workspaces.count()).toBe(3);
  });

  it('a failed call answers a rejection, never a throw', async () => {
    const store = await open();
    await store.workspaces.insert(workspace('ws_once'));
    const again = store.workspaces.insert(workspace('ws_once'));
    await expect(again).rejects.toThrow(/UNIQUE/);
  });

  it('checked (as tests run it), the outer store called inside a transaction fails at once', async () => {
    const store = await open({ checkTransactions: true });
    const later: { count?: Promise<number> } = {};
    await expect(
      store.transaction(async (tx) => {
        await tx.workspaces.insert(workspace('ws_inside'));
        // Work the body starts that outlives it may use the outer store once it has ended.
        await new Promise<void>((resolve) => {
          setTimeout(() => {
            later.count = store.workspaces.count();
          }, 0);
          resolve();
        });
        await store.workspaces.count();
      }),
    ).rejects.toThrow(/outer store inside a transaction .* call the tx it passes/);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await later.count).toBe(0);
  });
});
