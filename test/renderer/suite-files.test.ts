import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import {
  isSuiteFile,
  placeholderNames,
  readSuiteFolder,
  suitePath,
  zipName,
  zipSuite,
} from '../../renderer/src/ui/suiteFiles.js';

/** A file as a folder input gives it: its name, and its path from the picked folder. */
const picked = (relative: string, content: string): File => {
  const file = new File([content], relative.split('/').at(-1)!);
  Object.defineProperty(file, 'webkitRelativePath', { value: relative });
  return file;
};

describe('a suite folder read in the page (#38)', () => {
  it('names files from inside the picked folder, and sends only YAML and CSV outside hidden folders', () => {
    expect(suitePath('my-suite/personas/frank.yaml')).toBe('personas/frank.yaml');
    expect(suitePath('my-suite/callbench.yaml')).toBe('callbench.yaml');
    expect(isSuiteFile('personas/frank.yaml')).toBe(true);
    expect(isSuiteFile('personas/frank.yml')).toBe(true);
    expect(isSuiteFile('scenarios/refund.cases.csv')).toBe(true);
    expect(isSuiteFile('README.md')).toBe(false);
    expect(isSuiteFile('.git/config.yaml')).toBe(false);
    expect(isSuiteFile('.callbench/schemas/persona.json')).toBe(false);
    expect(isSuiteFile('')).toBe(false);
  });

  it('reads the picked files as text, in path order', async () => {
    const files = await readSuiteFolder([
      picked('s/personas/ruth.yaml', 'key: ruth\n'),
      picked('s/README.md', '# notes\n'),
      picked('s/callbench.yaml', 'name: S\n'),
      picked('s/.git/HEAD', 'ref\n'),
      picked('s/personas/frank.yaml', 'key: frank\n'),
    ]);
    expect(files).toEqual([
      { path: 'callbench.yaml', content: 'name: S\n' },
      { path: 'personas/frank.yaml', content: 'key: frank\n' },
      { path: 'personas/ruth.yaml', content: 'key: ruth\n' },
    ]);
  });

  it('asks for each placeholder the files name once, sorted', () => {
    const names = placeholderNames([
      { path: 'tools/a.yaml', content: 'token: ${secret:TOOL_A_AUTH_TOKEN}\n' },
      {
        path: 'alerts/b.yaml',
        content: 'secret: ${secret:ALERT_B_SECRET}\nagain: ${secret:TOOL_A_AUTH_TOKEN}\n',
      },
      { path: 'personas/c.yaml', content: 'prompt: costs ${price} and {secret:NOT_ONE}\n' },
    ]);
    expect(names).toEqual(['ALERT_B_SECRET', 'TOOL_A_AUTH_TOKEN']);
  });

  it('zips the exported files byte for byte, the same bytes every time', () => {
    const files = [
      { path: 'callbench.yaml', content: 'name: Caf\u00e9 suite\n' },
      { path: 'personas/frank.yaml', content: 'key: frank\n' },
    ];
    const zip = zipSuite(files);
    const back = Object.entries(unzipSync(zip)).map(([path, bytes]) => ({
      path,
      content: strFromU8(bytes),
    }));
    expect(back).toEqual(files);
    expect(zipSuite(files)).toEqual(zip);
    expect(zipName('Support team #2')).toBe('support-team-2-suite.zip');
    expect(zipName('***')).toBe('callbench-suite.zip');
  });
});
