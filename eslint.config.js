// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const browserGlobals = Object.fromEntries(
  [
    'document',
    'window',
    'fetch',
    'EventSource',
    'localStorage',
    'FileReader',
    'setInterval',
    'clearInterval',
    'setTimeout',
    'clearTimeout',
    'console',
    'URL',
    'URLSearchParams',
    'history',
    'location',
    'performance',
    'requestAnimationFrame',
    'KeyboardEvent',
  ].map((name) => [name, 'readonly']),
);

export default tseslint.config(
  {
    ignores: ['node_modules/', 'dist/', '.data/', 'coverage/', '.serverless/', '.esbuild/', 'test-results/'],
  },
  js.configs.recommended,
  // TypeScript: type-checked rules over everything tsconfig.json covers.
  ...tseslint.configs.recommendedTypeChecked.map((config) => ({ ...config, files: ['**/*.ts'] })),
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // Plain JavaScript: Node.js scripts and config files.
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  // Browser scripts served as static assets.
  { files: ['src/**/assets/**/*.js'], languageOptions: { globals: browserGlobals } },
);
