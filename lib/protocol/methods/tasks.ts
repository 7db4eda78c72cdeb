/**
 * Tasks on the wire (issue 13): how a `tools/call` becomes a task (`taskTtl`, `startTask`), and
 * `tasks/get`, `tasks/update`, `tasks/cancel` (both eras), `tasks/result` and `tasks/list`
 * (2025-11-25). The lifecycle is `tasks/lifecycle.ts`; questions inside a task, `tasks/questions.ts`.
 */
import { AccessRefusal, ProtocolError } from '../../errors.js'
import { INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, MISSING_CLIENT_CAPABILITY } from '../../spec/jsonrpc.js'
import { META_RELATED_TASK } from '../../spec/meta-keys.js'
import { legacyVersionsWith } from '../../spec/eras.js'
import { TASKS_EXTENSION } from '../../spec/tasks.js'
import { TERMINAL, type TaskAnswer, type TaskRecord } from '../../state/task-store.js'
import { describe, isObject } from '../../values.js'
import type { CompiledTool } from '../../define/tool.js'
import type { Call } from '../call.js'
import type { ServerContext } from '../server.js'
import { taskRefusalOf } from '../access-check.js'
import { resultJson } from '../results.js'
import { ownerOf } from '../tasks/records.js'
import type { Outcome } from '../tasks/transitions.js'
import { relay } from '../tasks/questions.js'
import { detailedTask, modernTask, taskWire } from '../tasks/wire.js'

/** The 2025 revisions with tasks, for the -32601 of older sessions (which ignore `params.task`: they never declared it). */
const TASKS_VERSIONS = legacyVersionsWith('tasks').join(', ')

/** Whether this 2026-07-28 request declared the tasks extension (per request: there is no session). */
export function declaresTasks (call: Call): boolean {
  const extensions = call.client.capabilities.extensions
  return isObject(extensions) && extensions[TASKS_EXTENSION] !== undefined
}

export function missingExtension (what: string): ProtocolError {
  return new ProtocolError(MISSING_CLIENT_CAPABILITY, `${what} needs the ${TASKS_EXTENSION} extension: declare it in the request's clientCapabilities.extensions`, 400, {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } }
  })
}

/** The `ttl` a `params.task` asks for, or -32602 naming what is wrong. */
function requestedTtl (tool: CompiledTool, task: unknown): number | undefined {
  if (!isObject(task)) throw new ProtocolError(INVALID_PARAMS, `Invalid params: "task" of tools/call '${tool.name}' must be an object ({ ttl? }), got ${describe(task)}`)
  const ttl = task.ttl
  if (ttl === undefined || ttl === null) return undefined
  if (!(Number.isInteger(ttl) && (ttl as number) >= 0)) {
    throw new ProtocolError(INVALID_PARAMS, `Invalid params: "task.ttl" of tools/call '${tool.name}' must be a non-negative integer (milliseconds), got ${describe(ttl)}`)
  }
  return ttl as number
}

/**
 * Decides how a `tools/call` runs: undefined to run it inline as usual, or the ttl of the task it
 * becomes. Throws the spec's error for a call that asks a task of a tool that takes none, or none
 * of a tool that runs only as one.
 */
export function taskTtl (server: ServerContext, call: Call, tool: CompiledTool): number | undefined {
  if (call.era === 'modern') {
    // server-directed: a task tool runs as a task for every request that declared the extension,
    // and never for one that did not (a required one is then -32021);
    // params.task is a 2025 field: it promotes nothing here
    if (tool.task === undefined) return undefined
    if (!declaresTasks(call)) {
      if (tool.task === 'required') throw missingExtension(`Tool '${tool.name}' runs only as a task, which`)
      return undefined
    }
    return server.tasks.grant(undefined)
  }
  // older sessions never saw the tasks capability: a task request is an ordinary one there
  if (!call.rules.tasks) return undefined
  const asked = call.params.task
  if (asked === undefined) {
    if (tool.task === 'required') throw new ProtocolError(METHOD_NOT_FOUND, `Tool '${tool.name}' runs only as a task: call it with params.task (its execution.taskSupport is "required")`)
    return undefined
  }
  if (tool.task === undefined) throw new ProtocolError(METHOD_NOT_FOUND, `Tool '${tool.name}' does not run as a task: call it without params.task (its execution.taskSupport is "forbidden")`)
  return server.tasks.grant(requestedTtl(tool, asked))
}

