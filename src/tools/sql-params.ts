/**
 * Finds `:name` parameters in SQL text, skipping string literals, quoted identifiers, comments and
 * PostgreSQL `::type` casts, so that a colon inside a string is never taken for a parameter.
 */
export function scanNamedParameters(sql: string): { names: string[]; toPositional(): string } {
  const pieces: (string | { name: string })[] = [];
  let i = 0;
  let start = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      const end = sql.indexOf(c, i + 1);
      i = end === -1 ? sql.length : end + 1;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end + 1;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end === -1 ? sql.length : end + 2;
    } else if (c === ':' && sql[i + 1] === ':') {
      i += 2;
    } else if (c === ':' && /[A-Za-z_]/.test(sql[i + 1] ?? '')) {
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
