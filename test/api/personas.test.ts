import type { Json } from '../helpers/json.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, testClock, type TestServer } from '../helpers/server.js';
import { storedRows } from '../helpers/store-under-test.js';

describe('personas', () => {
  let s: TestServer;
  let clock = testClock();
  let ids: Record<string, string> = {};

  // Every test starts from the same four personas on an engine of its own.
  beforeEach(async () => {
    clock = testClock();
    ids = {};
    s = await startServer({ clock });
    const make = async (body: Record<string, unknown>, key?: string) => {
      clock.advance(1_000);
      const res = await s.ws(
        'POST',
        '/personas',
        { prompt: 'Behave.', ...body },
        key ? { authorization: `Bearer ${key}` } : {},
      );
      expect(res.status).toBe(201);
      ids[body.name as string] = res.body.data.persona.id;
      return res.body.data.persona;
    };
    const second = (await s.call('POST', '/v1/keys', { label: 'Bob' })).body.key.key;
    await make({
      name: 'Angry Anna',
      emotion: 'angry',
      difficulty: 'very_hard',
      language: 'en',
      tags: ['billing', 'vip'],
    });
    await make({
      name: 'Calm Carl',
      emotion: 'calm',
      difficulty: 'easy',
      language: 'es',
      tags: ['billing'],
    });
    await make(
      {
        name: 'Confused Clara',
        emotion: 'confused',
        difficulty: 'medium',
        language: 'en-us',
        tags: ['support'],
      },
      second,
    );
    await make({
      name: 'happy hannah',
      emotion: 'happy',
      difficulty: 'hard',
      language: 'fr',
      backgroundNoise: 'cafe',
    });
  });
  afterEach(() => s.stop());

  const names = (res: { body: Json }) =>
    res.body.data.personas.map((p: { name: string }) => p.name);

  it('creates with defaults and answers the full persona', async () => {
    const res = await s.ws('POST', '/personas', { name: 'Plain', prompt: 'Just ask.' });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    const p = res.body.data.persona;
    expect(p).toMatchObject({
      name: 'Plain',
      prompt: 'Just ask.',
      language: 'en',
      emotion: 'neutral',
      difficulty: 'medium',
      backgroundNoise: 'none',
      tags: [],
    });
    expect(p.id).toMatch(/^per_/);
    expect(p.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(p.created_by).toEqual({ id: expect.stringMatching(/^key_/), name: 'first key' });
    await s.ws('DELETE', `/personas/${p.id}`);
  });

  it('requires name and prompt, and names every bad field in one 400', async () => {
    const res = await s.ws('POST', '/personas', {
      emotion: 'furious',
      difficulty: 'insane',
      backgroundNoise: 'jungle',
      tags: 'x',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    const byPath = Object.fromEntries(
      res.body.error.details.map((d: { path: string; message: string }) => [d.path, d.message]),
    );
    expect(byPath.name).toBe('is required');
    expect(byPath.prompt).toBe('is required');
    expect(byPath.emotion).toContain('frustrated');
    expect(byPath.difficulty).toBe('must be one of: easy, medium, hard, very_hard');
    expect(byPath.backgroundNoise).toContain('office');
    expect(byPath.tags).toBe('must be an array');
  });

  it('rejects a field the persona does not have, naming it', async () => {
    const res = await s.ws('POST', '/personas', {
      name: 'X',
      prompt: 'p',
      persona: 'typo',
      Emotion: 'happy',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      { path: 'persona', message: 'is not a field of this resource' },
      { path: 'Emotion', message: 'is not a field of this resource' },
    ]);
  });

  it('rejects a language that is not a language code', async () => {
    const res = await s.ws('POST', '/personas', { name: 'X', prompt: 'p', language: 'english!' });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].path).toBe('language');
  });

  it('takes a voice name as voiceId, and refuses a path (it reaches `espeak-ng -v`)', async () => {
    for (const voiceId of ['../x', '/etc/passwd', 'en us', 'a'.repeat(65), 'en-us\n-w']) {
      const voice = { engine: 'system', voiceId };
      const res = await s.ws('POST', '/personas', { name: 'X', prompt: 'p', voice });
      expect(res.status, voiceId).toBe(400);
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual([
        'voice.voiceId',
      ]);
      const put = await s.ws('PUT', `/personas/${ids['Calm Carl']}`, { voice });
      expect(put.status, voiceId).toBe(400);
    }
    for (const voiceId of ['en-us', 'en-gb+f3', 'mb-en1', 'JBFqnCBsd6RMkjVDRZzb', 'a:b_c']) {
      const voice = { engine: 'system', voiceId, speed: null };
      const res = await s.ws('POST', '/personas', { name: voiceId, prompt: 'p', voice });
      expect(res.status, voiceId).toBe(201);
      expect(res.body.data.persona.voice).toEqual(voice);
    }
  });

  it('lists without prompt, with usage_stats and pagination, newest first by default', async () => {
    const res = await s.ws('GET', '/personas');
    expect(res.status).toBe(200);
    expect(names(res)).toEqual(['happy hannah', 'Confused Clara', 'Calm Carl', 'Angry Anna']);
    const item = res.body.data.personas[0];
    expect(item).not.toHaveProperty('prompt');
    expect(item.usage_stats).toEqual({ total_simulations: 0, avg_score: null, last_used: null });
    expect(res.body.data.pagination).toEqual({ total: 4, page: 1, limit: 50, has_more: false });
  });

  it('filters by partial, case-insensitive name (short and long searches)', async () => {
    expect(names(await s.ws('GET', '/personas?name=ANN'))).toEqual(['happy hannah', 'Angry Anna']);
    expect(names(await s.ws('GET', '/personas?name=c'))).toEqual(['Confused Clara', 'Calm Carl']);
    expect(names(await s.ws('GET', '/personas?name=used%20cl'))).toEqual(['Confused Clara']);
    expect(names(await s.ws('GET', '/personas?name=%25'))).toEqual([]);
    expect(names(await s.ws('GET', '/personas?name=zzz'))).toEqual([]);
  });

  it('filters by language, emotion and difficulty (all four values)', async () => {
    expect(names(await s.ws('GET', '/personas?language=en'))).toEqual(['Angry Anna']);
    expect(names(await s.ws('GET', '/personas?language=en-US'))).toEqual(['Confused Clara']);
    expect(names(await s.ws('GET', '/personas?emotion=calm'))).toEqual(['Calm Carl']);
    for (const [difficulty, name] of [
      ['easy', 'Calm Carl'],
      ['medium', 'Confused Clara'],
      ['hard', 'happy hannah'],
      ['very_hard', 'Angry Anna'],
    ]) {
      expect(names(await s.ws('GET', `/personas?difficulty=${difficulty}`))).toEqual([name]);
    }
    const bad = await s.ws('GET', '/personas?difficulty=extreme');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].message).toBe('must be one of: easy, medium, hard, very_hard');
  });

  it('filters by comma-separated tags (every tag must match) and by creator', async () => {
    expect(names(await s.ws('GET', '/personas?tags=billing'))).toEqual(['Calm Carl', 'Angry Anna']);
    expect(names(await s.ws('GET', '/personas?tags=billing,VIP'))).toEqual(['Angry Anna']);
    expect(names(await s.ws('GET', '/personas?tags=billing,support'))).toEqual([]);
    const clara = (await s.ws('GET', `/personas/${ids['Confused Clara']}`)).body.data.persona;
    expect(clara.created_by.name).toBe('Bob');
    expect(names(await s.ws('GET', `/personas?createdBy=${clara.created_by.id}`))).toEqual([
      'Confused Clara',
    ]);
  });

  it('sorts by name, createdAt, updatedAt and usage in both orders', async () => {
    expect(names(await s.ws('GET', '/personas?sortBy=name&sortOrder=asc'))).toEqual([
      'Angry Anna',
      'Calm Carl',
      'Confused Clara',
      'happy hannah',
    ]);
    expect(names(await s.ws('GET', '/personas?sortBy=name&sortOrder=desc'))).toEqual([
      'happy hannah',
      'Confused Clara',
      'Calm Carl',
      'Angry Anna',
    ]);
    expect(names(await s.ws('GET', '/personas?sortBy=createdAt&sortOrder=asc'))).toEqual([
      'Angry Anna',
      'Calm Carl',
      'Confused Clara',
      'happy hannah',
    ]);
    clock.advance(1_000);
    await s.ws('PUT', `/personas/${ids['Calm Carl']}`, { tags: ['billing'] });
    expect(names(await s.ws('GET', '/personas?sortBy=updatedAt&sortOrder=desc'))[0]).toBe(
      'Calm Carl',
    );
    expect(names(await s.ws('GET', '/personas?sortBy=updatedAt&sortOrder=asc'))[3]).toBe(
      'Calm Carl',
    );

    // Usage comes from stored simulations: give Clara two, Anna one. Raw rows on purpose: chosen
    // scores and end states that only full executions against an agent could otherwise make.
    const scn = (await s.ws('POST', '/scenarios', { name: 'S', prompt: 'p' })).body.data.scenario
      .id;
    await storedRows(
      s.stored,
      "INSERT INTO executions (id, workspace_id, scenario_id, status, created_at) VALUES ('exe_1', ?, ?, 'completed', '2026-06-01T00:00:00Z')",
      [s.workspaceId, scn],
    );
    const sim = (...args: unknown[]) =>
      storedRows(
        s.stored,
        "INSERT INTO simulations (id, workspace_id, execution_id, scenario_id, persona_id, status, score, passed, created_at, ended_at) VALUES (?, ?, 'exe_1', ?, ?, ?, ?, ?, '2026-06-01T00:00:00Z', ?)",
        args,
      );
    await sim(
      'sim_1',
      s.workspaceId,
      scn,
      ids['Confused Clara'],
      'completed',
      80,
      1,
      '2026-06-01T00:05:00Z',
    );
    await sim(
      'sim_2',
      s.workspaceId,
      scn,
      ids['Confused Clara'],
      'completed',
      60,
      0,
      '2026-06-01T00:09:00Z',
    );
    await sim(
      'sim_3',
      s.workspaceId,
      scn,
      ids['Angry Anna'],
      'failed',
      null,
      null,
      '2026-06-01T00:01:00Z',
    );
    await sim('sim_4', s.workspaceId, scn, ids['happy hannah'], 'queued', null, null, null);
    expect(names(await s.ws('GET', '/personas?sortBy=usage&sortOrder=desc')).slice(0, 2)).toEqual([
      'Confused Clara',
      'Angry Anna',
    ]);
    expect(names(await s.ws('GET', '/personas?sortBy=usage&sortOrder=asc')).slice(2)).toEqual([
      'Angry Anna',
      'Confused Clara',
    ]);
    const clara = (await s.ws('GET', `/personas/${ids['Confused Clara']}`)).body.data.persona;
    expect(clara.usage_stats).toEqual({
      total_simulations: 2,
      avg_score: 70,
      last_used: '2026-06-01T00:09:00Z',
    });

    const bad = await s.ws('GET', '/personas?sortBy=popularity&sortOrder=up');
    expect(bad.body.error.details.map((d: { path: string }) => d.path)).toEqual([
      'sortBy',
      'sortOrder',
    ]);
  });

  it('pages with limit and offset; limit defaults to 50 and above 100 is a 400', async () => {
    const page = await s.ws('GET', '/personas?sortBy=name&sortOrder=asc&limit=2&offset=2');
    expect(names(page)).toEqual(['Confused Clara', 'happy hannah']);
    expect(page.body.data.pagination).toEqual({ total: 4, page: 2, limit: 2, has_more: false });
    expect((await s.ws('GET', '/personas?limit=3')).body.data.pagination).toEqual({
      total: 4,
      page: 1,
      limit: 3,
      has_more: true,
    });
    expect((await s.ws('GET', '/personas?limit=100')).status).toBe(200);
    const over = await s.ws('GET', '/personas?limit=101');
    expect(over.status).toBe(400);
    expect(over.body.error.details).toEqual([{ path: 'limit', message: 'must be at most 100' }]);
    expect((await s.ws('GET', '/personas?limit=0')).status).toBe(400);
    expect((await s.ws('GET', '/personas?offset=-1')).status).toBe(400);
    // Past any 32-bit integer: an empty page on either database, never an overflow.
    const far = await s.ws('GET', '/personas?offset=3000000000');
    expect(far.status).toBe(200);
    expect(far.body.data.personas).toEqual([]);
    expect((await s.ws('GET', '/personas?limit=ten')).status).toBe(400);
    expect((await s.ws('GET', '/personas?colour=red')).body.error.details).toEqual([
      { path: 'colour', message: 'is not a field of this resource' },
    ]);
  });

  it('gets one persona in full, and 404s an unknown one naming it', async () => {
    const res = await s.ws('GET', `/personas/${ids['Angry Anna']}`);
    expect(res.body.data.persona).toMatchObject({
      name: 'Angry Anna',
      prompt: 'Behave.',
      usage_stats: { total_simulations: 0, avg_score: null, last_used: null },
    });
    const missing = await s.ws('GET', '/personas/per_missing');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({
      code: 'not_found',
      message: "persona 'per_missing' was not found",
    });
  });

  it('updates any subset and answers the fields the specification lists', async () => {
    clock.advance(5_000);
    const res = await s.ws('PUT', `/personas/${ids['happy hannah']}`, {
      name: 'Happy Hannah',
      difficulty: 'easy',
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data.persona).sort()).toEqual(
      [
        'backgroundNoise',
        'difficulty',
        'emotion',
        'id',
        'language',
        'name',
        'prompt',
        'tags',
        'updated_at',
      ].sort(),
    );
    expect(res.body.data.persona).toMatchObject({
      name: 'Happy Hannah',
      difficulty: 'easy',
      emotion: 'happy',
      backgroundNoise: 'cafe',
    });
    expect(res.body.data.persona.updated_at).toBe(new Date(clock.now()).toISOString());
    expect(names(await s.ws('GET', '/personas?name=happy'))).toEqual(['Happy Hannah']);
    expect((await s.ws('PUT', `/personas/${ids['happy hannah']}`, {})).status).toBe(400);
    expect((await s.ws('PUT', `/personas/${ids['happy hannah']}`, { emotion: 'meh' })).status).toBe(
      400,
    );
    expect((await s.ws('PUT', '/personas/per_missing', { name: 'x' })).status).toBe(404);
  });

  it('refuses to delete a persona a scenario uses (409), and deletes it once free', async () => {
    const scn = (
      await s.ws('POST', '/scenarios', {
        name: 'Uses Carl',
        prompt: 'p',
        personas: [ids['Calm Carl']],
      })
    ).body.data.scenario;
    const other = (
      await s.ws('POST', '/scenarios', {
        name: 'Late order',
        prompt: 'p',
        personas: [ids['Calm Carl']],
      })
    ).body.data.scenario;
    const blocked = await s.ws('DELETE', `/personas/${ids['Calm Carl']}`);
    expect(blocked.status).toBe(409);
    expect(blocked.body.error).toMatchObject({
      code: 'conflict',
      details: {
        scenarios: expect.arrayContaining([
          { id: scn.id, name: 'Uses Carl' },
          { id: other.id, name: 'Late order' },
        ]),
      },
    });
    // A person reads names, not ids, counted in words.
    expect(blocked.body.error.message).toMatch(
      /^Persona 'Calm Carl' is used by 2 scenarios: (Uses Carl, Late order|Late order, Uses Carl); remove it from them first$/,
    );
    // A dry run meets the same refusal, and deletes nothing when there is none.
    const dry = await s.ws('DELETE', `/personas/${ids['Calm Carl']}?dryRun=true`);
    expect(dry.status).toBe(409);
    expect(dry.body.error.message).toBe(blocked.body.error.message);
    const free = ids['Angry Anna']!;
    const checked = await s.ws('DELETE', `/personas/${free}?dryRun=true`);
    expect(checked.status).toBe(200);
    expect(checked.body.data).toEqual({ deleted: false, id: free, dryRun: true });
    expect((await s.ws('GET', `/personas/${free}`)).status).toBe(200);
    await s.ws('DELETE', `/scenarios/${other.id}`);
    expect((await s.ws('DELETE', `/personas/${ids['Calm Carl']}`)).body.error.message).toBe(
      "Persona 'Calm Carl' is used by 1 scenario: Uses Carl; remove it from them first",
    );
    await s.ws('PUT', `/scenarios/${scn.id}`, { personas: [] });
    const done = await s.ws('DELETE', `/personas/${ids['Calm Carl']}`);
    expect(done.status).toBe(200);
    expect(done.body.data).toEqual({ deleted: true, id: ids['Calm Carl'] });
    expect((await s.ws('DELETE', `/personas/${ids['Calm Carl']}`)).status).toBe(404);
  });
});
