/**
 * Whether PostgreSQL SQL text is one read statement, decided by parsing it rather than by what the
 * server lets a READ ONLY transaction do (it counts DO and COPY ... TO PROGRAM as reads). A small
 * tokenizer understands what can hide keywords and semicolons (comments, nested ones included,
 * strings, E'' strings, quoted identifiers, dollar quotes); the statement's first keyword decides,
 * after the CTE list of a WITH, and inside an EXPLAIN that runs what it explains.
 */

interface Token {
  kind: 'word' | 'ident' | 'string' | 'param' | 'other' | 'punct';
  /** Words upper-cased; the punctuation character; the raw text otherwise. */
  text: string;
}

const READS = new Set(['SELECT', 'VALUES', 'TABLE']);
const WRITES = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);
const FALSE_VALUES = new Set(['FALSE', 'OFF', '0', "'FALSE'", "'OFF'", "'0'"]);

class Unterminated extends Error {}

const isIdentStart = (c: string | undefined) => c !== undefined && /[A-Za-z_\u0080-\uffff]/.test(c);
const isIdentPart = (c: string | undefined) =>
  c !== undefined && /[A-Za-z0-9_$\u0080-\uffff]/.test(c);

/** Where a quoted run that opened at `i` ends: `quote` doubled is an escape, and `\` in E''. */
function endOfQuote(sql: string, i: number, quote: string, backslash: boolean): number {
  for (let j = i + 1; j < sql.length; j++) {
    if (backslash && sql[j] === '\\') j++;
    else if (sql[j] === quote) {
      if (sql[j + 1] !== quote) return j + 1;
      j++;
    }
  }
  throw new Unterminated(quote === '"' ? 'quoted identifier' : 'string');
}

/** Where a block comment that opened at `i` ends; PostgreSQL's nest. */
function endOfComment(sql: string, i: number): number {
  let depth = 0;
  for (let j = i; j < sql.length - 1; j++) {
    if (sql[j] === '/' && sql[j + 1] === '*') {
      depth++;
      j++;
    } else if (sql[j] === '*' && sql[j + 1] === '/') {
      depth--;
      j++;
      if (depth === 0) return j + 1;
    }
  }
  throw new Unterminated('comment');
}

/** The token that starts at `i` (null for blanks and comments) and where the next one starts. */
function nextToken(sql: string, i: number): { token: Token | null; end: number } {
  const c = sql[i]!;
  const rest = sql.slice(i);
  // PostgreSQL's blanks only: any other character (a no-break space) is part of an identifier.
  if (/[ \t\n\r\f\v]/.test(c)) return { token: null, end: i + 1 };
  if (rest.startsWith('--')) {
    const nl = rest.search(/[\r\n]/);
    return { token: null, end: nl === -1 ? sql.length : i + nl + 1 };
  }
  if (rest.startsWith('/*')) return { token: null, end: endOfComment(sql, i) };
  if (c === "'" || c === '"') {
    const end = endOfQuote(sql, i, c, false);
    return { token: { kind: c === '"' ? 'ident' : 'string', text: sql.slice(i, end) }, end };
  }
  if (c === '$') {
    const tag = /^\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(rest)?.[0];
    if (tag) {
      const close = sql.indexOf(tag, i + tag.length);
      if (close === -1) throw new Unterminated('dollar-quoted string');
      const end = close + tag.length;
      return { token: { kind: 'string', text: sql.slice(i, end) }, end };
    }
    const param = /^\$\d+/.exec(rest)?.[0];
    if (param) return { token: { kind: 'param', text: param }, end: i + param.length };
  }
  if (rest.startsWith('::')) return { token: { kind: 'punct', text: '::' }, end: i + 2 };
  if (c === ':' && isIdentStart(sql[i + 1])) {
    // A :name parameter, bound later: never a keyword.
    const name = /^:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*/.exec(rest)![0];
    return { token: { kind: 'param', text: name }, end: i + name.length };
  }
  if (isIdentStart(c)) {
    let end = i + 1;
    while (isIdentPart(sql[end])) end++;
    const word = sql.slice(i, end);
    // E'...' is one string in which a backslash escapes the next character.
    if (/^[Ee]$/.test(word) && sql[end] === "'") {
      const stringEnd = endOfQuote(sql, end, "'", true);
      return { token: { kind: 'string', text: sql.slice(i, stringEnd) }, end: stringEnd };
    }
    // Keywords are matched on ASCII letters only, as PostgreSQL does.
    return { token: { kind: 'word', text: word.replace(/[a-z]/g, (l) => l.toUpperCase()) }, end };
  }
  if (/[0-9]/.test(c)) {
    const num = /^[0-9][0-9A-Za-z_.]*/.exec(rest)![0];
    return { token: { kind: 'other', text: num }, end: i + num.length };
  }
  return { token: { kind: 'punct', text: c }, end: i + 1 };
}

function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const { token, end } = nextToken(sql, i);
    if (token) tokens.push(token);
    i = end;
  }
  return tokens;
}

const wordAt = (t: Token[], i: number): string | undefined =>
  t[i]?.kind === 'word' ? t[i].text : undefined;
const isPunct = (t: Token[], i: number, p: string): boolean =>
  t[i]?.kind === 'punct' && t[i].text === p;

/** The index of the `)` closing the `(` at `open` (past the end when there is none). */
function closing(t: Token[], open: number): number {
  let depth = 0;
  for (let j = open; j < t.length; j++) {
    if (isPunct(t, j, '(')) depth++;
    else if (isPunct(t, j, ')') && --depth === 0) return j;
  }
  return t.length;
}

