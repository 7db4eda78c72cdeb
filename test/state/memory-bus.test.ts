// MemoryBus, the default bus, beyond the Bus contract (test/state/bus.test.ts): size counts the
// subscriptions, and close drops them all.
import t from 'tap'
import { MemoryBus } from '../../lib/state/memory-bus.js'

t.test('MemoryBus: size counts subscriptions (the same function twice is two); close drops them all', async (t) => {
  const bus = new MemoryBus()
  const got: string[] = []
  const listener = (e: any): void => { got.push(e.list) }
  const offA = bus.subscribe(listener)
  bus.subscribe(listener)
  const offSelf = bus.subscribe(() => { offSelf() })
  t.equal(bus.size, 3)
  bus.publish({ type: 'listChanged', list: 'tools' })
  t.equal(bus.size, 2, 'the listener that unsubscribed while delivered is gone')
  offA()
  t.equal(bus.size, 1)
  bus.close()
  t.equal(bus.size, 0)
  bus.publish({ type: 'listChanged', list: 'prompts' })
  t.same(got, ['tools', 'tools'], 'nothing delivered after close')
})
