import { XMLBuilder } from 'fast-xml-parser';

/** One simulation as a JUnit test case. */
export interface JunitCase {
  name: string;
  seconds: number;
  /** Each failed metric, `name: reasoning`; empty when it passed. */
  failures: string[];
  /** Why the simulation could not run (agent unreachable, cancelled...): an error, not a failure. */
  error?: string;
}

export interface JunitSuite {
  /** The scenario: the suite's name and each case's classname. */
  scenario: string;
  /** When the execution started (ISO 8601). */
  timestamp: string;
  hostname: string;
  cases: JunitCase[];
}

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  format: true,
  suppressEmptyNode: true,
});

const seconds = (s: number): string => s.toFixed(3);

function testcase(suite: JunitSuite, c: JunitCase): Record<string, unknown> {
  const outcome = c.error
    ? { error: { '@message': c.error, '@type': 'not_run' } }
    : c.failures.length
      ? {
          failure: {
            '@message': `${c.failures.length} metric(s) failed: ${c.failures.map((f) => f.split(':')[0]).join(', ')}`,
            '@type': 'metrics',
            '#text': c.failures.join('\n'),
          },
        }
      : {};
  return { '@classname': suite.scenario, '@name': c.name, '@time': seconds(c.seconds), ...outcome };
}

/**
 * The JUnit XML that CI systems read: counts on both levels, one `<failure>` per failed case with
 * every failed metric in its body, and a simulation that could not run as an `<error>`.
 */
export function junitXml(suite: JunitSuite): string {
  const errors = suite.cases.filter((c) => c.error).length;
  const failures = suite.cases.filter((c) => !c.error && c.failures.length).length;
  const time = seconds(suite.cases.reduce((sum, c) => sum + c.seconds, 0));
  const counts = {
    '@tests': suite.cases.length,
    '@failures': failures,
    '@errors': errors,
    '@skipped': 0,
    '@time': time,
  };
  return builder.build({
    '?xml': { '@version': '1.0', '@encoding': 'UTF-8' },
    testsuites: {
      '@name': suite.scenario,
      ...counts,
      testsuite: {
        '@name': suite.scenario,
        ...counts,
        '@timestamp': suite.timestamp,
        '@hostname': suite.hostname,
        testcase: suite.cases.map((c) => testcase(suite, c)),
      },
    },
  });
}
