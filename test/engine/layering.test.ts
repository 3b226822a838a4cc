import { ESLint, Linter } from 'eslint';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/server.js';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe('layering', () => {
  it('the engine in src/ never imports electron, so it runs headless and under plain Node', () => {
    const sources = files('src').filter((f) => /\.(ts|mts|mjs|js)$/.test(f));
    expect(sources.length).toBeGreaterThan(20);
    const offenders = sources.filter((f) =>
      /(from\s+['"]electron['"]|require\(\s*['"]electron['"]\s*\)|import\(\s*['"]electron['"]\s*\))/.test(
        readFileSync(f, 'utf8'),
      ),
    );
    expect(offenders).toEqual([]);
  });

  const importsOf = (file: string): string[] =>
    [
      ...readFileSync(file, 'utf8').matchAll(
        /(?:from\s+|import\(\s*|require\(\s*)['"]([^'"]+)['"]/g,
      ),
    ].map((m) => m[1]!);

  it("the renderer reaches the engine only through its client: from src/ it takes the shared API client and the catalogue's types alone", () => {
    const sources = files('renderer/src').filter((f) => /\.tsx?$/.test(f));
    expect(sources.length).toBeGreaterThan(10);
    const typeOnlyCatalogue = (f: string, i: string): boolean =>
      relative(process.cwd(), resolve(dirname(f), i)) === 'src/operations/catalogue' &&
      new RegExp(
        `import type [^;]+ from ['"]${i.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}['"]`,
      ).test(readFileSync(f, 'utf8'));
    const offenders = sources.flatMap((f) =>
      importsOf(f)
        .filter((i) => {
          if (!i.startsWith('.')) return i === 'electron' || i.startsWith('node:');
          const target = relative(process.cwd(), resolve(dirname(f), i));
          // The one API client (requests and the event stream), which imports only types itself.
          if (target === 'src/client/api-client' || target === 'src/client/event-stream')
            return false;
          if (target.startsWith('src/')) return !typeOnlyCatalogue(f, i);
          return !target.startsWith('renderer/') && !target.startsWith('preload/');
        })
        .map((i) => `${f}: ${i}`),
    );
    expect(offenders).toEqual([]);
    // What the renderer takes of src/client/ takes nothing but types from the engine.
    for (const shared of ['src/client/api-client.ts', 'src/client/event-stream.ts'])
      for (const line of readFileSync(shared, 'utf8')
        .split('\n')
        .filter((l) => /^import /.test(l)))
        expect(line, shared).toMatch(/^import type /);
    // The types do reach it: the client is typed from the catalogue.
    expect(readFileSync('renderer/src/client.ts', 'utf8')).toMatch(
      /import type \{[^}]*\bOperationMap\b[^}]*\} from '..\/..\/src\/operations\/catalogue'/,
    );
  });

  it('the model SDKs load on the model and scoring threads only: src/llm/client.ts imports them, and only the threads import it', () => {
    const sources = files('src').filter((f) => /\.(ts|mjs)$/.test(f));
    const sdkImporters = sources.filter((f) =>
      importsOf(f).some((i) => i === 'openai' || i.startsWith('@anthropic-ai/')),
    );
    expect(sdkImporters).toEqual(['src/llm/client.ts']);
    const clientImporters = sources.filter((f) =>
      importsOf(f).some(
        (i) =>
          i.startsWith('.') &&
          relative(process.cwd(), resolve(dirname(f), i)) === 'src/llm/client.js',
      ),
    );
    expect(clientImporters).toEqual(['src/llm/model-worker.ts', 'src/simulations/score-worker.ts']);
  });

  it('the preload imports electron and its own files only, and exposes one object', () => {
    const imports = files('preload')
      .filter((f) => f.endsWith('.ts'))
      .flatMap(importsOf);
    expect(imports.every((i) => i === 'electron' || i.startsWith('./'))).toBe(true);
    const source = readFileSync('preload/index.ts', 'utf8');
    expect(source.match(/exposeInMainWorld\(/g)).toHaveLength(1);
    expect(source).not.toMatch(/exposeInMainWorld\([^)]*ipcRenderer\s*\)/);
  });

  /**
   * The lint configuration's own `rules` for `file`, run without type information (fast). Answers
   * their messages and any parse failure; directives in the sources that name other rules are not.
   */
  async function lintAs(
    file: string,
    rules: string[],
  ): Promise<(code: string, path?: string) => Linter.LintMessage[]> {
    const config = await new ESLint().calculateConfigForFile(file);
    const linter = new Linter({ cwd: '/' });
    const only: Linter.Config = {
      files: ['**/*.ts'],
      languageOptions: { parser: config.languageOptions.parser },
      plugins: { callbench: config.plugins.callbench },
      rules: Object.fromEntries(rules.map((r) => [r, config.rules[r]])),
    };
    return (code, path = file) =>
      linter
        .verify(code, [only], { filename: resolve(path) })
        .filter((m) => m.fatal || rules.includes(m.ruleId ?? ''));
  }

  it('an import cycle fails the lint, closed by `import type` too', async () => {
    const dir = tempDir();
    const a = join(dir, 'a.ts');
    const b = join(dir, 'b.ts');
    writeFileSync(a, "import type { B } from './b.js';\nexport interface A { b: B }\n");
    writeFileSync(b, "import type { A } from './a.js';\nexport interface B { a?: A }\n");
    const lint = await lintAs('src/audio/pacer.ts', ['callbench/no-import-cycle']);
    const messages = lint(readFileSync(a, 'utf8'), a);
    expect(messages.map((m) => m.ruleId)).toEqual(['callbench/no-import-cycle']);
    expect(messages[0]!.message).toMatch(/a\.ts -> .*b\.ts -> .*a\.ts/);
    // One way only: no cycle.
    writeFileSync(b, 'export interface B { n: number }\n');
    expect(lint(readFileSync(a, 'utf8'), a)).toEqual([]);
  });

  it('src/, main/ and preload/ have no import cycle, type imports counted', async () => {
    const lint = await lintAs('src/engine.ts', ['callbench/no-import-cycle']);
    const sources = ['src', 'main', 'preload'].flatMap((d) =>
      files(d).filter((f) => f.endsWith('.ts')),
    );
    const cycles = sources.flatMap((f) =>
      lint(readFileSync(f, 'utf8'), resolve(f)).map((m) => `${f}: ${m.message}`),
    );
    expect(cycles).toEqual([]);
  });

  it('a folder of src/ imports only the folders below it, types included', async () => {
    const refused = async (file: string, code: string) =>
      (await lintAs(file, ['no-restricted-imports']))(code).map((m) => m.ruleId);
    const rule = ['no-restricted-imports'];
    expect(
      await refused('src/voice/x.ts', "import type { S } from '../simulations/start.js';"),
    ).toEqual(rule);
    expect(
      await refused('src/voice/transports/x.ts', "import '../../simulations/runner.js';"),
    ).toEqual(rule);
    expect(
      await refused('src/net/x.ts', "import type { Speech } from '../speech/index.js';"),
    ).toEqual(rule);
    expect(
      await refused('src/audio/x.ts', "import type { Rec } from '../team/leadership.js';"),
    ).toEqual(rule);
    expect(
      await refused('src/domain/x.ts', "import type { Store } from '../store/index.js';"),
    ).toEqual(rule);
    expect(
      await refused('src/store/x.ts', "import { dataDirSecretBox } from '../secrets.js';"),
    ).toEqual(rule);
    expect(
      await refused(
        'src/simulations/x.ts',
        "import type { SecretBox } from '../kernel/secret-box.js';\nimport { fill } from '../conversation/caller.js';",
      ),
    ).toEqual([]);
    expect(await refused('src/cli/x.ts', "import { startEngine } from '../engine.js';")).toEqual(
      [],
    );
  });
});
