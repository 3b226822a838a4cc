import { ESLint, Linter } from 'eslint';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const RULES = ['max-lines-per-function', 'react-hooks/exhaustive-deps'];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

/** The lint configuration's own settings of RULES for a renderer file, without type information. */
async function lintRenderer(): Promise<(code: string, path: string) => Linter.LintMessage[]> {
  const config = await new ESLint().calculateConfigForFile('renderer/src/screens/Agents.tsx');
  const linter = new Linter({ cwd: '/' });
  const only: Linter.Config = {
    files: ['**/*.tsx'],
    languageOptions: { parser: config.languageOptions.parser },
    plugins: { 'react-hooks': config.plugins['react-hooks'] },
    rules: Object.fromEntries(RULES.map((r) => [r, config.rules[r]])),
  };
  return (code, path) =>
    linter
      .verify(code, [only], { filename: resolve(path) })
      .filter((m) => m.fatal || RULES.includes(m.ruleId ?? ''));
}

describe('the renderer lint', () => {
  it('refuses a component over 120 lines', async () => {
    const lint = await lintRenderer();
    const component = (lines: number) =>
      `export function Long() {\n${'  console.log(1);\n'.repeat(lines - 2)}}\n`;
    expect(lint(component(120), 'renderer/src/x.tsx')).toEqual([]);
    expect(lint(component(121), 'renderer/src/x.tsx').map((m) => m.ruleId)).toEqual([
      'max-lines-per-function',
    ]);
  });

  it('checks the deps of useLoad as it does those of useEffect', async () => {
    const lint = await lintRenderer();
    const code = (deps: string) =>
      "import { useLoad } from './ui/common';\n" +
      `export function A({ id }: { id: string }) {\n  useLoad(() => fetch(id), [${deps}]);\n  return null;\n}\n`;
    expect(lint(code('id'), 'renderer/src/a.tsx')).toEqual([]);
    expect(lint(code(''), 'renderer/src/a.tsx').map((m) => m.ruleId)).toEqual([
      'react-hooks/exhaustive-deps',
    ]);
  });

  it('has no function over 120 lines', async () => {
    const lint = await lintRenderer();
    const sources = files('renderer/src').filter((f) => f.endsWith('.tsx'));
    expect(sources.length).toBeGreaterThan(20);
    const long = sources.flatMap((f) =>
      lint(readFileSync(f, 'utf8'), f)
        .filter((m) => m.fatal || m.ruleId === 'max-lines-per-function')
        .map((m) => `${f}:${m.line} ${m.message}`),
    );
    expect(long).toEqual([]);
  });
});
