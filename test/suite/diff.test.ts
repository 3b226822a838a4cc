import { describe, expect, it } from 'vitest';
import { changedPaths } from '../../src/operations/suite/diff.js';

/*
 * What a plan calls a change (#38): a top-level field the file leaves out keeps its stored value,
 * but inside an object the file gives, the file is the whole truth: a key the stored side has and
 * the file lacks is a change named by its path.
 */

describe('suite plan: changed fields', () => {
  it('a top-level field the file leaves out is no change', () => {
    expect(changedPaths({ name: 'A', tags: ['x'], cooldown: '5m' }, { name: 'A' })).toEqual([]);
  });

  it('names a key the stored object has and the file lacks, at any depth', () => {
    const stored = {
      config: { url: 'u', headers: { 'X-Team': 'qa', 'X-Trace': '1' } },
      notifications: { os: false, slack: { channel: '#qa', webhookUrl: 'w' } },
      responseMapping: { status: 's', eta: 'e' },
    };
    const file = {
      config: { url: 'u', headers: { 'X-Team': 'qa' } },
      notifications: { os: false },
      responseMapping: { status: 's' },
    };
    expect(changedPaths(stored, file)).toEqual([
      'config.headers.X-Trace',
      'notifications.slack',
      'responseMapping.eta',
    ]);
  });

  it('names a key removed from an item of a list (a script line act, a case variable)', () => {
    const stored = {
      script: [{ say: 'Hi' }, { say: 'Wait', interrupt: { afterMs: 800 }, silence: { ms: 300 } }],
      cases: [{ variables: { order_id: '1', note: 'x' } }],
    };
    const file = {
      script: [{ say: 'Hi' }, { say: 'Wait', interrupt: { afterMs: 800 } }],
      cases: [{ variables: { order_id: '1' } }],
    };
    expect(changedPaths(stored, file)).toEqual(['script[1].silence', 'cases[0].variables.note']);
  });

  it('an absent value and null are the same, at any depth', () => {
    const stored = { voice: { engine: 'system', voiceId: null }, metrics: [{ description: null }] };
    const file = { voice: { engine: 'system' }, metrics: [{}], audio: null };
    expect(changedPaths(stored, file)).toEqual([]);
  });

  it('a key the file adds, a changed value and a list of another length are changes', () => {
    const stored = { config: { url: 'a' }, tags: ['x'] };
    const file = { config: { url: 'b', method: 'GET' }, tags: ['x', 'y'] };
    expect(changedPaths(stored, file)).toEqual(['config.url', 'config.method', 'tags']);
  });
});
