import jexlModule from 'jexl';

/**
 * Rule and routing conditions (`amount > 500`, `customer.tier == "gold" and amount < 100`,
 * `status in ["open", "pending"]`) are Jexl expressions: parsed, never eval'd, and unable to call
 * anything. On top of that, names that lead out of the given values into JavaScript's prototypes
 * are refused when the expression is parsed, values are evaluated as null-prototype copies, and
 * every member access, whatever its shape (`x.y`, `x["y"]`, `x["con" + "structor"]`, on a literal
 * too), reads only an own data property: it is rewritten into a guarded read before evaluation.
 */
const jexl = new jexlModule.Jexl();
jexl.addBinaryOp('and', 10, (a: unknown, b: unknown) => Boolean(a) && Boolean(b));
jexl.addBinaryOp('or', 10, (a: unknown, b: unknown) => Boolean(a) || Boolean(b));
jexl.addUnaryOp('not', (a: unknown) => !a);

/** The only way expressions read a member: own data properties of the subject, else undefined. */
const MEMBER = '__callbench_member';
jexl.addFunction(MEMBER, (subject: unknown, key: unknown, fromDot: unknown): unknown => {
  if (subject === null || subject === undefined) return undefined;
  // Jexl's own rules: `list.x` reads the first element's x; `x[true]` filters.
  const target = fromDot && Array.isArray(subject) ? (subject as unknown[])[0] : subject;
  if (!fromDot && typeof key === 'boolean') return key ? target : undefined;
  if (target === null || target === undefined) return undefined;
  if (typeof key !== 'string' && typeof key !== 'number') return undefined;
  const owner = Object(target) as object;
  const property = Object.getOwnPropertyDescriptor(owner, key);
  return property && 'value' in property && typeof property.value !== 'function'
    ? (property.value as unknown)
    : undefined;
});

const FORBIDDEN = new Set([
  'constructor',
  '__proto__',
  'prototype',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
]);

export interface CompiledCondition {
  source: string;
  evaluate(values: Record<string, unknown>): boolean;
}

export class ExpressionError extends Error {}

function checkNode(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  const n = node as { type?: string; value?: unknown; expr?: { type?: string; value?: unknown } };
  if (n.type === 'Identifier' && typeof n.value === 'string' && FORBIDDEN.has(n.value)) {
    throw new ExpressionError(`"${n.value}" may not be used in an expression`);
  }
  if (
    n.type === 'FilterExpression' &&
    n.expr?.type === 'Literal' &&
    typeof n.expr.value === 'string' &&
    FORBIDDEN.has(n.expr.value)
  ) {
    throw new ExpressionError(`"${n.expr.value}" may not be used in an expression`);
  }
  if (n.type === 'FunctionCall' || n.type === 'Transform') {
    throw new ExpressionError('functions and transforms are not available in conditions');
  }
  for (const child of Object.values(n)) {
    if (Array.isArray(child)) child.forEach(checkNode);
    else checkNode(child);
  }
}

type Node = Record<string, unknown> & { type?: string };

const call = (args: unknown[]): Node => ({
  type: 'FunctionCall',
  name: MEMBER,
  pool: 'functions',
  args,
});

/**
 * Rewrites every member access into a guarded read: `a.b` (an Identifier read from another node)
 * and `a[expr]` (a static filter). Relative filters (`list[.x > 1]`) keep their shape: they only
 * select elements, and the reads inside them are rewritten too.
 */
function guardMembers(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(guardMembers);
  if (!node || typeof node !== 'object') return node;
  const n = node as Node;
  if (n.type === 'Identifier' && n.from)
    return call([
      guardMembers(n.from),
      { type: 'Literal', value: n.value },
      { type: 'Literal', value: true },
    ]);
  if (n.type === 'FilterExpression' && !n.relative)
    return call([guardMembers(n.subject), guardMembers(n.expr), { type: 'Literal', value: false }]);
  return Object.fromEntries(Object.entries(n).map(([k, v]) => [k, guardMembers(v)]));
}

/** A deep copy whose objects have no prototype, so nothing outside the values is reachable. */
function isolate(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(isolate);
  if (value && typeof value === 'object') {
    const out = Object.create(null) as Record<string, unknown>;
    for (const [k, v] of Object.entries(value)) out[k] = isolate(v);
    return out;
  }
  return value;
}

const compiled = new Map<string, CompiledCondition>();

/** Conditions are compiled once per distinct text: tools evaluate the same few on every call. */
export function compileCondition(source: string): CompiledCondition {
  let found = compiled.get(source);
  if (!found) {
    found = compileUncached(source);
    if (compiled.size > 1_000) compiled.clear();
    compiled.set(source, found);
  }
  return found;
}

function compileUncached(source: string): CompiledCondition {
  let expression: ReturnType<typeof jexl.compile>;
  try {
    expression = jexl.compile(source);
    const parsed = expression as unknown as { _getAst(): unknown; _ast: unknown };
    checkNode(parsed._getAst());
    parsed._ast = guardMembers(parsed._getAst());
  } catch (err) {
    if (err instanceof ExpressionError) throw err;
    throw new ExpressionError(`does not parse: ${(err as Error).message}`);
  }
  return {
    source,
    evaluate(values) {
      return Boolean(expression.evalSync(isolate(values) as Record<string, unknown>));
    },
  };
}
