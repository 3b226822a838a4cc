// Type-aware lint for the whole project; layering rules keep the engine, desktop shell, preload and
// renderer apart (the same boundaries VS Code enforces by lint).
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

const layer = (files, patterns) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns }] },
});

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
    rules: reactHooks.configs.recommended.rules,
  },
  layer(
    ['src/**'],
    [
      { group: ['electron'], message: 'The engine runs headless: src/ never imports electron.' },
      {
        group: ['**/main/**', '**/preload/**', '**/renderer/**'],
        message: 'The engine never imports the desktop shell, the preload or the renderer.',
      },
    ],
  ),
  layer(
    ['renderer/**'],
    [
      { group: ['electron', 'node:*'], message: 'The renderer runs in a browser page.' },
      { group: ['**/main/**'], message: 'The renderer never imports the desktop shell.' },
      {
        regex: '(^|/)src/(?!operations/catalogue$)',
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
  layer(
    ['src/store/**'],
    [
      { group: ['electron'], message: 'The engine runs headless: src/ never imports electron.' },
      {
        group: [
          '../alerts/**',
          '../llm/**',
          '../notify/**',
          '../operations/**',
          '../providers/**',
          '../schedules/**',
          '../server/**',
          '../simulations/**',
          '../tools/**',
          '../cli/**',
        ],
        message: 'The store imports no domain folder: shared shapes live in src/domain/.',
      },
    ],
  ),
);
