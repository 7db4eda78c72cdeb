/**
 * Who an HTTP request's caller is, as quotas count it (issue 40): the verified token's subject when
 * authorization is on, else the client's address (`request.ip`, which honours Fastify's
 * `trustProxy`: behind a proxy without it, every client is the proxy). An IPv6 address counts by its
 * /64 network: one host is handed a whole /64 and may send from any address in it, so its
 * addresses are one caller. Computed where a quota is checked (an `initialize`, a stream, a task,
 * a question), never on a plain call's path.
 */
import type { FastifyRequest } from 'fastify'

export function callerOf (request: FastifyRequest): string {
  const auth = request.mcpAuth
  return auth === null || auth === undefined ? `ip:${network(request.ip)}` : `sub:${auth.subject}`
}

/** An IPv4 address as it is (an IPv4-mapped IPv6 one as IPv4); an IPv6 address as its /64, `2001:db8:1:2::/64`. */
export function network (ip: string): string {
  if (!ip.includes(':')) return ip
  const address = ip.split('%')[0]!.toLowerCase()
  if (address.startsWith('::ffff:') && address.includes('.')) return address.slice(7)
  const [head = '', tail] = address.split('::')
  const front = head === '' ? [] : head.split(':')
  const back = tail === undefined || tail === '' ? [] : tail.split(':')
  // `::` stands for as many zero groups as the eight need; an embedded IPv4 tail is two groups, past the /64 anyway
  const groups = tail === undefined ? front : [...front, ...Array<string>(Math.max(0, 8 - front.length - back.length)).fill('0'), ...back]
  return `${groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, '')).join(':')}::/64`
}
