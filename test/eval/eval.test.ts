/**
 * `baton eval` on the real server: chains recorded with the support example, then a changed team
 * (a handoff's description, a model rule, an agent removed) run against them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Team, type Baton, type BatonRun } from '../../src';
import { scriptedAgent } from '../helpers/agents';
import { RefundLedger } from '../../examples/support/ledger';
import { team as supportTeam } from '../../examples/support/team';
import { evalCases } from '../../src/eval/cases';
import { appendToDataset, lineFromChain, readDataset } from '../../src/eval/dataset';
import { runEval } from '../../src/eval/run';
import type { EvalReport } from '../../src/common/eval/types';
import { cli, startCli } from '../helpers/cli';
import { recordingScripted } from '../helpers/models';
import { useTemporalServer, withWorker } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { team as candidate } from './fixtures/candidate';
import { judge } from './fixtures/judge';

const server = useTemporalServer();
const fast = { retry: { initialInterval: '100 ms', maximumInterval: '500 ms' } };
let dataDir: string;
/** The recorded chains: a refund (approved by alice), a purchase, a technical question. */
const recorded: { refund: string; purchase: string; question: string } = { refund: '', purchase: '', question: '' };

async function approveHandoff(baton: Baton, run: BatonRun): Promise<void> {
  const [waiting] = await waitFor(
    () => run.pendingApprovals(),
    (p) => p.length > 0,
  );
  await baton.approve(run.workflowId, { approvalId: waiting!.handoffId, approver: 'alice' });
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-eval-test-'));
  process.env.BATON_EXAMPLE_DATA = dataDir;
  await withWorker(server.env, supportTeam, async (baton) => {
    const refund = await baton.start(
      'triage',
      'Hi, I would like a refund for order 1042: the teapot arrived broken.',
      fast,
    );
    const purchase = await baton.start('triage', 'I want to buy a teapot', fast);
    const question = await baton.start('triage', 'My account page does not load', fast);
    await approveHandoff(baton, refund);
    await Promise.all([refund.result(), purchase.result(), question.result()]);
    Object.assign(recorded, {
      refund: refund.workflowId,
      purchase: purchase.workflowId,
      question: question.workflowId,
    });
  });
}, 120_000);

