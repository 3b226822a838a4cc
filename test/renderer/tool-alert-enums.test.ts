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

describe("the tool and alert screens' enum lists come from the records", () => {
  it('generates the tool types, condition types, operators and severities of the records', () => {
    expect(lists.TOOL_TYPES).toEqual(TOOL_TYPES);
    expect(lists.ALERT_CONDITION_TYPES).toEqual(CONDITION_TYPES);
    expect(lists.ALERT_OPERATORS).toEqual(OPERATORS);
    expect(lists.ALERT_SEVERITIES).toEqual(SEVERITIES);
  });

  it('no renderer file but the generated one spells these lists again', () => {
    const written = files('renderer/src').filter((f) => !f.includes('/generated/'));
    const copies = written.filter((f) =>
      /'less_than_or_equal'|'low',\s*'medium',\s*'high'|'database',\s*'action'|'scenario_failure',\s*'agent_config_changed'/.test(
        readFileSync(f, 'utf8'),
      ),
    );
    expect(copies).toEqual([]);
  });
});
