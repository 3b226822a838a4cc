import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';
import { storedRows } from '../helpers/store-under-test.js';

describe('status codes and the error envelope', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.stop());

  it('answers 413 for a body over 1 MiB', async () => {
    const res = await s.ws('POST', '/personas', { name: 'x', prompt: 'p'.repeat(1_100_000) });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ success: false, error: { code: 'payload_too_large' } });
  });

  it('answers 415 for a body that is not JSON', async () => {
    const res = await s.call('POST', '/v1/tools', 'name=x', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('unsupported_media_type');
    expect((await s.call('POST', '/v1/tools', 'x', { 'content-type': 'text/plain' })).status).toBe(
      415,
    );
  });

  it('answers 400 saying so for malformed JSON', async () => {
    const res = await s.ws('POST', '/personas', '{"name": ', {
      'content-type': 'application/json',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
    expect(res.body.error.message).toMatch(/not valid JSON/);
  });

  it('answers 400 for a body that is not an object', async () => {
    const res = await s.ws('POST', '/personas', '[1,2]', { 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ path: '', message: 'must be a JSON object' }]);
  });

  it("answers 404 for an unknown route in the family's shape", async () => {
    const v1 = await s.call('GET', '/v1/nothing');
    expect(v1.status).toBe(404);
    expect(v1.body.error.code).toBe('not_found');
    const ws = await s.ws('GET', '/nothing');
    expect(ws.body).toMatchObject({ success: false, error: { code: 'not_found' } });
  });

  it('refuses a path parameter smuggled in the body', async () => {
    const per = (await s.ws('POST', '/personas', { name: 'A', prompt: 'p' })).body.data.persona;
    const res = await s.ws('PUT', `/personas/${per.id}`, { persona_id: 'per_other', name: 'B' });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      { path: 'persona_id', message: 'is not a field of this resource' },
    ]);
  });

  it('an unexpected failure is a 500 with a request id, and loses nothing already committed', async () => {
    const kept = (await s.ws('POST', '/personas', { name: 'Kept', prompt: 'p' })).body.data.persona;
    // Break the store from outside, as a damaged or tampered database would.
    await storedRows(s.stored, 'ALTER TABLE schedules RENAME TO schedules_gone');
    const res = await s.ws('GET', '/schedules');
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({
      success: false,
      error: { code: 'internal_error', details: { requestId: expect.any(String) } },
    });
    expect(res.body.error.message).toContain(res.body.error.details.requestId);
    expect((await s.ws('GET', `/personas/${kept.id}`)).body.data.persona.name).toBe('Kept');
  });
});
