// Lint: neostandard (the style of the Fastify ecosystem's plugins), with its TypeScript rules.
import neostandard from 'neostandard'

export default [
  // tap-snapshots/: tap writes its snapshot files itself (test/e2e/probe.test.ts)
  ...neostandard({ ts: true, ignores: ['dist/**', 'coverage/**', '.tap/**', '.old/**', 'conformance/node_modules/**', 'bench/.build/**', 'bench/profiles/**', 'tap-snapshots/**'] }),
  {
    rules: {
      // `void value` as a statement marks a value as deliberately unused (type tests, fire-and-forget)
      'no-void': ['error', { allowAsStatement: true }]
    }
  }
]
