import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createEngine } from '../../src/engine.js';
import { memorySampler } from './memory.js';
import { createAdapters } from '../../src/providers/registry.js';
import type { NormalizedCall } from '../../src/providers/types.js';

/**
 * One import, in a process of its own so that its peak memory is its own. Prints
 * {calls, seconds, peakMb}. The bare loop inserts the same normalised call records straight into a
 * calls table in one transaction: serialising each record into its row, and nothing else.
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
  // Fetch and normalise every call first (not timed), then time only turning them into rows.
  const adapter = createAdapters().vapi;
  const records: NormalizedCall[] = [];
  for await (const page of adapter.listCalls(
    { apiKey: 'k', baseUrl: url },
    'a1',
    Date.parse('2026-05-21T00:00:00Z'),
  ))
    records.push(...page);
  const db = new Database(join(dir, 'bare.db'));
  db.pragma('journal_mode = WAL');
  db.exec(`CREATE TABLE calls (id INTEGER PRIMARY KEY, provider_call_id TEXT UNIQUE, started_ms INTEGER, started_at TEXT, ended_at TEXT, duration_ms INTEGER,
    end_reason TEXT, cost REAL, cost_original TEXT, recording_url TEXT, summary TEXT, successful INTEGER, transcript TEXT, tool_calls TEXT)`);
  const insert = db.prepare(
    'INSERT INTO calls (provider_call_id, started_ms, started_at, ended_at, duration_ms, end_reason, cost, cost_original, recording_url, summary, successful, transcript, tool_calls) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)',
  );
  const started = performance.now();
  db.transaction(() => {
    for (const c of records) {
      insert.run(
        c.providerCallId,
        Date.parse(c.startedAt!),
        c.startedAt,
        c.endedAt,
        c.durationMs,
        c.endReason,
        c.cost,
        JSON.stringify(c.costOriginal),
        c.recordingUrl,
        c.summary,
        1,
        JSON.stringify(c.transcript),
        JSON.stringify(c.toolCalls),
      );
    }
  })();
  const seconds = (performance.now() - started) / 1000;
  sampler.stop();
  console.log(JSON.stringify({ calls: records.length, seconds }));
  db.close();
}
rmSync(dir, { recursive: true, force: true });
process.exit(0);
