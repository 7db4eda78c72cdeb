// The bus and events options: checked at registration like every other option.
import t from 'tap'
import { build } from '../helpers/app.js'

t.test('bus and events.store must implement their contracts', async (t) => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ bus: class {} }, /^fastify-sake: option 'bus' must be a Bus instance \(new MyStore\(\)\), not a class or a function/],
    [{ bus: 'redis' }, /^fastify-sake: option 'bus' must be a Bus object with publish, subscribe methods/],
    [{ bus: { publish () {} } }, /option 'bus' must implement Bus \(publish, subscribe and optionally close\): its 'subscribe' method is missing/],
    [{ bus: { publish () {}, subscribe () {}, close: 1 } }, /its 'close' method is not a function \(got 1 \(number\)\)/],
    [{ events: { store: { append () {} } } }, /option 'events.store' must implement EventStore \(append, replay and optionally close\): its 'replay' method is missing/],
    [{ events: [] }, /option 'events' must be an object \{ store\?, maxPerStream\?, maxEvents\?, idleTimeout\? \}/],
    [{ events: { maxPerstream: 3 } }, /unknown option 'events.maxPerstream' \(did you mean 'events.maxPerStream'\?\)/],
    [{ events: { maxEvents: 0 } }, /option 'events.maxEvents' must be an integer >= 1 \(events\), got 0/],
    [{ events: { idleTimeout: 1.5 } }, /option 'events.idleTimeout' must be an integer >= 1 \(milliseconds\)/]
  ]
  for (const [options, message] of cases) {
    await t.rejects(build(options as any), { code: 'SAKE_ERR_INVALID_OPTION', message }, JSON.stringify(Object.keys(options)))
  }
  const ok = await build({ events: { maxPerStream: 5, maxEvents: 50, idleTimeout: 1000 } })
  await ok.close()
})
