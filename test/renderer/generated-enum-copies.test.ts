import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONDITION_TYPES, OPERATORS, SEVERITIES } from '../../src/domain/alerts.js';
import { TOOL_TYPES } from '../../src/domain/tools.js';
import * as lists from '../../renderer/src/generated/catalogue-enums.js';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe("the screens' enum lists come from the records", () => {
  it('generates the tool types, condition types, operators and severities of the records', () => {
    expect(lists.TOOL_TYPES).toEqual(TOOL_TYPES);
    expect(lists.ALERT_CONDITION_TYPES).toEqual(CONDITION_TYPES);
    expect(lists.ALERT_OPERATORS).toEqual(OPERATORS);
    expect(lists.ALERT_SEVERITIES).toEqual(SEVERITIES);
  });

  it('no renderer file but the generated one spells any generated list again', () => {
    const written = files('renderer/src').filter((f) => !f.includes('/generated/'));
    const quoted = (v: string) => `'${v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}'`;
    // A copy starts with the list's first three values in a row, as a screen would write them.
    const patterns = Object.entries(lists)
      .flatMap(([name, values]) => (Array.isArray(values) ? [[name, values] as const] : []))
      .filter(([, values]) => values.length >= 3)
      .map(([name, values]) => ({
        name,
        pattern: new RegExp(values.slice(0, 3).map(quoted).join(',\\s*')),
      }));
    const copies = written.flatMap((f) => {
      const text = readFileSync(f, 'utf8');
      return patterns.filter((p) => p.pattern.test(text)).map((p) => `${f}: ${p.name}`);
    });
    expect(copies).toEqual([]);
  });
});
