/**
 * The ajv instances tool schemas compile with: one for JSON Schema 2020-12 (the wire default when
 * `$schema` is absent) and, on demand, one for draft-07 schemas that say so. Created once per
 * process; each schema compiles once, at registration.
 */
import { Ajv2020 } from 'ajv/dist/2020.js'
import { Ajv, type ValidateFunction, type Options } from 'ajv'
import addFormats from 'ajv-formats'

const options: Options = {
  allErrors: true, // every problem in one message, so the model fixes them in one retry
  useDefaults: true, // `execute` receives declared defaults
  verbose: true, // errors carry the offending data, for messages that say what arrived
  strict: false, // tool schemas carry extension keywords (`x-mcp-header`, `header`, vendors' own)
  validateFormats: true
}

let ajv2020: Ajv2020 | undefined
let ajv07: Ajv | undefined

function draft2020 (): Ajv2020 {
  if (ajv2020 === undefined) {
    ajv2020 = new Ajv2020(options)
    addFormats.default(ajv2020)
  }
  return ajv2020
}

function draft07 (): Ajv {
  if (ajv07 === undefined) {
    ajv07 = new Ajv(options)
    addFormats.default(ajv07)
  }
  return ajv07
}

/** Compiles a schema with the dialect its `$schema` names (2020-12 by default). */
export function compile (schema: Record<string, unknown>): ValidateFunction {
  const dialect = schema.$schema
  if (typeof dialect === 'string' && /draft-0[67]\/schema#?$/.test(dialect)) {
    return draft07().compile(schema)
  }
  return draft2020().compile(schema)
}
