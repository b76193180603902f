/**
 * Bad inputs of evaluation, datasets and experiments: each refused with what is wrong and what would
 * be valid, before anything runs (docs/bad-inputs.md lists them).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { experimentProblems } from '../../src/common/experiment';
import { runOptionProblems } from '../../src/common/options';
import { DatasetError, readDataset } from '../../src/eval/dataset';
import { InvalidEvalInputError, resolveEvalOptions, runEval } from '../../src/eval/run';
import { parseThreshold } from '../../src/common/eval/summary';
import { cli } from '../helpers/cli';

function dataset(lines: string[]): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'baton-dataset-')), 'cases.jsonl');
  fs.writeFileSync(file, lines.join('\n'));
  return file;
}

function datasetError(lines: string[]): DatasetError {
  try {
    readDataset(dataset(lines));
  } catch (err) {
    expect(err).toBeInstanceOf(DatasetError);
    return err as DatasetError;
  }
  throw new Error('the dataset was read');
}

describe('bad inputs of evaluation', () => {
  it('refuses a threshold that is not rules of known metrics, naming what would be valid', () => {
    expect(() => parseThreshold('regressions < 1')).toThrow(
      'threshold rule "regressions < 1" must be <metric><= or >=<number>, with metric one of regressions, route, outcome, pass (e.g. "regressions<=0,route>=0.9")',
    );
    expect(() => parseThreshold('latency<=100')).toThrow('metric one of regressions, route, outcome, pass');
    expect(() => parseThreshold('route>=90')).toThrow('threshold rule "route>=90": route is a ratio from 0 to 1');
    expect(() => parseThreshold(' , ')).toThrow('a threshold needs at least one rule');
  });

  it('refuses eval options out of range, and an eval with no cases or too many', async () => {
    const bad = () =>
      resolveEvalOptions({
        concurrency: 0,
        tools: 'sometimes' as never,
        approvals: 'maybe' as never,
        runOptions: { maxHandoffs: -1 },
        judge: { model: { provider: 'openai', model: 'x' }, pass: 2 },
      });
    expect(bad).toThrow(InvalidEvalInputError);
    expect(bad).toThrow(
      'Invalid eval: concurrency must be a whole number from 1 to 100, got 0; tools must be "recorded" or "live", got "sometimes"; approvals must be "approve" or "reject", got "maybe"; "maxHandoffs" must be an integer >= 0 and <= 1000000, got -1; judge.pass must be a number from 0 to 1, got 2',
    );
    const options = { client: undefined as never, connection: undefined as never, team: undefined as never };
    await expect(runEval({ ...options, cases: [] })).rejects.toThrow('Invalid eval: no cases to run');
    const many = Array.from({ length: 501 }, (_, i) => ({
      id: String(i),
      source: { kind: 'chain' as const, workflowId: String(i) },
    }));
    await expect(runEval({ ...options, cases: many })).rejects.toThrow(
      '501 cases; an eval takes at most 500: split them',
    );
  });

  it('refuses a dataset line that is not a case, naming the file, the line and each problem', () => {
    expect(datasetError(['{"agent": "triage", "input": "hi"}', 'not json']).message).toMatch(
      /cases\.jsonl:2: not JSON: /,
    );
    const e = datasetError([
      '{"agent": "", "input": 5, "verdict": "meh", "colour": "red", "options": {"maxHandofs": 3}}',
    ]);
    expect(e.problems).toEqual([
      'unknown field "colour" (valid: id, agent, input, options, context, expect, chainId, verdict, savedAt)',
      '"agent" must name the agent that takes the request, got ""',
      '"input" must be the request\'s text, got 5',
      '"verdict" must be "good" or "bad", got "meh"',
      expect.stringMatching(/^unknown option "maxHandofs" \(valid: maxHandoffs, /),
    ]);
    const expectations = datasetError([
      '{"agent": "a", "input": "b", "expect": {"route": "a", "outcome": "ok", "output": {"regex": "(", "zod": 3}, "judge": {"rubric": "", "pass": 3}, "final": "a"}}',
    ]);
    expect(expectations.problems).toEqual([
      'unknown field "expect.final" (valid: route, finalAgent, outcome, output, avoid, judge)',
      '"expect.route" must be a list of agent ids, got "a"',
      '"expect.outcome" must be "completed" or "failed", got "ok"',
      expect.stringMatching(/^"expect.output.regex" must be a regular expression \(with "flags" such as "i"\): /),
      '"expect.output.zod" must be "<module>#<export>" (e.g. "./schemas.ts#Refund"), got 3',
      '"expect.judge" must be {rubric: text, pass?: a number from 0 to 1}, got {"rubric":"","pass":3}',
    ]);
    expect(datasetError(['', '  ']).message).toMatch(/it has no cases: write one JSON object a line/);
  });

  it('refuses an experiment that cannot split traffic, naming each problem', () => {
    expect(experimentProblems({ id: 'has space', key: 'tenant', variants: [{ name: 'a' }], colour: 'red' })).toEqual([
      'unknown field "colour" (valid: id, key, variants, description)',
      '"id" must be 1 to 128 letters, digits, "_", "." or "-", got "has space"',
      '"key" must be "id" or "context.<field>", got "tenant"',
      '"variants" must list 2 to 10 variants, got [{"name":"a"}]',
    ]);
    expect(
      experimentProblems({
        id: 'x',
        variants: [
          { name: 'a', weight: 0, color: 1 },
          { name: 'a', weight: 0, taskQueue: '', deployment: { name: 'd' }, options: { maxTurns: 0 } },
        ],
      }),
    ).toEqual([
      'unknown field "variants[0].color" (valid: name, weight, taskQueue, deployment, options)',
      '"variants[1].name" a is given twice',
      '"variants[1].taskQueue" must name a task queue, got ""',
      '"variants[1].deployment" must be {name, buildId} of a worker deployment version, got {"name":"d"}',
      expect.stringMatching(/^"maxTurns" must be an integer >= 1/),
      '"variants" must give traffic to at least one variant (a weight above 0)',
    ]);
  });

  it('refuses a routing strategy that is not one', () => {
    expect(runOptionProblems({ routingStrategy: 'random' })).toEqual([
      '"routingStrategy" must be "best_match" or "round_robin" or "least_loaded" or "success_rate", got "random"',
    ]);
  });

  it('explains bad usage of baton eval, dataset, stats and experiment on stderr with exit code 2', async () => {
    const team = ['--team', 'test/eval/fixtures/candidate.ts'];
    const runs = await Promise.all([
      cli(['eval', ...team, '--ids', 'a', '--dataset', 'd.jsonl']),
      cli(['eval', ...team, '--ids', 'a', '--threshold', 'speed>=1']),
      cli(['dataset', 'add', 'chain-1', '--dataset', 'd.jsonl']),
      cli(['stats', '--by', 'colour']),
      cli(['experiment', 'stop', 'pricing']),
    ]);
    for (const r of runs) expect([r.code, r.stdout]).toEqual([2, '']);
    expect(runs.map((r) => r.stderr.split('\n')[0])).toEqual([
      'baton eval: give the cases one way: --query, --ids, --histories or --dataset',
      expect.stringContaining('baton eval: --threshold: threshold rule "speed>=1" must be <metric><= or >=<number>'),
      'baton dataset: mark the chain --good or --bad (one of them)',
      expect.stringContaining('baton stats: --by must be agent or edge, got "colour"'),
      'baton experiment: --winner <variant> is required: the variant every new chain goes to',
    ]);
  }, 120_000);
});
