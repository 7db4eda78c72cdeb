// Who a caller is, as quotas count it (issue 40): a verified subject, else an address, and an IPv6
// address by its /64 (a host may send from any address of the /64 it was handed).
import t from 'tap'
import type { FastifyRequest } from 'fastify'
import { callerOf, network } from '../../lib/http/caller.js'

t.test('an address as a caller: IPv4 as it is, IPv6 by its /64', async (t) => {
  t.equal(network('203.0.113.5'), '203.0.113.5')
  t.equal(network('::ffff:10.0.0.1'), '10.0.0.1', 'IPv4-mapped is IPv4')
  t.equal(network('2001:db8:1:2:a:b:c:d'), '2001:db8:1:2::/64')
  t.equal(network('2001:db8:1:2::1'), '2001:db8:1:2::/64', 'another address of the same /64: the same caller')
  t.equal(network('2001:0DB8:0001:0002::'), '2001:db8:1:2::/64', 'leading zeros and case do not make another caller')
  t.equal(network('2001:db8::1'), '2001:db8:0:0::/64')
  t.equal(network('::1'), '0:0:0:0::/64')
  t.equal(network('fe80::1%eth0'), 'fe80:0:0:0::/64', 'a zone is not part of the address')
  t.not(network('2001:db8:1:3::1'), network('2001:db8:1:2::1'), 'another /64: another caller')
})

t.test('the caller: the verified subject, else the address', async (t) => {
  t.equal(callerOf({ mcpAuth: null, ip: '2001:db8:1:2::9' } as unknown as FastifyRequest), 'ip:2001:db8:1:2::/64')
  t.equal(callerOf({ mcpAuth: { subject: 'alice' }, ip: '198.51.100.1' } as unknown as FastifyRequest), 'sub:alice')
  t.equal(callerOf({ ip: '198.51.100.1' } as unknown as FastifyRequest), 'ip:198.51.100.1', 'outside the plugin\'s routes (no mcpAuth at all)')
})
