/** The `_meta` keys the server reads and writes: the 2026-07-28 revision's, and the one of our own. */

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion'
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities'
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo'
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel'
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo'
/** Tags every notification of a `subscriptions/listen` stream with the listen request's id. */
export const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId'

/** The key a 2025 question carries in its `_meta` (the project's reverse-DNS prefix). */
export const META_INPUT_KEY = 'io.github.fastify-sake/key'
/** 2025-11-25 tasks: ties a message to its task (`tasks/result`, a task's questions). */
export const META_RELATED_TASK = 'io.modelcontextprotocol/related-task'
