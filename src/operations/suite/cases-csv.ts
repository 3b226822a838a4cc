/**
 * A scenario's data-driven cases as CSV (RFC 4180): a header of promptVariables names, one row per
 * case. Written with LF and quotes only where a value needs them; an empty cell means the case
 * gives that variable no value (its default applies), `""` an empty value. Read with the 1-based
 * line and column of every cell, so that each problem points at its place in the file.
 */

export interface CasesCsvProblem {
  line: number;
  column: number;
  message: string;
}

/** A header cell: a variable name and where it is. */
export interface CasesCsvColumn {
  name: string;
  line: number;
  column: number;
}

export interface CasesCsvRow {
  /** The line the row starts on. */
  line: number;
  variables: Record<string, string>;
}

export interface CasesCsv {
  columns: CasesCsvColumn[];
  rows: CasesCsvRow[];
  problems: CasesCsvProblem[];
}

const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;

function cell(value: string | undefined): string {
  if (value === undefined) return '';
  if (value === '' || NEEDS_QUOTES.test(value)) return `"${value.replace(/"/g, '""')}"`;
  return value;
}

/** The cases as CSV text: header in the given order, LF line ends, a final newline. */
export function writeCasesCsv(
  variableNames: readonly string[],
  cases: readonly { variables: Record<string, string> }[],
): string {
  const lines = [variableNames.map((name) => cell(name)).join(',')];
  for (const c of cases) lines.push(variableNames.map((name) => cell(c.variables[name])).join(','));
  return `${lines.join('\n')}\n`;
}

interface Cell {
  /** undefined: an empty cell left unquoted (no value). */
  value: string | undefined;
  line: number;
  column: number;
}

/** Splits CSV text into records of cells with positions; malformed quoting is a problem. */
function tokenize(text: string, problems: CasesCsvProblem[]): Cell[][] {
  const records: Cell[][] = [];
  let record: Cell[] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  let column = 1;
  const advance = (n: number) => {
    i += n;
    column += n;
  };
  while (i < text.length) {
    const start = { line, column };
    let value: string | undefined;
    if (text[i] === '"') {
      advance(1);
      let out = '';
      for (;;) {
        if (i >= text.length) {
          problems.push({ ...start, message: 'a quoted value is not closed' });
          break;
        }
        const ch = text[i]!;
        if (ch === '"' && text[i + 1] === '"') {
          out += '"';
          advance(2);
        } else if (ch === '"') {
          advance(1);
          break;
        } else {
          out += ch;
          advance(1);
          if (ch === '\n') {
            line += 1;
            column = 1;
          }
        }
      }
      value = out;
      if (i < text.length && !/[,\r\n]/.test(text[i]!)) {
        problems.push({ line, column, message: 'a quoted value must end at a comma or line end' });
        while (i < text.length && !/[,\r\n]/.test(text[i]!)) advance(1);
      }
    } else {
      const from = i;
      while (i < text.length && !/[,\r\n]/.test(text[i]!)) {
        if (text[i] === '"')
          problems.push({ line, column, message: 'a value with " must be quoted' });
        advance(1);
      }
      value = i > from ? text.slice(from, i) : undefined;
    }
    record.push({ value, ...start });
    if (text[i] === ',') {
      advance(1);
      if (i >= text.length || /[\r\n]/.test(text[i]!))
        record.push({ value: undefined, line, column });
    }
    if (i >= text.length || text[i] === '\r' || text[i] === '\n') {
      if (text[i] === '\r') advance(1);
      if (text[i] === '\n') advance(1);
      records.push(record);
      record = [];
      line += 1;
      column = 1;
    }
  }
  if (record.length) records.push(record);
  return records;
}

/** The header's variable names: each named, none twice. */
function readColumns(header: Cell[], problems: CasesCsvProblem[]): CasesCsvColumn[] {
  const seen = new Set<string>();
  return header.map((c) => {
    const name = c.value ?? '';
    if (!name) problems.push({ line: c.line, column: c.column, message: 'a column has no name' });
    else if (seen.has(name))
      problems.push({ line: c.line, column: c.column, message: `column ${name} appears twice` });
    seen.add(name);
    return { name, line: c.line, column: c.column };
  });
}

const isBlank = (record: Cell[]): boolean => record.length === 1 && record[0]!.value === undefined;

/** Reads a cases CSV; every problem found is listed with its line and column. */
export function readCasesCsv(text: string): CasesCsv {
  const problems: CasesCsvProblem[] = [];
  const records = tokenize(text, problems);
  // Blank lines at the end are the file's end; one inside is a case that sets no variable.
  while (records.length && isBlank(records[records.length - 1]!)) records.pop();
  if (!records.length) {
    problems.push({ line: 1, column: 1, message: 'the file has no header of variable names' });
    return { columns: [], rows: [], problems };
  }
  const columns = readColumns(records[0]!, problems);
  const rows = records.slice(1).map((record) => {
    const first = record[0]!;
    if (record.length !== columns.length)
      problems.push({
        line: first.line,
        column: 1,
        message: `the row has ${record.length} values for ${columns.length} columns`,
      });
    const variables: Record<string, string> = {};
    record.forEach((c, index) => {
      const column = columns[index];
      if (column?.name && c.value !== undefined) variables[column.name] = c.value;
    });
    return { line: first.line, variables };
  });
  // In the order of the file, as a reader goes through them.
  problems.sort((a, b) => a.line - b.line || a.column - b.column);
  return { columns, rows, problems };
}
