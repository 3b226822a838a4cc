import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

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

  it("the renderer reaches the engine only through its client: from src/ it takes the catalogue's types alone", () => {
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
          if (target.startsWith('src/')) return !typeOnlyCatalogue(f, i);
          return !target.startsWith('renderer/') && !target.startsWith('preload/');
        })
        .map((i) => `${f}: ${i}`),
    );
    expect(offenders).toEqual([]);
    // The types do reach it: the client is typed from the catalogue.
    expect(readFileSync('renderer/src/client.ts', 'utf8')).toMatch(
      /import type \{[^}]*\bOperationMap\b[^}]*\} from '..\/..\/src\/operations\/catalogue'/,
    );
  });

  it('the model SDKs load on the model threads only: src/llm/client.ts imports them, and only the thread imports it', () => {
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
    expect(clientImporters).toEqual(['src/llm/model-worker.ts']);
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
});
