import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createEngine } from '../../src/engine.js';
import { memorySampler } from './memory.js';
import { request } from 'undici';

/**
 * One import, in a process of its own so that its peak memory is its own. Prints
 * {calls, seconds, peakMb}. The bare pipeline is the least an import can do: it pages the same
 * fake provider with undici, parses each page with JSON.parse, and inserts each page's calls with
 * one prepared statement in a transaction, into the engine's own calls table.
 */
const [url, mode, measure] = process.argv.slice(2) as [
  string,
  'import' | 'bare',
  'rss' | 'live' | undefined,
];
const dir = mkdtempSync(join(tmpdir(), 'cb-import-'));
const sampler = memorySampler(measure);
// A clock that runs from a fixed date, as a real one would (ids lead with the time, so they grow).
const started0 = Date.now();
const clock = { now: () => Date.parse('2026-06-20T00:00:00Z') + (Date.now() - started0) };

interface VapiMessage {
  role: string;
  message?: string;
  secondsFromStart?: number;
  toolCalls?: { id: string; function: { name: string; arguments: string } }[];
}
interface VapiCall {
  id: string;
  createdAt: string;
  startedAt: string;
  endedAt: string;
  endedReason: string;
  cost: number;
  analysis: { summary: string; successEvaluation: string };
  artifact: { recordingUrl: string };
  messages: VapiMessage[];
}

/** The engine's calls table and its index (migration 003), in a database of its own. */
function bareCallsTable(file: string) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(`CREATE TABLE calls (id TEXT PRIMARY KEY, agent_id TEXT NOT NULL,
    provider_call_id TEXT NOT NULL, started_ms INTEGER, started_at TEXT, ended_at TEXT,
    duration_ms INTEGER, end_reason TEXT, cost REAL, cost_original TEXT, recording_url TEXT,
    summary TEXT, successful INTEGER, transcript TEXT NOT NULL, tool_calls TEXT NOT NULL,
    UNIQUE (agent_id, provider_call_id));
    CREATE INDEX calls_by_agent_time ON calls (agent_id, started_ms DESC);`);
  return db;
}

/** Pages the fake Vapi's calls newest first, as the adapter does; answers how many it stored. */
async function barePipeline(base: string, dir: string): Promise<number> {
  const db = bareCallsTable(join(dir, 'bare.db'));
  const insert = db.prepare(
    `INSERT INTO calls (id, agent_id, provider_call_id, started_ms, started_at, ended_at,
      duration_ms, end_reason, cost, cost_original, recording_url, summary, successful,
      transcript, tool_calls) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
  );
  const insertPage = db.transaction((page: VapiCall[]) => {
    for (const c of page) {
      const startedMs = Date.parse(c.startedAt);
      const turns = c.messages
        .filter((m) => m.role === 'user' || m.role === 'bot')
        .map((m) => ({
          role: m.role === 'bot' ? 'agent' : 'user',
          text: m.message,
          at: m.secondsFromStart,
        }));
      const tools = c.messages.flatMap((m) => m.toolCalls ?? []).map((t) => t.function);
      insert.run(
        `call_${c.id}`,
        'a1',
        c.id,
        startedMs,
        c.startedAt,
        c.endedAt,
        Date.parse(c.endedAt) - startedMs,
        c.endedReason,
        c.cost,
        null,
        c.artifact.recordingUrl,
        c.analysis.summary,
        c.analysis.successEvaluation === 'true' ? 1 : 0,
        JSON.stringify(turns),
        JSON.stringify(tools),
      );
    }
  });
  const since = new Date(Date.parse('2026-05-21T00:00:00Z')).toISOString();
  let before: string | undefined;
  let stored = 0;
  for (;;) {
    const query = new URLSearchParams({ assistantId: 'a1', limit: '100', createdAtGt: since });
    if (before) query.set('createdAtLt', before);
    const res = await request(`${base}/call?${query}`);
    const page = JSON.parse(await res.body.text()) as VapiCall[];
    if (page.length === 0) break;
    insertPage(page);
    stored += page.length;
    if (page.length < 100) break;
    before = page[page.length - 1]!.createdAt;
  }
  db.close();
  return stored;
}

if (mode === 'import') {
  const engine = createEngine({ dataDir: dir, clock });
  await engine.start();
  const started = performance.now();
  const done = new Promise<void>((resolve) =>
    engine.events.subscribe((e) => e.type === 'sync.finished' && resolve()),
  );
  const res = await engine.invoke('agents.connect', {
    provider: 'vapi',
    agent_id: 'a1',
    credentials: { api_key: 'k', base_url: url },
  });
  await done;
  const seconds = (performance.now() - started) / 1000;
  const calls = engine.store.db.prepare('SELECT COUNT(*) FROM calls').pluck().get() as number;
  const peakMb = sampler.stop();
  console.log(JSON.stringify({ calls, seconds, peakMb, status: res.status }));
  await engine.stop();
} else {
  const started = performance.now();
  const calls = await barePipeline(url, dir);
  const seconds = (performance.now() - started) / 1000;
  sampler.stop();
  console.log(JSON.stringify({ calls, seconds }));
}
rmSync(dir, { recursive: true, force: true });
process.exit(0);
