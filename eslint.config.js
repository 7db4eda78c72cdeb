// Lint: neostandard (the style of the Fastify ecosystem's plugins), with its TypeScript rules.
import neostandard from 'neostandard'

export default [
  ...neostandard({ ts: true, ignores: ['dist/**', 'coverage/**', '.tap/**', '.old/**', 'conformance/node_modules/**', 'bench/.build/**', 'bench/profiles/**'] }),
  {
    rules: {
      // `void value` as a statement marks a value as deliberately unused (type tests, fire-and-forget)
      'no-void': ['error', { allowAsStatement: true }]
    }
  }
]
