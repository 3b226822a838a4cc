import { describe, expect, it } from 'vitest';
import {
  leavesOf,
  rowsOf,
  rowsProblem,
  textOf,
  valueAt,
  withField,
  withPath,
} from '../../renderer/src/ui/rowValues.js';

describe("the editors' forms read and write JSON values", () => {
  it('shows a list of objects as rows, and says why anything else cannot be', () => {
    expect(rowsOf(undefined)).toEqual([]);
    expect(rowsOf(null)).toEqual([]);
    expect(rowsOf([{ say: 'hi' }])).toEqual([{ say: 'hi' }]);
    expect(rowsOf({ say: 'hi' })).toBeNull();
    expect(rowsOf([1, 2])).toBeNull();
    expect(rowsProblem('text')).toMatch(/list of objects/);
    expect(rowsProblem([])).toBeNull();
  });

  it('leaves a blank field out instead of sending it empty', () => {
    expect(withField({ say: 'hi', dtmf: '1' }, 'dtmf', undefined)).toEqual({ say: 'hi' });
    expect(withField({ say: 'hi' }, 'hangup', true)).toEqual({ say: 'hi', hangup: true });
  });

  it('shows any value as text, objects as JSON (never "[object Object]")', () => {
    expect(textOf(undefined)).toBe('');
    expect(textOf(0)).toBe('0');
    expect(textOf(false)).toBe('false');
    expect(textOf({ a: 1 })).toBe('{"a":1}');
  });

  it('walks a configuration tree to its string, number and boolean leaves', () => {
    const tree = { prompt: 'Hi', model: { temperature: 0.3, tools: ['a'] }, on: true };
    expect(leavesOf(tree)).toEqual([
      { path: ['prompt'], synced: 'Hi' },
      { path: ['model', 'temperature'], synced: 0.3 },
      { path: ['on'], synced: true },
    ]);
    expect(valueAt(tree, ['model', 'temperature'])).toBe(0.3);
    expect(valueAt(tree, ['model', 'none', 'deeper'])).toBeUndefined();
  });

  it('sets an override at a path, and removing the last one empties its parents', () => {
    const one = withPath({}, ['model', 'temperature'], 0.9);
    expect(one).toEqual({ model: { temperature: 0.9 } });
    const two = withPath(one, ['model', 'name'], 'gpt');
    expect(two).toEqual({ model: { temperature: 0.9, name: 'gpt' } });
    expect(withPath(two, ['model', 'name'], undefined)).toEqual(one);
    expect(withPath(one, ['model', 'temperature'], undefined)).toEqual({});
  });
});
