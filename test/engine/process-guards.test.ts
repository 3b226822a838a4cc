import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// A process of its own: the guard changes process-wide behaviour, which vitest's own handlers
// would otherwise hide.
const script = `
import { installProcessGuards } from './src/process-guards.ts';
installProcessGuards((line) => console.log(line));
void Promise.reject(new Error('forced stray rejection'));
void (async () => { await new Promise((r) => setTimeout(r, 10)); throw new Error('a rejection later'); })();
setTimeout(() => console.log('still serving'), 100);
`;

describe('process guards', () => {
  it('log forced stray rejections, and the process keeps running', () => {
    const res = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    );
    expect(res.stderr).toBe('');
    expect(res.stdout).toContain('unhandled rejection was caught');
    expect(res.stdout).toContain('forced stray rejection');
    expect(res.stdout).toContain('a rejection later');
    expect(res.stdout).toContain('still serving');
    expect(res.status).toBe(0);
  });
});
