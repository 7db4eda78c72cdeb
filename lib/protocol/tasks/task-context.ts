/**
 * The context of a handler running as a task: a tool's context whose questions wait on the task
 * (`questions.ts`) instead of travelling with the request, which has been answered already.
 */
import type { InputSettings, Asker } from '../input/asker.js'
import type { Call } from '../call.js'
import { CallContext } from '../call-context.js'

export class TaskContext extends CallContext {
  private readonly taskAsker: Asker

  constructor (call: Call, bindings: Readonly<{ tool: string }>, settings: InputSettings, asker: Asker) {
    super(call, bindings, settings)
    this.taskAsker = asker
  }

  protected override asker (): Asker {
    return this.taskAsker
  }
}
