/**
 * A chain's steering desk, the chain's steering port: steering messages wait here for the chain's
 * next step, and an interrupt stops the model call under way. The `steer` handler only queues and
 * cancels; at the loop's fixed points the waiting messages join the current agent's conversation as
 * user messages (each on the record with who sent it), and an interrupted model call is recorded.
 */
import { CancellationScope, isCancellation } from '@temporalio/workflow';
import { isUnreadable } from '../../src/common/arrival';
import { InputTooLargeError, InvalidRunInputError, toApplicationFailure } from '../../src/common/errors';
import { LIMITS } from '../../src/common/limits';
import {
  type LiveRecord,
  SteeringRefusedError,
  steerProblems,
  steerSizes,
  type SteerInput,
  type SteerMessage,
  type SteerReceipt,
} from '../../src/common/live';
import { LIVE_MEMO } from '../../src/common/messages';
import type { CallModelInput } from '../../src/common/model';
import type { ChainEffects } from '../chain/effects';
import type { ChainRun, SteeringPort } from '../chain/run';

/** Thrown by a model call that an interrupt stopped; the loop goes on with what waits. */
export class ModelCallInterrupted extends Error {
  override readonly name = 'ModelCallInterrupted';
  constructor(
    readonly call: Pick<CallModelInput, 'agentId' | 'callIndex'>,
    readonly by: string,
  ) {
    super(`the model call of ${call.agentId} was interrupted by ${by}`);
  }
}

export class Steering implements SteeringPort {
  /** Messages waiting for the chain's next step, in arrival order. */
  readonly waiting: SteerMessage[] = [];
  /** The model call under way, and who stopped it. */
  #call?: { stoppedBy?: string };
  /**
   * The scope model calls run in, made again only after an interrupt cancelled it (or for calls
   * under another parent scope): each new scope costs promises and a reaction on its parent's. The
   * call under way runs in it.
   */
  #scope?: CancellationScope;

  constructor(
    private readonly workflowId: string,
    private readonly effects: Pick<ChainEffects, 'now' | 'newId'>,
    /** Whether the chain takes steering now (a run that started with the live patch and is running). */
    private readonly accepting: () => string | undefined,
  ) {}

  /** The update validator: a malformed, oversized or untimely message is refused, with why. */
  validate(raw: unknown): void {
    if (isUnreadable(raw))
      throw toApplicationFailure(
        raw.size
          ? new InputTooLargeError([raw.size])
          : new InvalidRunInputError([
              `${raw.problem('the steering message')}; send {"text": string, "by": string} as JSON`,
            ]),
      );
    const sizes = steerSizes(raw);
    if (sizes.length > 0) throw toApplicationFailure(new InputTooLargeError(sizes));
    const problems = steerProblems(raw);
    if (problems.length > 0) throw toApplicationFailure(new InvalidRunInputError(problems));
    const refusal = this.accepting();
    if (refusal) throw toApplicationFailure(new SteeringRefusedError(this.workflowId, refusal));
    if (this.waiting.length >= LIMITS.waitingSteers) {
      throw toApplicationFailure(
        new SteeringRefusedError(
          this.workflowId,
          `${this.waiting.length} steering messages already wait for its next step (at most ${LIMITS.waitingSteers}); send again once they are applied`,
        ),
      );
    }
  }

  /** A message: queued for the next step; an interrupt stops the model call under way. */
  receive(input: SteerInput): SteerReceipt {
    const message: SteerMessage = {
      id: this.effects.newId(),
      text: input.text,
      by: input.by,
      at: new Date(this.effects.now()).toISOString(),
      interrupt: input.interrupt === true,
    };
    this.waiting.push(message);
    const interrupted = message.interrupt && this.interrupt(message.by);
    return { steerId: message.id, interrupted, waiting: this.waiting.length };
  }

  /** Stop the model call under way, if any; `true` when one was stopped. */
  interrupt(by: string): boolean {
    if (!this.#call || this.#call.stoppedBy !== undefined) return false;
    this.#call.stoppedBy = by;
    this.#scope?.cancel();
    return true;
  }

  /** Run a model call so that an interrupt can stop it; a stopped call throws {@link ModelCallInterrupted}. */
  call<T>(input: Pick<CallModelInput, 'agentId' | 'callIndex'>, run: () => Promise<T>): Promise<T> {
    const parent = CancellationScope.current();
    if (this.#scope?.parent !== parent || this.#scope.consideredCancelled)
      this.#scope = new CancellationScope({ parent, cancellable: true });
    const call: { stoppedBy?: string } = {};
    this.#call = call;
    const done = () => {
      if (this.#call === call) this.#call = undefined;
    };
    // A promise chain, not an async function: the SDK captures a stack for every promise workflow code makes.
    return this.#scope.run(run).then(
      (value) => {
        done();
        return value;
      },
      (err: unknown) => {
        done();
        throw call.stoppedBy !== undefined && isCancellation(err)
          ? new ModelCallInterrupted(input, call.stoppedBy)
          : err;
      },
    );
  }

  /** The waiting messages, now taken. */
  take(): SteerMessage[] {
    return this.waiting.splice(0);
  }

  /** Apply the steering messages that wait; `true` when there were some (the model is to be asked again). */
  apply(run: Pick<ChainRun, 'chain' | 'effects'>): boolean {
    const taken = this.take();
    if (taken.length === 0) return false;
    const { chain, effects } = run;
    chain.apply({ type: 'steered', messages: taken.map((m) => m.text) });
    const at = new Date(effects.now()).toISOString();
    const turn = effects.streamTag?.()?.turn;
    for (const m of taken) {
      const record: LiveRecord = {
        type: 'steered',
        steerId: m.id,
        by: m.by,
        text: m.text.slice(0, LIMITS.recordedSteerChars),
        chars: m.text.length,
        agent: chain.state.agentId,
        interrupt: m.interrupt,
        at,
        receivedAt: m.at,
        ...(turn !== undefined ? { turn } : {}),
      };
      effects.publish({ [LIVE_MEMO]: record });
    }
    return true;
  }

  /** Whether `err` is a model call an interrupt stopped ({@link ModelCallInterrupted}); when it is, it goes on the record. */
  interrupted(run: Pick<ChainRun, 'effects'>, err: unknown): boolean {
    if (!(err instanceof ModelCallInterrupted)) return false;
    const turn = run.effects.streamTag?.()?.turn;
    const record: LiveRecord = {
      type: 'interrupted',
      agent: err.call.agentId,
      call: `${err.call.agentId}#${err.call.callIndex}`,
      by: err.by,
      at: new Date(run.effects.now()).toISOString(),
      ...(turn !== undefined ? { turn } : {}),
    };
    run.effects.publish({ [LIVE_MEMO]: record });
    return true;
  }
}

/** `effects` whose model calls an interrupt can stop. */
export function interruptible(effects: ChainEffects, steering: Steering): ChainEffects {
  return Object.assign(Object.create(effects) as ChainEffects, {
    callModel: (input, options, local) => steering.call(input, () => effects.callModel(input, options, local)),
  } satisfies Partial<ChainEffects>);
}
