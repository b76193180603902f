import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', '.tools/', '.temporal/', 'dist/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.mts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver()],
      // Without these, import-x reads only .js modules: no-cycle would never follow a .ts import.
      'import-x/extensions': ['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx', '.mts', '.cts'] },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
      'import-x/no-cycle': 'error',
      // Imports point down: common ← agents/models/payloads ← activities/workflows ← worker/client/audit/devserver ← server/cli.
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './src/common',
              from: [
                './src/agents',
                './src/models',
                './src/mcp',
                './src/payloads',
                './src/streams',
                './src/client',
                './src/worker',
                './src/audit',
                './src/eval',
                './src/devserver',
                './src/cli',
                './src/server',
                './src/react',
                './activities',
                './workflows',
              ],
              message: 'src/common is the bottom layer: it imports nothing of baton above it.',
            },
            {
              target: ['./src/agents', './src/models', './src/payloads'],
              from: [
                './src/client',
                './src/worker',
                './src/audit',
                './src/devserver',
                './src/cli',
                './src/server',
                './activities',
                './workflows',
              ],
              message: 'agents, models and payloads import only src/common and each other.',
            },
            {
              target: './activities',
              from: [
                './src/client',
                './src/worker',
                './src/audit',
                './src/devserver',
                './src/cli',
                './src/server',
                './workflows',
              ],
              message: 'Activities import only the layers below them.',
            },
            {
              target: ['./src/client', './src/worker', './src/audit', './src/devserver'],
              from: ['./src/cli', './src/server'],
              message: 'The library does not import its surfaces (CLI, HTTP service).',
            },
            {
              target: './workflows/chain',
              from: ['./workflows/guards', './workflows/live', './workflows/economics'],
              message:
                'workflows/chain is the kernel: features (guards, steering, economics) plug into the ports of workflows/chain/run.ts; the kernel imports none of them, types included.',
            },
            {
              target: './src/mcp',
              from: ['./src/client', './src/cli', './src/server', './workflows'],
              message: 'MCP tools run in the worker: src/mcp imports neither the surfaces nor workflow code.',
            },
          ],
        },
      ],
    },
  },
  {
    // Workflow code, and src/common that it shares with every other room.
    files: ['workflows/**/*.ts', 'src/common/**/*.ts'],
    rules: {
      'import-x/no-nodejs-modules': 'error',
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'Workflow code is deterministic: no node builtins.' },
            { group: ['zod', 'zod/*', 'openai', 'openai/*'], message: 'Workflow code works on the serializable spec.' },
            {
              // From workflows/ and from its folders (workflows/chain, guards, conversation) alike.
              group: ['../', '../../', '../../../'].flatMap((up) => [
                ...[
                  'agents',
                  'models',
                  'client',
                  'worker',
                  'cli',
                  'server',
                  'mcp',
                  'audit',
                  'devserver',
                  'payloads',
                ].map((dir) => `${up}src/${dir}/*`),
                `${up}activities/*`,
              ]),
              message: 'Workflows import only src/common.',
            },
          ],
        },
      ],
    },
  },
  {
    // Workers preload baton's workflow code once and every workflow in the worker shares it
    // (src/worker/bundle.ts): a module variable would be every run's at once.
    files: ['workflows/**/*.ts', 'src/common/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...[
          'Program > VariableDeclaration[kind!="const"]',
          'Program > ExportNamedDeclaration > VariableDeclaration[kind!="const"]',
        ].map((selector) => ({
          selector,
          message:
            "Workflow code is shared by every workflow in a worker: no module state. Keep a run's state in its own objects (or, as workflows/patches.ts does, in its globals).",
        })),
      ],
    },
  },
  {
    // The project keeps every module small enough to read at once; raw lines, so `wc -l` agrees.
    files: ['{src,workflows,activities,test,bench,drill,scripts,examples}/**/*.{ts,tsx,mts,mjs}', '*.{mts,mjs}'],
    rules: { 'max-lines': ['error', { max: 300, skipBlankLines: false, skipComments: false }] },
  },
  {
    files: ['scripts/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' }, sourceType: 'module' },
  },
  {
    // The command, and the tests' launcher of TypeScript processes (test/helpers/typescriptMain.cjs).
    files: ['bin/**/*.js', 'test/helpers/*.cjs'],
    languageOptions: {
      globals: { require: 'readonly', process: 'readonly', console: 'readonly', __dirname: 'readonly' },
      sourceType: 'commonjs',
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
