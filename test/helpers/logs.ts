// A Fastify logger that keeps what was logged, so a test can say what was (and was not) logged.
import type { Logger } from '../../lib/spec/types.js'

export interface LogLine {
  level: number
  msg?: string
  [key: string]: unknown
}

export interface CapturedLog {
  /** The Fastify `logger` option: pino at `level`, writing to `lines`. */
  logger: { level: string, stream: { write (line: string): void } }
  /** Every line logged, parsed, in order. */
  lines: LogLine[]
  /** The lines at error level or above. */
  errors (): LogLine[]
}

/** A captured log at `level` (default 'debug'; 'info' or 'warn' keep only what those levels let through). */
export function captureLog (options: { level?: string } = {}): CapturedLog {
  const { level = 'debug' } = options
  const lines: LogLine[] = []
  return {
    logger: { level, stream: { write: (line: string) => { lines.push(JSON.parse(line)) } } },
    lines,
    errors: () => lines.filter((line) => line.level >= 50)
  }
}

/** A logger that drops everything (the protocol core's `Logger`), for code under test that must be given one. */
export const quiet: Logger = { trace () {}, debug () {}, info () {}, warn () {}, error () {}, fatal () {}, child: () => quiet } as unknown as Logger
