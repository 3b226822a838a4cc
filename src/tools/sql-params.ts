/**
 * Where the SQL text that starts at `i` ends if it is a string literal, a quoted identifier, a
 * comment or a PostgreSQL dollar-quoted string (`$$...$$`, `$tag$...$tag$`); `i` itself when it is
 * none of these. Parameters and statement separators inside such text are not SQL.
 */
function endOfQuoted(sql: string, i: number): number {
  const c = sql[i];
  const to = (end: number, length: number) => (end === -1 ? sql.length : end + length);
  if (c === "'" || c === '"') return to(sql.indexOf(c, i + 1), 1);
  if (c === '-' && sql[i + 1] === '-') return to(sql.indexOf('\n', i), 1);
  if (c === '/' && sql[i + 1] === '*') return to(sql.indexOf('*/', i + 2), 2);
  if (c === '$') {
    const tag = /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i))?.[0];
    if (tag) return to(sql.indexOf(tag, i + tag.length), tag.length);
  }
  return i;
}

/**
 * Finds `:name` parameters in SQL text, skipping string literals, quoted identifiers, comments and
 * PostgreSQL `::type` casts, so that a colon inside a string is never taken for a parameter.
 */
export function scanNamedParameters(sql: string): { names: string[]; toPositional(): string } {
  const pieces: (string | { name: string })[] = [];
  let i = 0;
  let start = 0;
  while (i < sql.length) {
    const skipped = endOfQuoted(sql, i);
    if (skipped !== i) {
      i = skipped;
    } else if (sql[i] === ':' && sql[i + 1] === ':') {
      i += 2;
    } else if (sql[i] === ':' && /[A-Za-z_]/.test(sql[i + 1] ?? '')) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(sql.slice(i + 1))!;
      pieces.push(sql.slice(start, i), { name: m[0] });
      i += 1 + m[0].length;
      start = i;
    } else {
      i++;
    }
  }
  pieces.push(sql.slice(start));
  const names = [
    ...new Set(
      pieces.filter((p): p is { name: string } => typeof p !== 'string').map((p) => p.name),
    ),
  ];
  return {
    names,
    toPositional: () =>
      pieces.map((p) => (typeof p === 'string' ? p : `$${names.indexOf(p.name) + 1}`)).join(''),
  };
}

/**
 * How many statements SQL text holds: semicolons outside strings, identifiers and comments
 * separate them, and a separator followed only by blanks and comments ends the last one.
 */
export function countStatements(sql: string): number {
  let count = 0;
  let pending = false; // something other than blanks and comments since the last separator
  let i = 0;
  while (i < sql.length) {
    const skipped = endOfQuoted(sql, i);
    const isComment = sql.startsWith('--', i) || sql.startsWith('/*', i);
    if (skipped !== i) {
      pending ||= !isComment;
      i = skipped;
      continue;
    }
    if (sql[i] === ';') {
      if (pending) count++;
      pending = false;
    } else if (!/\s/.test(sql[i]!)) {
      pending = true;
    }
    i++;
  }
  return count + (pending ? 1 : 0);
}
