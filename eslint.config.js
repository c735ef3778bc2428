// Lint config for every package: the recommended JS and TypeScript rules, without type-aware rules
// so that `npm test` stays fast on two cores (tsc -b does the type checking).
import js from '@eslint/js'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/',
      '**/dist/',
      '**/.next/',
      '**/.data/',
      '**/data/',
      'test-artifacts/',
      '**/*.generated.*',
      'dev-app/src/app/(payload)/admin/importMap.js',
      '**/ui/assets/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
      // Prettier (printWidth 160) wraps code; what it cannot wrap is text: long messages, test titles, SQL and
      // YAML in strings or templates, URLs and regexes. Comments are wrapped by hand.
      'max-len': ['error', { code: 160, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true }],
    },
  },
  {
    files: ['**/test/**/*.ts', 'bench/**', 'test/**'],
    languageOptions: { globals: { ...globals.mocha } },
    rules: { '@typescript-eslint/no-unused-expressions': 'off' },
  },
)