/**
 * What makes a query (SELECT, VALUES, TABLE, WITH ... , each maybe in parentheses) not a read, or
 * null: its first keyword, and after a WITH the CTE bodies and the main statement.
 */
function queryProblem(t: Token[]): string | null {
  let i = 0;
  while (isPunct(t, i, '(')) i++;
  const first = wordAt(t, i);
  if (first === 'WITH') {
    const main = mainAfterCtes(t, i + 1);
    if (typeof main === 'string') return main;
    return queryProblem(t.slice(main)) ?? hiddenWrite(t, i);
  }
  if (first && WRITES.has(first)) return `${first} writes data`;
  if (!first || !READS.has(first)) return `${first ?? 'it'} is not a read statement`;
  return hiddenWrite(t, i);
}

/**
 * A write inside a query: a statement that writes can only stand right after a parenthesis (a CTE
 * body, wherever the WITH is), so any `(INSERT` or the like is one, and nested WITHs are looked
 * into; SELECT ... INTO creates a table.
 */
function hiddenWrite(t: Token[], from: number): string | null {
  for (let j = from; j < t.length; j++) {
    if (wordAt(t, j) === 'INTO') return 'SELECT ... INTO creates a table';
    if (!isPunct(t, j, '(')) continue;
    const next = wordAt(t, j + 1);
    if (next && WRITES.has(next)) return `${next} writes data`;
    if (next === 'WITH') {
      const inner = queryProblem(t.slice(j + 1, closing(t, j)));
      if (inner) return inner;
    }
  }
  return null;
}

/** Skips a CTE's SEARCH and CYCLE clauses (PostgreSQL 14), which hold commas of their own. */
function afterSearchAndCycle(t: Token[], i: number): number {
  let j = i;
  const skipPast = (word: string, extra: number) => {
    while (j < t.length && wordAt(t, j) !== word) j++;
    j += 1 + extra;
  };
  if (wordAt(t, j) === 'SEARCH') skipPast('SET', 1);
  if (wordAt(t, j) === 'CYCLE') skipPast('USING', 1);
  return j;
}

/**
 * Reads the CTE list that starts at `i` (after WITH): every CTE body must itself be a read.
 * Answers where the main statement starts, or the problem.
 */
function mainAfterCtes(t: Token[], start: number): number | string {
  let i = wordAt(t, start) === 'RECURSIVE' ? start + 1 : start;
  for (;;) {
    const named = (t[i]?.kind === 'word' && t[i]!.text !== 'AS') || t[i]?.kind === 'ident';
    if (!named) return 'a WITH query needs a name for each CTE';
    i++;
    if (isPunct(t, i, '(')) i = closing(t, i) + 1;
    if (wordAt(t, i) !== 'AS') return 'a WITH query needs AS (...) for each CTE';
    i++;
    if (wordAt(t, i) === 'NOT') i++;
    if (wordAt(t, i) === 'MATERIALIZED') i++;
    if (!isPunct(t, i, '(')) return 'a WITH query needs AS (...) for each CTE';
    const close = closing(t, i);
    const body = queryProblem(t.slice(i + 1, close));
    if (body) return body;
    i = afterSearchAndCycle(t, close + 1);
    if (!isPunct(t, i, ',')) break;
    i++;
  }
  return i < t.length ? i : 'a WITH query needs a main statement after its CTEs';
}

/** EXPLAIN is a read unless it ANALYZEs (runs) a statement that is not. */
function explainProblem(t: Token[]): string | null {
  let i = 1;
  let analyze = false;
  if (isPunct(t, i, '(')) {
    const close = closing(t, i);
    let option: Token[] = [];
    for (let j = i + 1; j <= close; j++) {
      if (j < close && !isPunct(t, j, ',')) {
        option.push(t[j]!);
        continue;
      }
      const [name, ...value] = option;
      // An option's name may be quoted ("analyze" is ANALYZE there).
      const isAnalyze = !!name && /^"?ANALY[SZ]E"?$/i.test(name.text);
      const off = value.length === 1 && FALSE_VALUES.has(value[0]!.text.toUpperCase());
      if (isAnalyze && !off) analyze = true;
      option = [];
    }
    i = close + 1;
  } else {
    for (; /^(ANALY[SZ]E|VERBOSE)$/.test(wordAt(t, i) ?? ''); i++)
      if (wordAt(t, i) !== 'VERBOSE') analyze = true;
  }
  if (i >= t.length) return 'EXPLAIN needs a statement to explain';
  const explained = analyze ? queryProblem(t.slice(i)) : null;
  return explained && `EXPLAIN ANALYZE runs the statement it explains: ${explained}`;
}

/**
 * What keeps SQL text from being one read statement (SELECT, WITH ... SELECT, VALUES, TABLE, SHOW,
 * or EXPLAIN without ANALYZE of a write), in words; null when it is one. A trailing semicolon is
 * fine; comments are not statements.
 */
export function readStatementProblem(sql: string): string | null {
  let tokens: Token[];
  try {
    tokens = tokenize(sql);
  } catch (err) {
    if (err instanceof Unterminated) return `has an unterminated ${err.message}`;
    throw err;
  }
  const statements: Token[][] = [[]];
  for (const token of tokens) {
    if (token.kind === 'punct' && token.text === ';') statements.push([]);
    else statements[statements.length - 1]!.push(token);
  }
  const nonEmpty = statements.filter((s) => s.length > 0);
  if (nonEmpty.length > 1)
    return 'must be one statement: database tools run a single read-only query';
  const [statement] = nonEmpty;
  if (!statement) return 'holds no statement';
  const first = wordAt(statement, 0);
  if (first === 'SHOW') return null;
  if (first === 'EXPLAIN') return explainProblem(statement);
  return queryProblem(statement);
}