afterAll(() => {
  delete process.env.BATON_EXAMPLE_DATA;
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('baton eval: a changed team against recorded chains', () => {
  it('reports the changed routes and the first changed step, reusing recorded answers up to it, for chains, exported histories and a dataset', async () => {
    const model = recordingScripted();
    // Chains by id, and by a visibility query.
    const byId = await evalCases(server.env.client, { ids: [recorded.refund, recorded.purchase, recorded.question] });
    const found = await evalCases(server.env.client, {
      query: `WorkflowId = "${recorded.refund}" OR WorkflowId = "${recorded.purchase}"`,
    });
    expect(found.map((c) => c.id).sort()).toEqual([recorded.refund, recorded.purchase].sort());
    await expect(evalCases(server.env.client, { query: 'WorkflowId = "no-such-chain"' })).rejects.toThrow(
      'no ended chains match "WorkflowId = \\"no-such-chain\\""',
    );
    // The refund as an exported history.
    const history = path.join(dataDir, 'refund.json');
    fs.writeFileSync(
      history,
      historyToJSON(
        temporal.api.history.v1.History.create(
          await server.env.client.workflow.getHandle(recorded.refund).fetchHistory(),
        ),
      ),
    );
    const fromFile = await evalCases(server.env.client, { histories: [history] });
    expect(fromFile).toEqual([{ id: 'refund.json', source: { kind: 'history', file: history } }]);
    // A dataset: the refund marked good, the question marked bad, and a line written by hand.
    const datasetFile = path.join(dataDir, 'datasets', 'support.jsonl');
    appendToDataset(datasetFile, await lineFromChain(server.env.client, recorded.refund, 'good'));
    appendToDataset(datasetFile, await lineFromChain(server.env.client, recorded.question, 'bad'));
    const twice = await lineFromChain(server.env.client, recorded.question, 'good');
    expect(() => appendToDataset(datasetFile, twice)).toThrow(
      `${datasetFile}:2: ${recorded.question} is in the dataset already`,
    );
    const rubric = { rubric: 'It asks for what it needs to go on.', pass: 0.8 };
    const buyer = {
      id: 'buyer',
      agent: 'triage',
      input: 'I want to buy a teapot',
      expect: {
        finalAgent: 'refunds',
        output: { regex: 'order', zod: `${path.join(__dirname, 'fixtures', 'schemas.ts')}#Answer` },
        judge: rubric,
      },
    };
    fs.appendFileSync(datasetFile, `${JSON.stringify(buyer)}\n`);
    const fromDataset = readDataset(datasetFile);
    expect(fromDataset.map((c) => c.id)).toEqual([recorded.refund, recorded.question, 'buyer']);

    const report = await runEval({
      client: server.env.client,
      connection: server.env.nativeConnection,
      team: candidate,
      cases: [...byId, ...fromFile, ...fromDataset],
      providers: model.providers,
      judge: { model: judge },
      pollMs: 100,
    });
    const [refund, purchase, question, file, goodRefund, badQuestion, handWritten] = [...report.cases].sort(
      (a, b) => a.index - b.index,
    );

    // The refund goes the same way: triage's input changed (its rule set and the handoff's
    // description), so triage's model is called; refunds' three turns are the recorded answers.
    expect(refund!.candidate.route).toEqual(['triage', 'refunds']);
    expect(refund!.routeAgrees).toBe(true);
    expect(refund!.candidate.usage.modelCalls).toBe(1);
    expect(refund!.candidate.reused).toBe(3);
    expect(refund!.firstDifference).toMatchObject({ step: 1, agent: 'triage' });
    expect(refund!.firstDifference!.why).toEqual(
      expect.arrayContaining(['model settings of scripted-support', 'tools: handoff (description and parameters)']),
    );
    expect(refund!.candidate.tools).toEqual({ recorded: 2, live: 0, notRun: 0 });
    expect(refund!.candidate.approvals).toEqual({ recorded: 1, defaulted: 0 });
    expect(refund!.verdict).toBe('pass');

    // The purchase now goes to refunds: a changed route, its approval decided by the eval's default.
    expect(purchase!.recorded!.route).toEqual(['triage', 'sales']);
    expect(purchase!.candidate.route).toEqual(['triage', 'refunds']);
    expect(purchase!.routeAgrees).toBe(false);
    expect(purchase!.candidate.approvals).toEqual({ recorded: 0, defaulted: 1 });
    expect(purchase!.candidate.usage.modelCalls).toBe(2);
    expect(purchase!.candidate.reused).toBe(0);

    // The question went to tech, which the candidate lacks: the chain fails, a regression.
    expect(question!.recorded!.route).toEqual(['triage', 'tech']);
    expect(question!.candidate.outcome).toMatchObject({ status: 'failed', error: 'HandoffTargetNotFoundError' });
    expect(question!.verdict).toBe('regression');

    // The exported history answers like the chain on the server.
    expect(file).toMatchObject({
      id: 'refund.json',
      verdict: 'pass',
      routeAgrees: true,
      candidate: { reused: 3, usage: { modelCalls: 1 }, tools: { recorded: 2 } },
    });

    // The dataset: the good refund passes against its expectations; the chain marked bad is not
    // repeated (the candidate fails instead); the line written by hand has no record, so its tools
    // are not run, and its answer is checked by regex, zod and the judge.
    expect(goodRefund).toMatchObject({ verdict: 'pass', recordedPassed: true, candidate: { reused: 3 } });
    expect(badQuestion!.expectations.find((e) => e.name === 'avoid')).toMatchObject({ ok: true });
    expect(badQuestion).toMatchObject({ recordedPassed: false, passed: false, verdict: 'fail' });
    expect(handWritten!.expectations.map((e) => [e.name, e.ok])).toEqual([
      ['outcome', true],
      ['finalAgent', true],
      ['output.regex', true],
      ['output.zod', true],
      ['judge', true],
    ]);
    expect(handWritten!.judge).toEqual({ score: 0.9, reason: 'it asks for the order number' });
    expect(handWritten!.verdict).toBe('pass');

    expect(report.cases[0]!.id).toBe(recorded.question);
    expect(report.summary).toMatchObject({
      cases: 7,
      routeAgreement: { count: 4, total: 7 },
      regressions: [recorded.question],
      modelCalls: 9,
      reused: 9,
    });
    expect(report.summary.threshold.breached).toEqual(['regressions 1 (must be <= 0)']);
    // Only the calls the report counts reached the model (besides the judge's).
    expect(model.calls.filter((c) => c.agentId !== 'eval-judge').length).toBe(report.summary.modelCalls);
    // The refund was not issued a second time: its result came from the record.
    expect(new RefundLedger().list()).toHaveLength(1);
  }, 120_000);
});

describe('baton eval on the command line', () => {
  const CANDIDATE = 'test/eval/fixtures/candidate.ts';

  it('goes on with an interrupted eval under its id, each case run once, exits 1 past the threshold, and saves a chain into a dataset', async () => {
    const evalId = `eval-cli-${Date.now()}`;
    const args = [
      'eval',
      '--team',
      CANDIDATE,
      '--ids',
      `${recorded.refund},${recorded.question}`,
      '--eval-id',
      evalId,
      '--concurrency',
      '1',
    ];
    const env = { TEMPORAL_ADDRESS: server.env.address, BATON_EXAMPLE_DATA: dataDir };
    const first = startCli(args, env);
    const dataset = path.join(dataDir, 'datasets', 'cli.jsonl');
    const saved = cli(['dataset', 'add', recorded.refund, '--good', '--dataset', dataset], env);
    await first.until('stdout', /1\/2 /, 60_000);
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(130);
    expect(first.output.stderr).toContain('--eval-id');
    expect((await saved).stdout).toContain(
      `saved ${recorded.refund} to ${dataset}:1 as good (expects triage → refunds)`,
    );

    const again = await cli([...args, '--json', '-'], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      `eval ${evalId}: 2 cases on team support@candidate (going on with the run under this id)`,
    );
    expect(again.stderr).toMatch(/regression\s+baton-triage-/);
    expect(again.stderr).toContain('threshold regressions<=0: breached: regressions 1 (must be <= 0)');
    const report = JSON.parse(again.stdout) as EvalReport;
    expect(report.cases.map((c) => c.verdict)).toEqual(['regression', 'pass']);
    // The case done before the interrupt was not run again: one chain for it, one case workflow.
    const runsOf = async (id: string) => {
      let n = 0;
      for await (const _ of server.env.client.workflow.list({ query: `WorkflowId = "${id}"` })) n++;
      return n;
    };
    expect([
      await runsOf(`${evalId}/case-1`),
      await runsOf(`${evalId}/case-1/chain`),
      await runsOf(`${evalId}/case-2/chain`),
    ]).toEqual([1, 1, 1]);

    // The eval is over: asked again with another threshold, its report is judged anew, not run again.
    const cases = await evalCases(server.env.client, { ids: [recorded.refund, recorded.question] });
    const loose = await runEval({
      client: server.env.client,
      connection: server.env.nativeConnection,
      team: candidate,
      cases,
      evalId,
      threshold: 'route>=0.5',
    });
    expect(loose.summary.threshold).toEqual({ rules: [{ metric: 'route', op: '>=', value: 0.5 }], breached: [] });
    expect(await runsOf(`${evalId}/case-1`)).toBe(1);
    // Under that id, another team is refused before anything runs.
    await expect(
      runEval({ client: server.env.client, connection: server.env.nativeConnection, team: supportTeam, cases, evalId }),
    ).rejects.toThrow(`eval ${evalId} runs team support@candidate`);
  }, 180_000);
});

describe('eval and experiment workflows started by other programs', () => {
  it('refuse an input they cannot run, with a typed failure naming the problem', async () => {
    await withWorker(server.env, new Team([scriptedAgent('a', [{ text: 'x' }])]), async (baton, queue) => {
      const failure = (type: string, args: unknown) =>
        baton.client.workflow
          .execute(type, { taskQueue: queue, workflowId: `bad-${type}-${Math.random()}`, args: [args] })
          .then(
            () => undefined,
            (err: { cause?: { type?: string; message?: string } }) => ({
              type: err.cause?.type,
              message: err.cause?.message,
            }),
          );
      const one = [{ id: 'x', source: { kind: 'chain', workflowId: 'x' } }];
      expect(
        await failure('evalRun', { team: { id: 't', hash: 'h' }, cases: [], options: { concurrency: 4 } }),
      ).toEqual({ type: 'InvalidEvalInputError', message: 'Invalid eval: no cases to run' });
      expect(
        await failure('evalRun', { team: { id: 't', hash: 'h' }, cases: one, options: { concurrency: 1000 } }),
      ).toEqual({
        type: 'InvalidEvalInputError',
        message: 'Invalid eval: options.concurrency must be a whole number from 1 to 100, got 1000',
      });
      expect(await failure('evalRun', 'go')).toEqual({
        type: 'InvalidEvalInputError',
        message: 'Invalid eval: expected {team: {id, hash}, cases: [...], options: {...}}',
      });
      expect(await failure('experiment', { id: 'x', variants: [{ name: 'a' }] })).toEqual({
        type: 'InvalidExperimentError',
        message: 'Invalid experiment: "variants" must list 2 to 10 variants, got [{"name":"a"}]',
      });
    });
  });
});
