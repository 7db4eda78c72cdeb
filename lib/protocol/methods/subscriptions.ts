/**
 * Change notifications: legacy `resources/subscribe` and `resources/unsubscribe` (the URIs a 2025
 * session wants `notifications/resources/updated` for, kept in the session), and the filter of a
 * modern `subscriptions/listen`.
 */
import { ProtocolError } from '../../errors.js'
import { INVALID_PARAMS } from '../../spec/jsonrpc.js'
import type { Call } from '../call.js'
import type { ServerContext } from '../server.js'
import { declaresTasks, missingExtension, readable } from './tasks.js'

function uriOf (call: Call): string {
  const uri = call.params.uri
  if (typeof uri !== 'string' || uri.length === 0) {
    throw new ProtocolError(INVALID_PARAMS, `Invalid params: ${call.method} needs "uri", the resource's URI, as a non-empty string`)
  }
  return uri
}

/** `resources/subscribe {uri}` → `{}`; the session then gets updates for that URI on its GET stream. */
export async function subscribe (server: ServerContext, call: Call): Promise<string> {
  const uri = uriOf(call)
  const session = call.session!
  const current = session.subscriptions ?? []
  if (!current.includes(uri)) {
    const subscriptions = [...current, uri]
    // the session keeps its subscriptions: within sessions.maxSize, as what its initialize sent
    const size = Buffer.byteLength(JSON.stringify({ ...session, subscriptions }))
    if (size > server.sessionMaxSize) {
      throw invalid(`subscribing to ${JSON.stringify(uri)} would make this session ${size} bytes, more than sessions.maxSize (${server.sessionMaxSize}) allows; unsubscribe from resources it no longer needs`)
    }
    session.subscriptions = subscriptions
    await server.sessions.set(session)
  }
  return '{}'
}

/** `resources/unsubscribe {uri}` → `{}`, whether or not the session was subscribed. */
export async function unsubscribe (server: ServerContext, call: Call): Promise<string> {
  const uri = uriOf(call)
  const session = call.session!
  const current = session.subscriptions ?? []
  if (current.includes(uri)) {
    session.subscriptions = current.filter((one) => one !== uri)
    await server.sessions.set(session)
  }
  return '{}'
}

/** What a `subscriptions/listen` stream delivers: the filter the server honours. */
export interface SubscriptionFilter {
  toolsListChanged?: true
  promptsListChanged?: true
  resourcesListChanged?: true
  resourceSubscriptions?: string[]
  /** Tasks (the extension): the caller's own tasks whose changes it gets as `notifications/tasks`. */
  taskIds?: string[]
}

const FLAGS = ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const

/** The most resource URIs, or task ids, one listen takes: each task id is a store read when it opens. */
export const MAX_LISTED = 1000

function invalid (message: string): ProtocolError {
  return new ProtocolError(INVALID_PARAMS, `Invalid params: ${message}`)
}

/**
 * Reads `params.notifications` of `subscriptions/listen` and returns the subset we honour (what the
 * acknowledgement echoes): the three list flags when true, and the resource URIs. Types we do not
 * know are left out, as the spec asks; a known field of the wrong type is -32602. `taskIds` is the
 * tasks extension's (`listenFilter` checks it).
 */
export function readFilter (params: Record<string, unknown>): SubscriptionFilter {
  const filter = params.notifications
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
    throw invalid('subscriptions/listen needs "notifications", an object such as {"toolsListChanged": true}')
  }
  const given = filter as Record<string, unknown>
  const honoured: SubscriptionFilter = {}
  for (const flag of FLAGS) {
    const value = given[flag]
    if (value === undefined) continue
    if (typeof value !== 'boolean') throw invalid(`notifications.${flag} must be a boolean, got ${JSON.stringify(value)}`)
    if (value) honoured[flag] = true
  }
  const uris = given.resourceSubscriptions
  if (uris !== undefined) {
    if (!Array.isArray(uris) || !uris.every((uri) => typeof uri === 'string' && uri.length > 0)) {
      throw invalid('notifications.resourceSubscriptions must be an array of resource URIs (non-empty strings)')
    }
    if (uris.length > MAX_LISTED) throw invalid(`notifications.resourceSubscriptions lists ${uris.length} URIs, more than one listen takes (${MAX_LISTED})`)
    if (uris.length > 0) honoured.resourceSubscriptions = [...new Set(uris as string[])]
  }
  const taskIds = given.taskIds
  if (taskIds !== undefined) {
    if (!Array.isArray(taskIds) || !taskIds.every((id) => typeof id === 'string')) throw invalid('notifications.taskIds must be an array of task ids (strings)')
    // each id is a read of the task store when the listen opens: no more than a listen takes
    if (taskIds.length > MAX_LISTED) throw invalid(`notifications.taskIds lists ${taskIds.length} tasks, more than one listen takes (${MAX_LISTED})`)
    honoured.taskIds = [...new Set(taskIds as string[])]
  }
  return honoured
}

/**
 * The filter of a `subscriptions/listen` request: `readFilter`, with `taskIds` narrowed to the
 * caller's own tasks that its token may read (another's, an unknown id, or one of a tool whose
 * scope or step-up the token lacks, is left out of the acknowledgement, as the extension lets a
 * server choose), and -32021 when it asks for tasks without declaring the extension.
 */
export async function listenFilter (server: ServerContext, call: Call): Promise<SubscriptionFilter> {
  const filter = readFilter(call.params)
  if (filter.taskIds === undefined) return filter
  if (!declaresTasks(call)) throw missingExtension('notifications.taskIds of subscriptions/listen')
  const own: string[] = []
  for (const taskId of filter.taskIds) {
    // its notifications carry what tasks/get answers: only tasks this token may read
    const record = await server.tasks.find(call, taskId)
    if (record !== undefined && readable(server, call, record)) own.push(taskId)
  }
  if (own.length > 0) filter.taskIds = own
  else delete filter.taskIds
  return filter
}
