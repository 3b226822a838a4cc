import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelThreads } from '../../src/llm/model-threads.js';
import { emptyUsage, ModelError } from '../../src/llm/types.js';
import { startFakeModels } from '../helpers/fake-models.js';

const FAST = { attempts: 3, baseDelayMs: 5, timeoutMs: 5_000 };

describe('model threads', () => {
  let models: Awaited<ReturnType<typeof startFakeModels>>;
  beforeAll(async () => {
    models = await startFakeModels();
  });
  afterAll(() => models.stop());

  it("make a connection's calls on a thread: answers, every attempt in usage, failures with their status", async () => {
    const threads = createModelThreads(2);
    try {
      expect(await threads.heapUsed()).toBe(0); // none started before a call needs one
      const complete = threads.client(
        { kind: 'openai', baseUrl: models.url, apiKey: 'sk-thread', model: 'm' },
        FAST,
      );
      models.fail(429);
      models.openai('From the thread.', [{ id: 'c1', name: 'lookup', arguments: '{"id":7}' }], {
        prompt_tokens: 3,
        completion_tokens: 2,
      });
      const usage = emptyUsage();
      expect(await complete({ messages: [{ role: 'user', content: 'hi' }] }, usage)).toEqual({
        text: 'From the thread.',
        toolCalls: [{ id: 'c1', name: 'lookup', arguments: { id: 7 } }],
        model: 'm',
      });
      expect(usage).toEqual({
        llm_calls: 2,
        input_tokens: 3,
        cached_input_tokens: 0,
        output_tokens: 2,
      });
      expect(models.requests.at(-1)!.headers.authorization).toBe('Bearer sk-thread');

      models.fail(400);
      const refused = emptyUsage();
      const err = await complete({ messages: [{ role: 'user', content: 'hi' }] }, refused).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ModelError);
      expect(err).toMatchObject({
        status: 400,
        message: expect.stringMatching(/The openai model m failed \(400\)/),
      });
      expect(refused.llm_calls).toBe(1);
      expect(await threads.heapUsed()).toBeGreaterThan(1_000_000);
      // A thread's heap is bounded, not the process's gigabytes: V8 then keeps it close to what is
      // live instead of letting judge calls grow it (the production bench's memory figure).
      for (const limit of await threads.heapLimits()) {
        expect(limit).toBeGreaterThan(256 * 2 ** 20);
        expect(limit).toBeLessThan(512 * 2 ** 20);
      }
    } finally {
      await threads.close();
    }
  });

  it('calls at once run at once; closing fails those in flight with the reason, and a later call starts a thread again', async () => {
    const threads = createModelThreads(2);
    const complete = threads.client(
      { kind: 'openai', baseUrl: models.url, apiKey: 'k', model: 'm' },
      FAST,
    );
    // Both threads started first: a second one starts when the first is busy.
    models.openai('warm');
    models.slow(100);
    models.openai('warm');
    await Promise.all(
      [0, 1].map(() => complete({ messages: [{ role: 'user', content: 'hi' }] }, emptyUsage())),
    );
    for (let i = 0; i < 3; i++) {
      models.openai(`answer ${i}`);
      models.slow(300);
    }
    const answers = await Promise.all(
      [0, 1, 2].map(() => complete({ messages: [{ role: 'user', content: 'hi' }] }, emptyUsage())),
    );
    expect(answers.map((a) => a.text).sort()).toEqual(['answer 0', 'answer 1', 'answer 2']);
    // At once on the fake's own clock: a call reached it while another was still waiting for its
    // answer (one after the other, none would), however busy the machine.
    const [first, second] = models.spans.slice(-3).sort((a, b) => a.startMs - b.startMs);
    expect(second!.startMs).toBeLessThan(first!.endMs);

    models.openai('too late');
    models.slow(2_000);
    const inFlight = complete({ messages: [{ role: 'user', content: 'hi' }] }, emptyUsage()).catch(
      (e: Error) => e,
    );
    await new Promise((r) => setTimeout(r, 200));
    await threads.close();
    expect(await inFlight).toMatchObject({ message: 'the engine stopped' });

    models.openai('back again');
    expect(
      (await complete({ messages: [{ role: 'user', content: 'hi' }] }, emptyUsage())).text,
    ).toBe('back again');
    await threads.close();
  });

  it('starts whatever flags its process runs with, and an idle thread does not keep the process alive', async () => {
    models.openai('bye');
    const script = `
      import { createModelThreads } from './src/llm/model-threads.ts';
      const threads = createModelThreads(2);
      const answer = await threads.client({ kind: 'openai', baseUrl: ${JSON.stringify(models.url)}, apiKey: 'k', model: 'm' })({ messages: [{ role: 'user', content: 'hi' }] }, { llm_calls: 0, input_tokens: 0, output_tokens: 0 });
      console.log(answer.text);`;
    // The fake model server lives in this process: the child runs beside it, not blocking it.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8', timeout: 20_000 },
    );
    expect(stdout.trim()).toBe('bye');
  });
});
