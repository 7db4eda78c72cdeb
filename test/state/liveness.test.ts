// The in-memory liveness (issue 29): one instance alone, always alive, which nobody takes over; it
// records nothing. The Redis one, with its heartbeats, is test/state/redis/liveness.test.ts.
import t from 'tap'
import { MemoryLiveness } from '../../lib/state/liveness.js'

t.test('alone: alive, whatever the id asked about; what it owns is not recorded; nobody to take over', async (t) => {
  const liveness = new MemoryLiveness('only')
  t.equal(liveness.instance, 'only')
  t.equal(liveness.alive(), true)
  liveness.own()
  liveness.release()
  t.same(liveness.takeOver(), [])
  t.equal(liveness.takenOver(), undefined, 'nothing to forget')
})
