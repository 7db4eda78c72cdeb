/**
 * Every error fastify-sake raises on purpose, the one module code and users import them from, by
 * concern:
 *
 * - `errors/registration.ts`: registration and configuration mistakes (`SakeError` subclasses with a
 *   `SAKE_ERR_*` code, and `errorCodes`), so a wrong setup never starts serving;
 * - `errors/protocol.ts`: protocol errors (`ProtocolError`: a JSON-RPC code plus an HTTP status) and
 *   the refusals of requests (a store down, shutting down, a quota, a `requestState`);
 * - `errors/auth.ts`: authorization's refusals;
 * - `errors/handler.ts`: what a tool throws (`ToolError`, sent as a result with `isError: true`) or
 *   meets (a question to the client that got no answer).
 *
 * The internal ones (not exported from the package: refusals the edge turns into answers, a task's
 * question that was not asked or not answered) are marked so, each in its family. The client's errors
 * are in `client/errors.ts`, beside the client; its option error, `SakeClientOptionError`, is with
 * the other codes.
 *
 * The codes are API: `docs/errors.md` lists each one, and a test keeps the two in step.
 */
export * from './errors/registration.js'
export * from './errors/protocol.js'
export * from './errors/auth.js'
export * from './errors/handler.js'
