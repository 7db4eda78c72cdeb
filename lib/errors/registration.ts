/**
 * Registration and configuration mistakes: `SakeError` subclasses with a `SAKE_ERR_*` code, thrown
 * from `register`, `registerTool`, `defineTool` or `createClient` so that a wrong setup never starts
 * serving. The codes are API: `docs/errors.md` lists each one, and a test keeps the two in step.
 */

/** Base class of every registration and configuration error; `code` is stable API. */
export class SakeError extends Error {
  readonly code: string

  constructor (code: string, message: string) {
    super(message)
    this.name = new.target.name
    this.code = code
  }
}

/** A plugin option is missing, unknown or of the wrong shape (`SAKE_ERR_INVALID_OPTION`). */
export class SakeOptionError extends SakeError {
  constructor (message: string) {
    super('SAKE_ERR_INVALID_OPTION', message)
  }
}

/** A tool definition is invalid (`SAKE_ERR_INVALID_TOOL`). */
export class SakeToolDefinitionError extends SakeError {
  constructor (message: string) {
    super('SAKE_ERR_INVALID_TOOL', message)
  }
}

/** An argument's `header` / `x-mcp-header` breaks a rule of SEP-2243 (`SAKE_ERR_INVALID_HEADER`). */
export class SakeHeaderDefinitionError extends SakeError {
  constructor (message: string) {
    super('SAKE_ERR_INVALID_HEADER', message)
  }
}

/** A second tool with a name already registered on this server (`SAKE_ERR_DUPLICATE_TOOL`). */
export class SakeDuplicateToolError extends SakeError {
  constructor (name: string) {
    super('SAKE_ERR_DUPLICATE_TOOL',
      `a tool named '${name}' is already registered on this MCP server; tool names must be unique`)
  }
}

/** A resource or resource template definition is invalid (`SAKE_ERR_INVALID_RESOURCE`). */
export class SakeResourceDefinitionError extends SakeError {
  constructor (message: string) {
    super('SAKE_ERR_INVALID_RESOURCE', message)
  }
}

/** A prompt definition is invalid (`SAKE_ERR_INVALID_PROMPT`). */
export class SakePromptDefinitionError extends SakeError {
  constructor (message: string) {
    super('SAKE_ERR_INVALID_PROMPT', message)
  }
}

/** A second resource with a URI (or template) already registered (`SAKE_ERR_DUPLICATE_RESOURCE`). */
export class SakeDuplicateResourceError extends SakeError {
  constructor (uri: string) {
    super('SAKE_ERR_DUPLICATE_RESOURCE',
      `a resource '${uri}' is already registered on this MCP server; resource URIs and URI templates must be unique`)
  }
}

/** A second prompt with a name already registered (`SAKE_ERR_DUPLICATE_PROMPT`). */
export class SakeDuplicatePromptError extends SakeError {
  constructor (name: string) {
    super('SAKE_ERR_DUPLICATE_PROMPT',
      `a prompt named '${name}' is already registered on this MCP server; prompt names must be unique`)
  }
}

/**
 * A skill cannot be served (`SAKE_ERR_INVALID_SKILL`): its path, a file's path or size, its
 * `SKILL.md` frontmatter (not YAML, no `name` equal to its folder, no `description`), a folder
 * that holds no skill, or a skill already registered at that path. The message names the skill or
 * the file on disk, and what to change.
 */
export class SakeSkillDefinitionError extends SakeError {
  constructor (message: string) {
    super('SAKE_ERR_INVALID_SKILL', message)
  }
}

/** `registerTool` called once the server is ready: lists are frozen then (`SAKE_ERR_REGISTER_AFTER_READY`). */
export class SakeRegisterAfterReadyError extends SakeError {
  constructor (what: string) {
    super('SAKE_ERR_REGISTER_AFTER_READY', `cannot register ${what} after the server is ready; ` +
      'register every tool, resource and prompt before app.ready() or app.listen()')
  }
}

/**
 * A route's `config.mcp` cannot make it a tool (`SAKE_ERR_INVALID_ROUTE_TOOL`): its schema is one
 * MCP cannot express (a body that is not an object, multipart, required headers), a name comes
 * from two parts of the request, or `config.mcp` itself is wrong. The message names the route.
 */
export class SakeRouteToolError extends SakeError {
  constructor (message: string) {
    super('SAKE_ERR_INVALID_ROUTE_TOOL', message)
  }
}

/**
 * An option of `createClient` (`fastify-sake/client`) is missing, unknown or of the wrong shape
 * (`SAKE_ERR_INVALID_CLIENT_OPTION`): thrown by `createClient` itself, before any request.
 */
export class SakeClientOptionError extends SakeError {
  constructor (message: string) {
    super('SAKE_ERR_INVALID_CLIENT_OPTION', message)
  }
}

/**
 * Each code above and its class, as `fastify.errorCodes` keys Fastify's own: `err instanceof
 * errorCodes.SAKE_ERR_DUPLICATE_TOOL`, `err.code in errorCodes`, `Object.keys(errorCodes)`.
 */
export const errorCodes = Object.freeze({
  SAKE_ERR_INVALID_OPTION: SakeOptionError,
  SAKE_ERR_INVALID_TOOL: SakeToolDefinitionError,
  SAKE_ERR_INVALID_HEADER: SakeHeaderDefinitionError,
  SAKE_ERR_DUPLICATE_TOOL: SakeDuplicateToolError,
  SAKE_ERR_INVALID_RESOURCE: SakeResourceDefinitionError,
  SAKE_ERR_INVALID_PROMPT: SakePromptDefinitionError,
  SAKE_ERR_DUPLICATE_RESOURCE: SakeDuplicateResourceError,
  SAKE_ERR_DUPLICATE_PROMPT: SakeDuplicatePromptError,
  SAKE_ERR_INVALID_SKILL: SakeSkillDefinitionError,
  SAKE_ERR_REGISTER_AFTER_READY: SakeRegisterAfterReadyError,
  SAKE_ERR_INVALID_ROUTE_TOOL: SakeRouteToolError,
  SAKE_ERR_INVALID_CLIENT_OPTION: SakeClientOptionError
} as const)

/** A code of `errorCodes`. */
export type SakeErrorCode = keyof typeof errorCodes
