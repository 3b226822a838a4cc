import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogue } from '../../src/operations/catalogue.js';
import { renderCatalogueEnums } from '../../scripts/operation-names.js';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

const GENERATED = 'renderer/src/generated/catalogue-enums.ts';

describe("the renderer's enum lists come from the catalogue", () => {
  it(`${GENERATED} is what the catalogue generates (npm run gen:operations rewrites it)`, () => {
    expect(readFileSync(GENERATED, 'utf8')).toBe(renderCatalogueEnums(catalogue));
  });

  it("lists exactly the enums personas.create accepts, in the catalogue's order", async () => {
    const create = catalogue.find((op) => op.name === 'personas.create')!;
    const body = create.body as unknown as Record<string, { unwrap(): { options: string[] } }>;
    // The module also holds the alert ranges (an object): only its lists are read here.
    const lists =
      (await import('../../renderer/src/generated/catalogue-enums.js')) as unknown as Record<
        string,
        readonly string[]
      >;
    expect(lists.PERSONA_EMOTIONS).toEqual(body.emotion!.unwrap().options);
    expect(lists.PERSONA_DIFFICULTIES).toEqual(body.difficulty!.unwrap().options);
    expect(lists.PERSONA_BACKGROUND_NOISES).toEqual(body.backgroundNoise!.unwrap().options);
  });

  it('no renderer file but the generated one spells the persona enums again', () => {
    const written = files('renderer/src').filter((f) => !f.includes('/generated/'));
    const copies = written.filter((f) =>
      /\bskeptical\b|\bconstruction\b|very_hard: true/.test(readFileSync(f, 'utf8')),
    );
    expect(copies).toEqual([]);
  });
});
