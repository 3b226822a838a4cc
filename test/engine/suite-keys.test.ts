import { describe, expect, it } from 'vitest';
import { deriveKeys, slugKey, SUITE_KEY, type KeyedRow } from '../../src/domain/suite-keys.js';

const row = (id: string, name: string, at: number, key: string | null = null): KeyedRow => ({
  id,
  name,
  key,
  created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, at)).toISOString(),
});

describe('slugKey', () => {
  it('lower-cases, turns every other run of characters into one dash, trims dashes', () => {
    expect(slugKey('Angry Customer', 'persona')).toBe('angry-customer');
    expect(slugKey('  Order -- Lookup (v2)!  ', 'tool')).toBe('order-lookup-v2');
    expect(slugKey('ord_lookup', 'tool')).toBe('ord-lookup');
    expect(slugKey('Late order #4172', 'scenario')).toBe('late-order-4172');
    expect(slugKey('already-a-key', 'persona')).toBe('already-a-key');
  });

  it('keeps only a-z and 0-9 of unicode names, and falls back when nothing is left', () => {
    expect(slugKey('Café Zoë', 'persona')).toBe('caf-zo');
    expect(slugKey('Müller 😀 Support', 'persona')).toBe('m-ller-support');
    expect(slugKey('日本語', 'persona')).toBe('persona');
    expect(slugKey('???', 'scorecard')).toBe('scorecard');
    expect(slugKey('', 'alert')).toBe('alert');
    expect(slugKey('-', 'alert')).toBe('alert');
  });

  it('always gives a valid key', () => {
    for (const name of ['A', '9 lives', '---x---', 'ÀÉÎ', '\u0000\n\t', 'x'.repeat(300)])
      expect(slugKey(name, 'persona')).toMatch(SUITE_KEY);
  });
});

describe('deriveKeys', () => {
  it('numbers collisions -2, -3 in creation order, whatever order the rows come in', () => {
    const rows = [
      row('c', 'Angry Anna', 3),
      row('a', 'Angry Anna', 1),
      row('b', 'angry anna!', 2),
      row('d', 'Calm Carl', 4),
    ];
    expect(Object.fromEntries(deriveKeys(rows, 'persona'))).toEqual({
      a: 'angry-anna',
      b: 'angry-anna-2',
      c: 'angry-anna-3',
      d: 'calm-carl',
    });
  });

  it('keeps stored keys, and derived ones step around them', () => {
    const rows = [
      row('a', 'Angry Anna', 1),
      row('b', 'Renamed since', 2, 'angry-anna'),
      row('c', 'Angry Anna', 3),
      row('d', 'Zed', 4, 'angry-anna-3'),
    ];
    expect(Object.fromEntries(deriveKeys(rows, 'persona'))).toEqual({
      a: 'angry-anna-2',
      b: 'angry-anna',
      c: 'angry-anna-4',
      d: 'angry-anna-3',
    });
  });

  it('a name whose slug looks numbered does not take an earlier one’s number', () => {
    const rows = [row('a', 'Foo 2', 1), row('b', 'Foo', 2), row('c', 'Foo', 3)];
    expect(Object.fromEntries(deriveKeys(rows, 'scenario'))).toEqual({
      a: 'foo-2',
      b: 'foo',
      c: 'foo-3',
    });
  });

  it('names with no key characters share the fallback, numbered', () => {
    const rows = [row('a', '日本', 1), row('b', '???', 2), row('c', 'Persona', 3)];
    expect(Object.fromEntries(deriveKeys(rows, 'persona'))).toEqual({
      a: 'persona',
      b: 'persona-2',
      c: 'persona-3',
    });
  });

  it('rows created in the same instant keep the order given (the store passes rowid order)', () => {
    const rows = [row('z', 'Same', 1), row('a', 'Same', 1)];
    expect(Object.fromEntries(deriveKeys(rows, 'persona'))).toEqual({ z: 'same', a: 'same-2' });
  });

  it('answers nothing for no rows', () => {
    expect(deriveKeys([], 'persona').size).toBe(0);
  });
});
