/**
 * What an OpenAPI generator (@fastify/swagger reads each route's `schema`) shows of the MCP
 * routes: by default nothing (`hide: true` on every route of ours), since the endpoint is one
 * JSON-RPC door, not a REST API, and its 405 twins are no API at all. With the `openapi` option,
 * the POST route is documented (a summary, a description, the request body's shape), and no
 * other: GET and DELETE only make sense to an MCP client.
 */

/** The `schema` of a route no OpenAPI document shows: a new object each time, since Fastify marks the schemas it visits. */
export function hidden (): { hide: true } {
  return { hide: true }
}

/** The `openapi` option once checked: false, or what the POST route's entry says. */
export type OpenApiDocs = false | { readonly summary: string, readonly description: string, readonly tags: readonly string[] | undefined }

/** A JSON-RPC message as the POST takes it: enough for a reader, checked by the plugin itself. */
const MESSAGE = {
  type: 'object',
  description: 'A JSON-RPC 2.0 message: a request (with id and method), a notification (method, no id), or a response to a question the server asked (id, and result or error)',
  required: ['jsonrpc'],
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    id: { type: ['string', 'integer'], description: 'The request id; absent on a notification' },
    method: { type: 'string', description: 'tools/call, tools/list, resources/read, initialize, …' },
    params: { type: 'object', additionalProperties: true },
    result: { type: 'object', additionalProperties: true },
    error: { type: 'object', additionalProperties: true }
  }
}

/** The POST route's `schema`: hidden, or documented. */
export function postSchema (docs: OpenApiDocs): Record<string, unknown> {
  if (docs === false) return hidden()
  return {
    summary: docs.summary,
    description: docs.description,
    ...(docs.tags === undefined ? {} : { tags: [...docs.tags] }),
    body: structuredClone(MESSAGE)
  }
}

/**
 * The POST route's validator: none. The body schema is documentation; the plugin checks every
 * message itself, with the JSON-RPC errors the spec asks for, and a batch of 2025-03-26 is an array.
 */
export const noValidation = (): (() => true) => () => true
