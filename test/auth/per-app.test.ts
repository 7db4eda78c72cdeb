// perApp: one state for every context of an app (the root, children, grandchildren under a
// prefix, fastify-plugin contexts), made once; another app gets its own.
import t from 'tap'
import Fastify from 'fastify'
import fp from 'fastify-plugin'
import { perApp } from '../../lib/auth/per-app.js'

t.test('every context of one app shares one state, made on first use; another app has its own', async (t) => {
  let made = 0
  const stateOf = perApp(() => ({ n: ++made }))
  const app = Fastify()
  const other = Fastify()
  t.teardown(() => Promise.all([app.close(), other.close()]))
  t.equal(made, 0, 'nothing made before it is asked for')
  const root = stateOf(app)
  const seen: unknown[] = []
  await app.register(async (child) => {
    seen.push(stateOf(child))
    await child.register(async (grandchild) => { seen.push(stateOf(grandchild)) }, { prefix: '/g' })
    await child.register(fp(async (same) => { seen.push(stateOf(same)) }))
  }, { prefix: '/c' })
  await app.ready()
  t.equal(seen.length, 3)
  for (const state of seen) t.equal(state, root)
  t.equal(made, 1)
  t.not(stateOf(other), root)
  t.equal(made, 2)
})
