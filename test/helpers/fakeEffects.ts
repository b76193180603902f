import type { CheckGuardrailInput, GuardrailVerdict } from '../../src/common/controls';
import type { SpecialistApprovalsRead } from '../../src/common/messages';
import { ToolExecutionError } from '../../src/common/errors';
import type {
  CallModelInput,
  ModelResponse,
  RouteSpecialistInput,
  RouteSpecialistResult,
  SummarizeInput,
  SummarizeResult,
  ToolCall,
} from '../../src/common/model';
import { resolveRunOptions, type RunOptions } from '../../src/common/options';
import { BatonStatus, type RecordHandoffInput } from '../../src/common/run';
import type {
  AgentSpec,
  CheckHandoffInput,
  CheckHandoffResult,
  RunToolInput,
  RunToolResult,
  TeamSpec,
} from '../../src/common/team';
import { ApprovalDesk } from '../../workflows/chain/desk';
import type { ChainEffects, DelegationOutcome, DelegationStart, Timer } from '../../workflows/chain/effects';
import { Chain, startChain } from '../../workflows/chain/state';
import { defaultGuards } from '../../workflows/guards';
import type { ChainRun } from '../../workflows/loop';

/** One model answer, as the fake model gives it. */
export type FakeAnswer = string | { calls: { name: string; args: Record<string, unknown> }[]; text?: string };

/** Effects in memory: a scripted model per agent, tools by name, and a log of every command. */
export class FakeEffects implements ChainEffects {
  readonly workflowId = 'wf-fake';
  /** Every command, in order: `callModel a`, `runTool a lookup`, `memo …`, `agent b 1`, `status …`, `timer 60000`, … */
  readonly log: string[] = [];
  readonly modelInputs: CallModelInput[] = [];
  readonly handoffs: RecordHandoffInput[] = [];
  readonly memos: Record<string, unknown>[] = [];
  status: BatonStatus = BatonStatus.RUNNING;
  clock = Date.parse('2026-01-01T00:00:00.000Z');
  continueAsNew = false;
  /** The events a test says the run's history has. */
  events = 0;
  private ids = 0;
  private readonly timers: { ms: number; fired: boolean; cancelled: boolean }[] = [];

  constructor(
    private readonly answers: Record<string, FakeAnswer[]>,
    private readonly tools: Record<string, (args: Record<string, unknown>, key: string) => string | RunToolResult> = {},
  ) {}

  now = () => this.clock;
  patched = () => true;
  newId = () => `id-${++this.ids}`;
  loadTeam = async (): Promise<TeamSpec> => {
    throw new Error('the fake chain starts from a team given to it');
  };
  startRun = (agent: string) => void this.log.push(`start ${agent}`);

  async callModel(input: CallModelInput): Promise<ModelResponse> {
    this.log.push(`callModel ${input.agentId}`);
    this.modelInputs.push(structuredClone(input));
    const answer = this.answers[input.agentId]?.[input.callIndex];
    if (answer === undefined) throw new Error(`no answer ${input.callIndex + 1} for ${input.agentId}`);
    const calls: ToolCall[] =
      typeof answer === 'string'
        ? []
        : answer.calls.map((c, i) => ({
            id: `c${input.callIndex}-${i}`,
            name: c.name,
            arguments: JSON.stringify(c.args),
          }));
    const content = typeof answer === 'string' ? answer : (answer.text ?? null);
    return { content, toolCalls: calls, usage: { inputTokens: 10, outputTokens: 5 }, model: 'fake' };
  }

  /** What `summarize` answers, and the vetoes `checkHandoff` gives, by target. */
  summary = 'a summary';
  vetoes: Record<string, string> = {};

  async summarize(input: SummarizeInput): Promise<SummarizeResult> {
    this.log.push(`summarize ${input.agentId}`);
    return { summary: this.summary, usage: { inputTokens: 3, outputTokens: 2 } };
  }

  async checkHandoff(input: CheckHandoffInput): Promise<CheckHandoffResult> {
    this.log.push(`checkHandoff ${input.from}>${input.to}`);
    return this.vetoes[input.to] ? { veto: this.vetoes[input.to] } : {};
  }

  reportPending(parentWorkflowId: string): void {
    this.log.push(`report to ${parentWorkflowId}`);
  }

  /** What each specialist's read answers: what the tests put here, else nothing waits. */
  readonly specialistApprovals = new Map<string, SpecialistApprovalsRead>();

  async readSpecialistApprovals(workflowId: string): Promise<SpecialistApprovalsRead> {
    this.log.push(`read ${workflowId}`);
    return this.specialistApprovals.get(workflowId) ?? { kind: 'pending', pending: [] };
  }

  async forwardDecision(workflowId: string): Promise<void> {
    this.log.push(`forward to ${workflowId}`);
  }

  answerForward(workflowId: string): void {
    this.log.push(`answer forward to ${workflowId}`);
  }

