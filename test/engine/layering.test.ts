import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
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
    const offenders = sources.filter((f) => /(from\s+['"]electron['"]|require\(\s*['"]electron['"]\s*\)|import\(\s*['"]electron['"]\s*\))/.test(readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
