/**
 * Form schemas of `ctx.elicit.form`, compiled once per distinct schema text: handlers often build
 * the schema inline, a new object on every call, so identity would miss. Bounded, oldest out. One
 * per server: two servers in a process share nothing.
 */
import type { ValidateFunction } from 'ajv'
import { compile } from '../../define/ajv.js'

const MAX_VALIDATORS = 256

export class FormValidators {
  private readonly validators = new Map<string, ValidateFunction>()

  /** The validator of `schema`, whose JSON text is `text`. */
  get (schema: Record<string, unknown>, text: string): ValidateFunction {
    let validate = this.validators.get(text)
    if (validate === undefined) {
      validate = compile(schema)
      if (this.validators.size >= MAX_VALIDATORS) this.validators.delete(this.validators.keys().next().value as string)
      this.validators.set(text, validate)
    }
    return validate
  }
}
