// The method table: one row per method, the facts every layer reads from it.
import t from 'tap'
import { CALL_TOOL, METHODS, NAME_SOURCE, factsOf } from '../../lib/spec/methods.js'

t.test('each row says which eras serve the method', async (t) => {
  t.match(factsOf('tools/call'), { modern: true, legacy: true, target: 'tool', mcpName: 'name', logged: 'name', asks: true, streams: true })
  t.match(factsOf('server/discover'), { modern: true, legacy: false })
  t.match(factsOf('initialize'), { modern: false, legacy: true, handshake: true })
  t.match(factsOf('subscriptions/listen'), { modern: true, legacy: false, listens: true })
  t.match(factsOf('tasks/result'), { modern: false, legacy: true, asks: true })
  for (const facts of METHODS.values()) t.ok(facts.modern || facts.legacy, `${facts.method} is served by some era`)
  t.ok(Object.isFrozen(factsOf('tools/call')), 'a row cannot be changed')
})

t.test('a client\'s method name is looked up, never an inherited property', async (t) => {
  for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'nope/nope']) t.equal(factsOf(name), undefined, name)
})

t.test('NAME_SOURCE: the fields Mcp-Name mirrors, the client\'s view of the same rows', async (t) => {
  t.same(NAME_SOURCE, {
    'tools/call': 'name',
    'resources/read': 'uri',
    'prompts/get': 'name',
    'tasks/get': 'taskId',
    'tasks/update': 'taskId',
    'tasks/cancel': 'taskId'
  })
  t.ok(Object.isFrozen(NAME_SOURCE))
  t.equal(CALL_TOOL, 'tools/call')
})

t.test('a logged name is never a task id, and only a named item is logged', async (t) => {
  for (const facts of METHODS.values()) {
    if (facts.logged !== undefined) t.ok(facts.target !== undefined, `${facts.method} logs what it names`)
    if (facts.mcpName === 'taskId') t.equal(facts.logged, undefined, `${facts.method} does not log its task id`)
  }
})
