// typescript-eslint's type-aware rules, on every `npm test` (npm run lint), beside Biome (which
// formats and holds the syntactic rules; those that both have are left to Biome here).
import tseslint from 'typescript-eslint';

const root = new URL('../..', import.meta.url).pathname;

export default tseslint.config(
  { ignores: ['dist/**', 'build/**', 'node_modules/**', 'tools/lint/**', 'test/fixtures/**', 'src/kube/protobuf/schema.generated.ts', '**/*.mjs'] },
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { project: `${root}tsconfig.json`, tsconfigRootDir: root } },
    rules: {
      // An async function that does not await is how the house turns a throw into a rejection.
      '@typescript-eslint/require-await': 'off',
      // Biome's noUnusedVariables and noUnusedImports hold this.
      '@typescript-eslint/no-unused-vars': 'off',
      // Biome's useConst holds this (and knows a binding read by a closure before it is assigned).
      'prefer-const': 'off',
      // Its verdicts come from TypeScript 6's inference, and the project compiles with 7: assertions
      // 7 needs (a literal widened inside a callback) are reported as unnecessary.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      // A rejection forwarded as it came (an `unknown` from a stream or a signal) keeps its reason.
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
    },
  },
  {
    // vitest's asymmetric matchers (expect.any, expect.objectContaining) are typed `any`, and a
    // test reads parsed JSON it then asserts on.
    files: ['**/*.test.ts', '**/*.test.tsx', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
);
