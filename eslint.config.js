import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

export default tseslint.config(
  {
    ignores: [
      'node_modules',
      '.proctor',
      'dist',
      'coverage',
      'scripts/*.mjs',
      'bin/*.mjs',
      'eslint.config.js',
      '.dependency-cruiser.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Scripts the dashboard serves to browsers as they are (src/web/assets): plain JavaScript outside the TypeScript
    // project, so linted without type information; the browser's globals are the browser's.
    files: ['src/web/assets/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { parserOptions: { projectService: false }, sourceType: 'script' },
    rules: { ...tseslint.configs.disableTypeChecked.rules, 'no-undef': 'off' },
  },
  {
    // Tests read JSON response bodies the way a client would: loosely.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Workflows run in Temporal's deterministic sandbox: no Node built-ins, no I/O modules.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'Workflows must be deterministic: no Node built-ins.' })),
          patterns: [
            {
              group: ['pg', 'kysely', 'minio', 'openai', 'playwright-core', '@electric-sql/*', 'hono', '@hono/*'],
              message: 'Workflows do no I/O: call an activity.',
            },
            {
              group: ['../src/*', '!../src/domain', '../src/!(domain)/**'],
              message: 'Workflows may import only src/domain.',
              allowTypeImports: true,
            },
            {
              group: ['../activities', '../activities/*'],
              message: 'Import activities as types only.',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  {
    // Functions sent into a browser page are source text (src/browser/page-function.ts): whatever compiles our
    // TypeScript (tsx wraps named inner functions in esbuild's __name) never changes what the page runs.
    files: ['src/**/*.ts', 'activities/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'CallExpression[callee.property.name=/^(evaluate|evaluateAll|evaluateHandle|addInitScript|waitForFunction|\\$eval|\\$\\$eval|exposeFunction)$/] > :matches(ArrowFunctionExpression, FunctionExpression)',
          message:
            'Send a pageFunction (src/browser/page-function.ts) into the page, not an inline function: tsx may rewrite it.',
        },
      ],
    },
  },
);
