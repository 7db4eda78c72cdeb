/**
 * What a handler can ask the client for mid-call (elicitation, sampling, roots), as users see it:
 * the methods on `ctx` and the outcomes they resolve to. The same calls work in both eras; how the
 * question travels (a multi round-trip request, or a request on a 2025 session's stream) is the
 * plugin's business (`protocol/input/`).
 */
import type { AnySchema, SchemaOutput } from './schemas.js'

/** The client did not declare the capability (or its protocol revision lacks it): the tool decides. */
export interface Unsupported { readonly action: 'unsupported' }
/** The person said no. */
export interface Declined { readonly action: 'decline' }
/** The person dismissed the question without choosing. */
export interface Cancelled { readonly action: 'cancel' }

/** The answer to a form: `content` follows the requested schema (typed when it is a TypeBox schema). */
export type FormOutcome<T> = { readonly action: 'accept', readonly content: T } | Declined | Cancelled | Unsupported

/** The answer to a URL elicitation: `accept` means the person agreed to open it (nothing more is known). */
export type UrlOutcome = { readonly action: 'accept' } | Declined | Cancelled | Unsupported

/** A message of a sampling conversation (the spec's `SamplingMessage`). */
export interface SamplingMessage {
  role: 'user' | 'assistant'
  content: Record<string, unknown> | Array<Record<string, unknown>>
  [key: string]: unknown
}

/** `sampling/createMessage` parameters (the spec's `CreateMessageRequestParams`). */
export interface SamplingParams {
  messages: SamplingMessage[]
  maxTokens: number
  systemPrompt?: string
  modelPreferences?: Record<string, unknown>
  temperature?: number
  stopSequences?: string[]
  includeContext?: 'none' | 'thisServer' | 'allServers'
  metadata?: Record<string, unknown>
  [key: string]: unknown
}

/** What the client's model answered (the spec's `CreateMessageResult`). */
export interface SampledMessage {
  role: 'user' | 'assistant'
  content: Record<string, unknown> | Array<Record<string, unknown>>
  model: string
  stopReason?: string
  [key: string]: unknown
}

export type SampleOutcome = { readonly action: 'accept', readonly message: SampledMessage } | Unsupported

/** One root the client exposes (the spec's `Root`). */
export interface Root {
  uri: string
  name?: string
  [key: string]: unknown
}

export type RootsOutcome = { readonly action: 'accept', readonly roots: Root[] } | Unsupported

/** The content type of a form: its schema's type (a library's output), or a plain record for a plain JSON Schema. */
export type FormContent<S> = S extends AnySchema ? SchemaOutput<S> : Record<string, unknown>

/** The options of `ctx.elicit.form`. */
export interface FormOptions {
  /**
   * String properties of the form that ask for one of the handler's own arguments (a tool's or a
   * prompt's, a template's variable), by name: each offers the values its `complete` gives for it
   * (nothing typed, the call's other arguments as context) as the only choices, when they are the
   * whole list (no `hasMore`, no larger `total`); otherwise it stays free text.
   */
  complete?: readonly string[]
}

/** `ctx.elicit`: ask the person, with a form or by sending them to a URL. */
export interface Elicit {
  /**
   * Asks the person to fill in a form (`requestedSchema`: an object of primitive properties).
   * `key` names the question: unique within the handler, stable across rounds.
   */
  form<S extends AnySchema | Record<string, unknown>> (key: string, message: string, schema: S, options?: FormOptions): Promise<FormOutcome<FormContent<S>>>
  /** Asks the person to open `url` (2025-11-25 sessions and the 2026-07-28 revision only). */
  url (key: string, message: string, url: string): Promise<UrlOutcome>
}

/** The questions a handler may ask the client; on `ctx` of tools, prompts and resources. */
export interface InputContext {
  readonly elicit: Elicit
  /** Asks the client's model for a completion (`sampling/createMessage`). */
  sample (key: string, params: SamplingParams): Promise<SampleOutcome>
  /** Asks the client for its roots (`roots/list`). */
  roots (key: string): Promise<RootsOutcome>
}