/** Creates the task (durably) and returns the era's `CreateTaskResult` as JSON text. */
export async function startTask (
  server: ServerContext, call: Call, ttl: number, work: (signal: AbortSignal, taskId: string) => Promise<Outcome>
): Promise<string> {
  let record: TaskRecord | undefined
  try {
    record = await server.tasks.start(call, ttl, work)
  } catch (err) {
    if (err instanceof ProtocolError) throw err // the store is unreachable (503), or a quota refused the task (429/503)
    call.transport.log.error({ err }, 'fastify-sake: the task store failed to create a task')
    throw new ProtocolError(INTERNAL_ERROR, 'Internal error: the task could not be created')
  }
  if (record === undefined) throw new ProtocolError(INTERNAL_ERROR, 'Internal error: the server is closing and starts no task; try again later')
  if (call.era === 'modern') return resultJson(server, 'modern', { resultType: 'task', ...modernTask(record) })
  return JSON.stringify({ task: taskWire(record) })
}

/** 2026-07-28: the extension declared, a string taskId, and the caller's own task, or the spec's error. */
async function modernRecord (server: ServerContext, call: Call): Promise<TaskRecord> {
  if (!declaresTasks(call)) throw missingExtension(call.method)
  return await recordOf(server, call)
}

/** 2026-07-28 `tasks/get`: the `DetailedTask` (`inputRequests`, `result` or `error` by status). */
export async function getModernTask (server: ServerContext, call: Call): Promise<string> {
  return resultJson(server, 'modern', detailedTask(await modernRecord(server, call)))
}

/**
 * 2026-07-28 `tasks/update`: the answers to the task's questions, then an empty ack. An answer
 * to a key the task does not wait on (never asked, answered already) is ignored, as the extension
 * says; one that is not a result object is -32602 naming its key.
 */
export async function updateModernTask (server: ServerContext, call: Call): Promise<string> {
  const record = await modernRecord(server, call)
  const responses = call.params.inputResponses
  if (!isObject(responses)) throw new ProtocolError(INVALID_PARAMS, `Invalid params: tasks/update needs "inputResponses" as an object, got ${describe(responses)}`)
  const answers: Record<string, TaskAnswer> = {}
  for (const key of Object.keys(record.inputRequests ?? {})) {
    if (!Object.hasOwn(responses, key)) continue
    const response = responses[key]
    if (!isObject(response)) throw new ProtocolError(INVALID_PARAMS, `Invalid params: inputResponses["${key}"] must be the client's result for ${record.inputRequests![key]!.method}, got ${describe(response)}`)
    answers[key] = { result: response }
  }
  await server.tasks.answer(record.taskId, answers)
  return resultJson(server, 'modern', {})
}

/** 2026-07-28 `tasks/cancel`: an empty ack, also for a task already terminal (cooperative, idempotent). */
export async function cancelModernTask (server: ServerContext, call: Call): Promise<string> {
  const record = await modernRecord(server, call)
  await server.tasks.cancel(record.taskId)
  return resultJson(server, 'modern', {})
}

/** Tasks methods exist in 2025-11-25 sessions only. */
function guard (call: Call): void {
  if (!call.rules.tasks) throw new ProtocolError(METHOD_NOT_FOUND, `Method not found: ${call.method} (tasks need protocol version ${TASKS_VERSIONS})`)
}

function taskIdOf (call: Call): string {
  const taskId = call.params.taskId
  if (typeof taskId !== 'string') throw new ProtocolError(INVALID_PARAMS, `Invalid params: ${call.method} needs "taskId" as a string, got ${describe(taskId)}`)
  return taskId
}

function unknownTask (taskId: string): ProtocolError {
  return new ProtocolError(INVALID_PARAMS, `Invalid params: unknown task ${JSON.stringify(taskId)} (it never existed, expired, or is not yours)`)
}

/**
 * The caller's own record, or -32602: another principal's task is as unknown as a made-up id. With
 * a caller known, the token must also do what the task's tool call asked (scopes, step-up), or it
 * gets that call's own refusal (403/401 and its challenge over HTTP), before anything of the task
 * is answered or a stream opens.
 */
