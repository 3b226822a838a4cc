import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { type PathSegment, type Position } from './field-paths.js';
import type { SuiteProblem } from './problems.js';

const WHOLE_FILE: Position = { line: 1, column: 1 };

/**
 * A YAML suite file read with the position of every node (YAML 1.2, the core schema: `on` stays a
 * string and dates stay text), so that each problem found in its value can point at the line and
 * column of the node it concerns.
 */
export class YamlSource {
  readonly value: unknown;
  /** Malformed YAML (and duplicate keys), each where the parser stopped. */
  readonly problems: SuiteProblem[];
  private readonly lines = new LineCounter();
  private readonly root: unknown;

  constructor(
    readonly file: string,
    text: string,
  ) {
    const doc = parseDocument(text, {
      lineCounter: this.lines,
      prettyErrors: false,
      version: '1.2',
      schema: 'core',
    });
    this.root = doc.contents;
    // An error found at the very end (an unclosed bracket) is shown on the last line, not past it.
    const last = Math.max(0, text.replace(/\n+$/, '').length - 1);
    this.problems = doc.errors.map((e) => ({
      file,
      ...this.at(Math.min(e.pos[0], last)),
      field: '',
      message: `malformed YAML: ${e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`,
    }));
    this.value = this.problems.length ? undefined : doc.toJS({ maxAliasCount: 1_000 });
  }

  private at(offset: number): Position {
    const { line, col } = this.lines.linePos(offset);
    return { line, column: col };
  }

  /**
   * Where the field at `path` is: its value's node, or its key's when `onKey` (an unknown field is
   * its name). A path that goes past what the file holds points at the deepest node it reached (a
   * missing field is a problem of the object that lacks it), and the whole file is 1:1.
   */
  position(path: readonly PathSegment[], { onKey = false } = {}): Position {
    let node: unknown = this.root;
    let found: unknown = null;
    for (const [i, segment] of path.entries()) {
      const pair = childPair(node, segment);
      if (pair === undefined) break;
      const last = i === path.length - 1;
      found = last && onKey && pair.key ? pair.key : (pair.value ?? pair.key ?? found);
      node = pair.value;
      if (!pair.value) break;
    }
    const target = (found ?? (path.length ? this.root : null)) as Node | null;
    return target?.range ? this.at(target.range[0]) : WHOLE_FILE;
  }
}

/** A map's entry or a sequence's item, with the node of its key where it has one. */
function childPair(
  node: unknown,
  segment: PathSegment,
): { key: Node | null; value: Node | null } | undefined {
  if (isMap(node)) {
    const pair = node.items.find(
      (p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(segment),
    );
    return pair ? { key: pair.key as Node, value: (pair.value as Node | null) ?? null } : undefined;
  }
  if (isSeq(node) && typeof segment === 'number') {
    const item = node.items[segment] as Node | undefined;
    return item ? { key: null, value: item } : undefined;
  }
  return undefined;
}
