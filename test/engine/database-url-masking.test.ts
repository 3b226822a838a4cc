import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine.js';
import { databaseStartError, redactedUrl } from '../../src/store/sql/postgres-errors.js';
import { tempDir } from '../helpers/server.js';

// A password typed raw into the URL may hold '@' and also '#', '?' or '/', which a URL parser
// takes for the end of the host: the last '@' before the host separates the credentials.
const CASES: [url: string, password: string, shown: string][] = [
  ['postgres://u:p@ss@host/db', 'p@ss', 'postgres://u:****@host/db'],
  ['postgres://u:p@ss#1@host:5432/db', 'p@ss#1', 'postgres://u:****@host:5432/db'],
  ['postgresql://u:p@s?s@host/db', 'p@s?s', 'postgresql://u:****@host/db'],
  ['postgres://u:p@s/s@[::1]:5432/db', 'p@s/s', 'postgres://u:****@[::1]:5432/db'],
  [
    'postgres://u:a:b@c@host/db?sslmode=require',
    'a:b@c',
    'postgres://u:****@host/db?sslmode=require',
  ],
  ['postgres://u:p%40ss@host/db', 'p%40ss', 'postgres://u:****@host/db'],
  ['postgres://u@host/db?password=p@ss', 'p@ss', 'postgres://u@host/db?password=****'],
  ['postgres://u:p@ss@host:99999/db', 'p@ss', 'postgres://u:****@host:99999/db'],
];

describe('a database URL in messages and logs', () => {
  it('shows no part of a password holding a raw @', () => {
    for (const [url, password, shown] of CASES) {
      expect(redactedUrl(url), url).toBe(shown);
      expect(redactedUrl(url), url).not.toContain(password);
    }
    expect(redactedUrl('postgres://u@host/db')).toBe('postgres://u@host/db');
    expect(redactedUrl('postgres://host/db')).toBe('postgres://host/db');
  });

  it('masks the password wherever a start error repeats it', () => {
    const url = 'postgres://u:p@ss#1@host/db';
    const err = databaseStartError(url, new Error(`odd failure for ${url} (password p@ss#1)`));
    expect(err.message).toBe(
      'Cannot use the database at postgres://u:****@host/db: odd failure for postgres://u:****@host/db (password ****)',
    );
  });

  it('an engine that cannot reach its database names it without any of the password', async () => {
    // Parsed as a URL, this password ends the host early: its tail is the real host and port.
    const password = 'pw@127.0.0.1:1?tail';
    const engine = createEngine({
      dataDir: tempDir(),
      databaseUrl: `postgres://cb:${password}@127.0.0.1:1/cb`,
      secretKey: 'k'.repeat(44),
    });
    const failed = await engine.start().then(
      () => null,
      (err: Error) => err,
    );
    await engine.stop();
    expect(failed?.message).toBe(
      'Cannot use the database at postgres://cb:****@127.0.0.1:1/cb: nothing is listening there (is PostgreSQL running, on that port?)',
    );
  });
});
