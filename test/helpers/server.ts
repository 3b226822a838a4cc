import type { Json } from './json.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { createEngine, type Engine, type EngineOptions } from '../../src/engine.js';
import type { Clock } from '../../src/clock.js';
import { dropStore, storeOptions, type StoredIn } from './store-under-test.js';

export interface Api {
  method: string;
  status: number;
  body: Json;
  headers: Headers;
}

export interface TestServer {
  url: string;
  port: number;
  key: string;
  workspaceId: string;
  engine: Engine;
  dataDir: string;
  /** Where the store is, for storedRows() (test/helpers/store-under-test.ts). */
  stored: StoredIn;
  /** A request with the API key unless headers say otherwise; JSON bodies are sent as JSON. */
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Api>;
  /** Shorthand for workspace paths: `ws('GET', '/personas')`. */
  ws(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Api>;
  stop(): Promise<void>;
}

const madeDirs = new Set<string>();

/** A fresh temporary dir, removed when the test file ends (test/setup/temp-dirs.ts) if not before. */
export const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'callbench-test-'));
  madeDirs.add(dir);
  return dir;
};

export function removeTempDirs(): void {
  for (const dir of madeDirs) rmSync(dir, { recursive: true, force: true });
  madeDirs.clear();
}

/** A movable clock for tests that need time to pass. */
export function testClock(
  start = Date.parse('2026-06-01T12:00:00Z'),
): Clock & { advance(ms: number): void; set(iso: string): void } {
  let now = start;
  return { now: () => now, advance: (ms) => (now += ms), set: (iso) => (now = Date.parse(iso)) };
}

/** The real engine and HTTP server on port 0 with a fresh data dir. */
export async function startServer(
  options: Partial<EngineOptions> & { ui?: { rendererDir?: string; pageKey?: string } } = {},
): Promise<TestServer> {
  const dataDir = options.dataDir ?? tempDir();
  const { ui, ...engineOptions } = options;
  // Every answer in every test is checked against its published response schema.
  const where = await storeOptions(dataDir);
  const engine = createEngine({
    dataDir,
    ...where,
    checkOutputs: true,
    checkTransactions: true,
    ...engineOptions,
  });
  const { firstApiKey } = await engine.start();
  const url = await engine.listen(0, '127.0.0.1', ui);
  // On TLS (a test certificate), this helper's own requests trust that certificate alone.
  const dispatcher = engineOptions.tls
    ? new Agent({ connect: { ca: engineOptions.tls.cert } })
    : undefined;
  const port = Number(new URL(url).port);
  // A data dir that already has keys (a restart) gets a fresh key for the test.
  const key =
    firstApiKey ??
    ((await engine.invoke('keys.create', { label: 'test' })).data as { key: { key: string } }).key
      .key;

  async function call(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Api> {
    const h: Record<string, string> = { authorization: `Bearer ${key}`, ...headers };
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      h['content-type'] ??= 'application/json';
    }
    for (const [k, v] of Object.entries(h)) if (v === '') delete h[k];
    // Node's fetch takes undici's dispatcher; the DOM's RequestInit does not name it.
    const init: RequestInit & { dispatcher?: Agent } = {
      method,
      headers: h,
      body: payload,
      dispatcher,
    };
    const res = await fetch(url + path, init);
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { method, status: res.status, body: parsed, headers: res.headers };
  }

  const { data } = (await call('GET', '/api/v1/workspaces')).body;
  const workspaceId = data.workspaces[0].id as string;

  return {
    url,
    port,
    key,
    workspaceId,
    engine,
    dataDir,
    stored: where.databaseUrl
      ? { dialect: 'postgres', databaseUrl: where.databaseUrl }
      : { dialect: 'sqlite', sqlite: () => engine.store.db },
    call,
    ws: (method, path, body, headers) =>
      call(method, `/api/v1/workspaces/${workspaceId}${path}`, body, headers),
    async stop() {
      await engine.stop();
      if (options.dataDir) return;
      rmSync(dataDir, { recursive: true, force: true });
      await dropStore(dataDir);
    },
  };
}
