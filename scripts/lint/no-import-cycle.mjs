// ESLint rule: no import cycle, `import type` included. eslint-plugin-import-x's no-cycle skips
// type-only imports unconditionally (it has no option to count them), yet a circle closed by
// `import type` still ties the meaning of its files together, so this rule walks every relative
// import, type or value, static or dynamic. Other files are read from disk through TypeScript's
// import scanner (no full parse), cached per file, its modification time and size.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';

const scanned = new Map();

/** The file a relative specifier names: sources import `./x.js` for `./x.ts`. */
function resolveImport(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier);
  const stem = base.replace(/\.(m?js)$/, '');
  const candidates = [`${stem}.ts`, `${stem}.tsx`, base, `${base}/index.ts`, `${base}/index.tsx`];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

function importsOf(file) {
  const { mtimeMs, size } = statSync(file);
  const version = `${mtimeMs}:${size}`;
  const known = scanned.get(file);
  if (known && known.version === version) return known.targets;
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const targets = [
    ...new Set(importedFiles.map((f) => resolveImport(file, f.fileName)).filter(Boolean)),
  ];
  scanned.set(file, { version, targets });
  return targets;
}

/** The shortest chain of imports from `start` back to `goal`, or undefined. */
function pathBack(start, goal) {
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift();
    for (const next of importsOf(file)) {
      if (next === goal) {
        const chain = [file];
        for (let f = previous.get(file); f; f = previous.get(f)) chain.unshift(f);
        return chain;
      }
      if (!previous.has(next)) {
        previous.set(next, file);
        queue.push(next);
      }
    }
  }
  return undefined;
}

function sourceOf(node) {
  if (node.type === 'TSImportEqualsDeclaration') return node.moduleReference.expression;
  return node.source;
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid import cycles, counting type-only imports.' },
    schema: [],
    messages: { cycle: 'Import cycle (type imports count): {{route}}' },
  },
  create(context) {
    const file = context.physicalFilename;
    const check = (node) => {
      const source = sourceOf(node);
      if (source?.type !== 'Literal' || typeof source.value !== 'string') return;
      const target = resolveImport(file, source.value);
      if (!target || target === file) return;
      const chain = pathBack(target, file);
      if (!chain) return;
      const route = [file, ...chain, file].map((f) => relative(process.cwd(), f)).join(' -> ');
      context.report({ node, messageId: 'cycle', data: { route } });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
      TSImportEqualsDeclaration: check,
    };
  },
};
