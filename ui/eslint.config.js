// ESLint for the UI (STYLE.md 13: zero warnings): the TypeScript rules, the rules of hooks and
// the accessibility rules of jsx-a11y. `go tool task lint` runs it with --max-warnings 0.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'e2e-artifacts/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  jsxA11y.flatConfigs.recommended,
  {
    plugins: { 'react-hooks': reactHooks },
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      // The rules of hooks. The React Compiler's own rules (set-state-in-effect, refs, ...) are
      // left out: the UI does not use the compiler.
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
      // `{ [field]: _, ...rest }` drops a key on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Dialogs and the sign-in form focus their first field (spec 01; the WAI-ARIA dialog
      // pattern asks for it), so autoFocus stays where a form opens.
      'jsx-a11y/no-autofocus': 'off',
    },
  },
  // The browser tests and the build configuration run in Node.
  { files: ['e2e/**/*.mjs', '*.config.{js,ts}'], languageOptions: { globals: { ...globals.node } } },
);
