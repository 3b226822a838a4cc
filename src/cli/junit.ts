import { XMLBuilder } from 'fast-xml-parser';

/** One simulation as a JUnit test case. */
export interface JunitCase {
  name: string;
  seconds: number;
  /** Each failed metric, `name: reasoning`; empty when it passed. */
  failures: string[];
  /** Why the simulation could not run (agent unreachable, cancelled...): an error, not a failure. */
  error?: string;
  /** Why it was skipped (its execution's cost cap had no budget left): neither failed nor errored. */
  skipped?: string;
  /** The failure's message and type when not failed metrics (a comparison row that regressed). */
  failure?: { message: string; type: string };
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
  const outcome = c.skipped
    ? { skipped: { '@message': c.skipped } }
    : c.error
      ? { error: { '@message': c.error, '@type': 'not_run' } }
      : c.failures.length
        ? {
            failure: {
              '@message':
                c.failure?.message ??
                `${c.failures.length} metric(s) failed: ${c.failures.map((f) => f.split(':')[0]).join(', ')}`,
              '@type': c.failure?.type ?? 'metrics',
              '#text': c.failures.join('\n'),
            },
          }
        : {};
  return { '@classname': suite.scenario, '@name': c.name, '@time': seconds(c.seconds), ...outcome };
}

/** A suite's counts, written on its element (and summed on `<testsuites>`). */
function countsOf(cases: JunitCase[]) {
  return {
    '@tests': cases.length,
    '@failures': cases.filter((c) => !c.skipped && !c.error && c.failures.length).length,
    '@errors': cases.filter((c) => !c.skipped && c.error).length,
    '@skipped': cases.filter((c) => c.skipped).length,
    '@time': seconds(cases.reduce((sum, c) => sum + c.seconds, 0)),
  };
}

/**
 * The JUnit XML that CI systems read: counts on both levels, one `<failure>` per failed case with
 * every failed metric in its body, a simulation that could not run as an `<error>`, and one its
 * cost cap skipped as `<skipped message="…"/>`. `more`
 * suites follow the first (`run --baseline` adds its comparison's rows as a suite of their own).
 */
export function junitXml(suite: JunitSuite, more: JunitSuite[] = []): string {
  return junitReport(suite.scenario, [suite, ...more]);
}

const suiteElement = (s: JunitSuite) => ({
  '@name': s.scenario,
  ...countsOf(s.cases),
  '@timestamp': s.timestamp,
  '@hostname': s.hostname,
  testcase: s.cases.map((c) => testcase(s, c)),
});

/**
 * `<testsuites name="…">` holding each suite in order (`suite run` writes one per scenario), the
 * counts summed over them all.
 */
export function junitReport(name: string, suites: JunitSuite[]): string {
  return builder.build({
    '?xml': { '@version': '1.0', '@encoding': 'UTF-8' },
    testsuites: {
      '@name': name,
      ...countsOf(suites.flatMap((s) => s.cases)),
      testsuite: suites.length === 1 ? suiteElement(suites[0]!) : suites.map(suiteElement),
    },
  });
}
