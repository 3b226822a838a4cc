import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { junitXml } from '../../src/cli/junit.js';

const parse = (xml: string) =>
  new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseAttributeValue: false,
    isArray: (name) => name === 'testcase',
  }).parse(xml) as {
    testsuites: Record<string, string> & {
      testsuite: Record<string, string> & { testcase: Record<string, unknown>[] };
    };
  };

describe('JUnit XML', () => {
  const xml = junitXml({
    scenario: 'Refund <"late"> & co',
    timestamp: '2026-06-10T12:00:00.000Z',
    hostname: 'qa-box',
    cases: [
      { name: 'Frank x Support #1', seconds: 1.25, failures: [] },
      {
        name: 'Frank x Support #2',
        seconds: 2,
        failures: ['Politeness: rude once', 'Script expectations: never said "refund"'],
      },
      { name: 'Frank x Support #3', seconds: 0, failures: [], error: 'agent unreachable' },
      {
        name: 'Frank x Support #4',
        seconds: 0.5,
        failures: [],
        skipped: "its execution's cost cap (maxCostUsd) had no budget left for it",
      },
    ],
  });
  const doc = parse(xml);

  it('carries every count and attribute on both levels', () => {
    expect(doc.testsuites).toMatchObject({
      name: 'Refund <"late"> & co',
      tests: '4',
      failures: '1',
      errors: '1',
      skipped: '1',
      time: '3.750',
    });
    expect(doc.testsuites.testsuite).toMatchObject({
      name: 'Refund <"late"> & co',
      tests: '4',
      failures: '1',
      errors: '1',
      skipped: '1',
      time: '3.750',
      timestamp: '2026-06-10T12:00:00.000Z',
      hostname: 'qa-box',
    });
  });

  it('gives each case classname, name and time; one failure listing every failed metric', () => {
    const [passed, failed, notRun] = doc.testsuites.testsuite.testcase;
    expect(passed).toEqual({
      classname: 'Refund <"late"> & co',
      name: 'Frank x Support #1',
      time: '1.250',
    });
    expect(failed).toMatchObject({
      name: 'Frank x Support #2',
      failure: {
        message: '2 metric(s) failed: Politeness, Script expectations',
        type: 'metrics',
        '#text': 'Politeness: rude once\nScript expectations: never said "refund"',
      },
    });
    expect(notRun).toMatchObject({ error: { message: 'agent unreachable', type: 'not_run' } });
    expect(notRun).not.toHaveProperty('failure');
  });

  it('reports a simulation the cost cap skipped as a skipped case, neither failed nor errored', () => {
    expect(xml).toContain(
      '<skipped message="its execution&apos;s cost cap (maxCostUsd) had no budget left for it"/>',
    );
    const skipped = doc.testsuites.testsuite.testcase[3]!;
    expect(skipped).toMatchObject({
      name: 'Frank x Support #4',
      time: '0.500',
      skipped: { message: "its execution's cost cap (maxCostUsd) had no budget left for it" },
    });
    expect(skipped).not.toHaveProperty('error');
    expect(skipped).not.toHaveProperty('failure');
  });
});
