// MemoryBus, the default bus: every subscriber gets each event, and unsubscribing (even during
// delivery) removes one.
import t from 'tap'
import { MemoryBus } from '../../lib/state/memory-bus.js'

t.test('MemoryBus: every subscriber gets each event; unsubscribe (even during delivery) removes one', async (t) => {
  const bus = new MemoryBus()
  const got: string[] = []
  const listener = (e: any): void => { got.push(e.list) }
  const offA = bus.subscribe(listener)
  const offB = bus.subscribe(listener)
  const offSelf = bus.subscribe(() => { offSelf() })
  t.equal(bus.size, 3)
  bus.publish({ type: 'listChanged', list: 'tools' })
  t.same(got, ['tools', 'tools'], 'the same function twice is two subscriptions')
  t.equal(bus.size, 2)
  offA()
  bus.publish({ type: 'listChanged', list: 'prompts' })
  t.same(got, ['tools', 'tools', 'prompts'])
  offB()
  bus.close()
  t.equal(bus.size, 0)
})
