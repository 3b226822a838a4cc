/** A field's path in a suite file: as segments, and as the API's errors name it. */

/** One segment of a field's path: an object key or an array index. */
export type PathSegment = string | number;

/** A 1-based line and column in a file. */
export interface Position {
  line: number;
  column: number;
}

/** `config.auth.token`, `cases[3].variables.foo`: a field's path as the API's errors name it. */
export function fieldName(path: readonly PathSegment[]): string {
  return path.reduce<string>(
    (acc, key) =>
      typeof key === 'number' ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key),
    '',
  );
}

/** The segments of a field's name (`cases[3].variables.foo`), the inverse of `fieldName`. */
export function fieldPath(name: string): PathSegment[] {
  const out: PathSegment[] = [];
  // A dotted index (`agents.0.apiKey`) is an index too.
  for (const match of name.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    const segment = match[2] ?? match[1]!;
    out.push(/^\d+$/.test(segment) ? Number(segment) : segment);
  }
  return out;
}