  /** What each delegated child chain answers, by target agent. */
  children: Record<string, DelegationOutcome> = {};

  async delegate(start: DelegationStart): Promise<DelegationOutcome> {
    this.log.push(`delegate ${start.input.agent}`);
    return this.children[start.input.agent] ?? { ok: false, reason: 'no such fake child' };
  }

  async routeSpecialist(input: RouteSpecialistInput): Promise<RouteSpecialistResult> {
    this.log.push(`route ${input.request.specialistType}`);
    return { reason: 'no fake router', usage: { inputTokens: 0, outputTokens: 0 } };
  }

  async runTool(input: RunToolInput): Promise<RunToolResult> {
    this.log.push(`runTool ${input.agentId} ${input.call.name}`);
    const tool = this.tools[input.call.name];
    if (!tool) throw new ToolExecutionError(input.agentId, input.call.name, 'no such fake tool');
    const result = tool(JSON.parse(input.call.arguments) as Record<string, unknown>, input.idempotencyKey);
    return typeof result === 'string' ? { ok: true, content: result } : result;
  }

  /** Verdicts of custom guardrails, by guardrail name: a function of the text. */
  guardrails: Record<string, (text: string) => GuardrailVerdict> = {};

  async checkGuardrail(input: CheckGuardrailInput): Promise<GuardrailVerdict> {
    this.log.push(`checkGuardrail ${input.agentId} ${input.guardrail}`);
    const check = this.guardrails[input.guardrail];
    if (!check) throw new ToolExecutionError(input.agentId, `guardrail ${input.guardrail}`, 'no such fake guardrail');
    return check(input.text);
  }

  async recordHandoff(entry: RecordHandoffInput): Promise<void> {
    this.log.push(`handoff ${entry.handoff.from}>${entry.handoff.to}`);
    this.handoffs.push(entry);
  }

  publish(memo: Record<string, unknown>): void {
    const event = memo.batonApprovalEvent as { type?: string } | undefined;
    this.log.push(`memo ${event?.type ?? Object.keys(memo).join(',')}`);
    this.memos.push(structuredClone(memo));
  }

  setAgent(agent: string, handoffs: number): void {
    this.log.push(`agent ${agent} ${handoffs}`);
  }

  setStatus(status: BatonStatus): void {
    this.status = status;
    this.log.push(`status ${status}`);
  }

  async condition(ready: () => boolean): Promise<void> {
    while (!ready()) await new Promise((r) => setTimeout(r, 0));
  }

  timer(ms: number): Timer {
    const t = { ms, fired: false, cancelled: false };
    this.timers.push(t);
    this.log.push(`timer ${ms}`);
    return {
      get fired() {
        return t.fired;
      },
      cancel: () => {
        if (!t.fired && !t.cancelled) this.log.push('cancel timer');
        t.cancelled = true;
      },
    };
  }

  /** Fire the newest timer that is still running. */
  fireTimer(): void {
    const t = this.timers.filter((x) => !x.fired && !x.cancelled).at(-1);
    if (!t) throw new Error('no timer is running');
    this.clock += t.ms;
    t.fired = true;
  }

  shouldContinueAsNew(): boolean {
    return this.continueAsNew;
  }

  historyLength(): number {
    return this.events;
  }
}

/** An agent spec for unit tests: handoffs to `handoffs`, tools by name. */
export function agentSpec(id: string, extra: Partial<AgentSpec> & { toolNames?: string[] } = {}): AgentSpec {
  const { toolNames = [], ...rest } = extra;
  const handoffs = rest.handoffs ?? [];
  return {
    id,
    name: id,
    description: id,
    instructions: `You are ${id}.`,
    model: { provider: 'scripted', model: 'fake', steps: [], rules: [], requireAllSteps: false },
    tools: toolNames.map((name) => ({ name, description: name, parameters: { type: 'object' } })),
    handoffs,
    ...(handoffs.length > 0
      ? { handoffTool: { name: 'handoff', description: 'hand off', parameters: { type: 'object' } } }
      : {}),
    ...rest,
  };
}

/** A chain run on fake effects, starting at `start` with `input`. */
export function fakeRun(
  agents: AgentSpec[],
  effects: FakeEffects,
  options: RunOptions = {},
  start = agents[0]!.id,
  input = 'go',
  { controls = false } = {},
): ChainRun {
  const team: TeamSpec = {
    agents: Object.fromEntries(agents.map((a) => [a.id, a])),
    approvals: [],
    hasHandoffListeners: false,
  };
  const chain = new Chain(
    startChain(
      team,
      start,
      input,
      resolveRunOptions(options),
      undefined,
      controls ? { startedAt: effects.clock } : undefined,
    ),
  );
  const desk = new ApprovalDesk(effects);
  desk.attach(chain);
  return { chain, effects, guards: defaultGuards({ emptyOutputCheck: true, controls, now: effects.now }), desk };
}
