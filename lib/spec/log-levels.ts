/** MCP's log levels (RFC 5424's, as `logging/setLevel` and `notifications/message` use them). */

/** Least severe first. */
export const LOG_LEVELS = Object.freeze(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const)

/** An MCP log level. */
export type LogLevel = typeof LOG_LEVELS[number]

/** Each level's severity, increasing. */
export const SEVERITY: Readonly<Record<string, number>> = Object.freeze(Object.fromEntries(LOG_LEVELS.map((level, i) => [level, i])))
