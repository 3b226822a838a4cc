// Type-aware lint for the whole project; layering rules keep the engine, desktop shell, preload and
// renderer apart (the same boundaries VS Code enforces by lint).
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';
import noImportCycle from './scripts/lint/no-import-cycle.mjs';

const layer = (files, patterns) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns }] },
});

const ENGINE_BOUNDARY = [
  { group: ['electron'], message: 'The engine runs headless: src/ never imports electron.' },
  {
    group: ['**/main/**', '**/preload/**', '**/renderer/**'],
    message: 'The engine never imports the desktop shell, the preload or the renderer.',
  },
];

// The folders of src/ as a stack, lowest first: a folder imports only folders on lower tiers (type
// imports included), so no two folders import each other. The files at the top of src/ that import
// no folder (errors, clock, events, ids...) are open to all; the engine's assembly (engine*.ts) and
// the key check (secrets.ts, above the store) to the CLI alone.
const ENGINE_TIERS = [
  ['audio', 'kernel', 'net', 'team', 'text'],
  ['domain'],
  ['store'],
  ['llm', 'notify', 'speech', 'tools'],
  ['providers'],
  ['conversation'],
  ['voice', 'demo'],
  ['alerts', 'simulations'],
  ['compare'],
  ['regression'],
  ['schedules'],
  ['operations'],
  ['client', 'server'],
  ['cli'],
];
const ASSEMBLY = ['engine', 'engine-bootstrap', 'engine-options', 'engine-services', 'secrets'];

function engineLayers() {
  return ENGINE_TIERS.flatMap((tier, rank) => {
    const above = ENGINE_TIERS.slice(rank).flat();
    return tier.map((folder) => {
      const barred = above.filter((f) => f !== folder);
      const patterns = [...ENGINE_BOUNDARY];
      if (barred.length)
        patterns.push({
          regex: `^(\\.\\./)+(${barred.join('|')})(/|$)`,
          message: `src/${folder}/ imports only the folders below it: ${ENGINE_TIERS.slice(0, rank).flat().join(', ') || 'none'} (see ENGINE_TIERS in eslint.config.js).`,
        });
      if (folder !== 'cli')
        patterns.push({
          regex: `^(\\.\\./)+(${ASSEMBLY.join('|')})\\.js$`,
          message:
            'Only the CLI imports the engine assembly and the key check (src/engine*.ts, src/secrets.ts).',
        });
      return layer([`src/${folder}/**`], patterns);
    });
  });
}

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'out/**',
      'node_modules/**',
      'coverage/**',
      'test/e2e/output/**',
      'test-results/**',
      '**/*.mjs',
      '**/*.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // No import cycle in the engine, the desktop shell or the preload, type imports counted: a
    // circle closed by `import type` still ties its files' meaning together. A rule of our own
    // (scripts/lint/no-import-cycle.mjs): eslint-plugin-import-x's no-cycle skips type imports.
    files: ['src/**/*.ts', 'main/**/*.ts', 'preload/**/*.ts'],
    plugins: { callbench: { rules: { 'no-import-cycle': noImportCycle } } },
    rules: { 'callbench/no-import-cycle': 'error' },
  },
  {
    // Tests read the API's JSON answers, whose shape is what they assert: the no-unsafe-* family
    // would only ask for casts there. Every other type-aware rule, no-explicit-any included, holds.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Functions a person can hold: past 80 lines, or 4 positional parameters, a function is split
    // into named parts or takes an options object.
    files: ['src/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
      'max-params': ['error', 4],
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      // useLoad (ui/common.tsx) takes a deps array like useEffect: the same check holds for it.
      'react-hooks/exhaustive-deps': ['warn', { additionalHooks: '(useLoad)' }],
    },
  },
  {
    // A screen is built from named parts: past 120 lines, a component is split.
    files: ['renderer/**/*.tsx'],
    rules: {
      'max-lines-per-function': ['error', { max: 120, skipBlankLines: true, skipComments: true }],
    },
  },
  layer(['src/**'], ENGINE_BOUNDARY),
  layer(
    ['renderer/**'],
    [
      { group: ['electron', 'node:*'], message: 'The renderer runs in a browser page.' },
      { group: ['**/main/**'], message: 'The renderer never imports the desktop shell.' },
      {
        regex: '(^|/)src/(?!operations/catalogue$|client/)',
        message:
          "The renderer reaches the engine through its client; from src/ it takes the catalogue's types only.",
      },
      {
        group: ['**/src/operations/catalogue'],
        allowTypeImports: true,
        message: "Only the catalogue's types: import type.",
      },
    ],
  ),
  layer(
    ['preload/**'],
    [
      {
        group: ['**/src/**', '**/main/**', '**/renderer/**', 'node:*'],
        message: 'The preload imports electron and its own files only.',
      },
    ],
  ),
  ...engineLayers(),
);