async function recordOf (server: ServerContext, call: Call): Promise<TaskRecord> {
  const taskId = taskIdOf(call)
  const record = await server.tasks.find(call, taskId)
  if (record === undefined) throw unknownTask(taskId)
  const refusal = refusalFor(server, call, record)
  if (refusal !== undefined) {
    // as the edge logs a refused call: who was refused what, at info; never the task id, which
    // the message of an unknown tool holds
    const why = refusal instanceof AccessRefusal ? refusal.message : 'the tool that made the task is not served here'
    call.transport.log.info({ subject: call.auth!.subject, tool: record.tool }, `fastify-sake: refused ${call.method}: ${why}`)
    throw refusal
  }
  return record
}

/** Why this call's caller may not read `record` (`protocol/access-check.ts`); never with no caller known (auth off, stdio without `caller`). */
function refusalFor (server: ServerContext, call: Call, record: TaskRecord): ProtocolError | undefined {
  return call.auth === undefined ? undefined : taskRefusalOf(server.registry, record, call.auth, server.clockSkew)
}

/** Whether this call's caller may read `record`: `tasks/list` and a listen's `taskIds` leave out the others. */
export function readable (server: ServerContext, call: Call, record: TaskRecord): boolean {
  return refusalFor(server, call, record) === undefined
}

export async function getTask (server: ServerContext, call: Call): Promise<string> {
  guard(call)
  return JSON.stringify(taskWire(await recordOf(server, call)))
}

/** Blocks until the task is terminal, then answers what the tool call would have answered. */
export async function taskResult (server: ServerContext, call: Call): Promise<string> {
  guard(call)
  let record = await recordOf(server, call)
  if (!TERMINAL.has(record.status)) {
    // the task's questions travel on this stream while it waits
    const ended = await relay(server.tasks, call, record)
    // the caller went away (nobody reads this answer), or the record was dropped meanwhile
    if (ended === undefined) throw unknownTask(record.taskId)
    record = ended
  }
  const related = { [META_RELATED_TASK]: { taskId: record.taskId } }
  if (record.result !== undefined) {
    const meta = isObject(record.result._meta) ? record.result._meta : {}
    return JSON.stringify({ ...record.result, _meta: { ...meta, ...related } })
  }
  // a failed task has its JSON-RPC error (a crash, an expiry) or its result (a tool error); a cancelled one neither
  const error = record.error ?? { code: INTERNAL_ERROR, message: `Task ${record.taskId} was cancelled` }
  throw new ProtocolError(error.code, error.message, 200, { ...(isObject(error.data) ? error.data : {}), _meta: related })
}

export async function listTasks (server: ServerContext, call: Call): Promise<string> {
  guard(call)
  const cursor = call.params.cursor
  if (cursor !== undefined && typeof cursor !== 'string') throw new ProtocolError(INVALID_PARAMS, `Invalid params: "cursor" must be a string, got ${describe(cursor)}`)
  const page = await server.tasks.store.list(ownerOf(call), cursor, server.tasks.pageSize)
  if (page === undefined) throw new ProtocolError(INVALID_PARAMS, `Invalid params: unknown cursor ${JSON.stringify(cursor)}; start again without a cursor`)
  // a page may come out shorter than pageSize (tasks of tools this token may not call are left
  // out): its nextCursor still says whether more follow
  const result: Record<string, unknown> = { tasks: page.tasks.filter((record) => readable(server, call, record)).map(taskWire) }
  if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor
  return JSON.stringify(result)
}

export async function cancelTask (server: ServerContext, call: Call): Promise<string> {
  guard(call)
  const record = await recordOf(server, call)
  const cancelled = await server.tasks.cancel(record.taskId)
  // read back: the terminal status that won, or the cancelled task with its lastUpdatedAt
  const current = await server.tasks.find(call, record.taskId)
  // the record vanished between two reads (its ttl ended in between): the memory store keeps a
  // terminal record at least until its ttl, so only a networked store gets here
  /* c8 ignore next */
  if (current === undefined) throw unknownTask(record.taskId)
  if (!cancelled) throw new ProtocolError(INVALID_PARAMS, `Invalid params: task ${JSON.stringify(record.taskId)} is already ${current.status} and cannot be cancelled`)
  return JSON.stringify(taskWire(current))
}
