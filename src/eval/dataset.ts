/**
 * Datasets: JSONL files of cases, one JSON object a line — a request (`agent`, `input`, `options`,
 * `context`), what it should lead to (`expect`), and, for a line saved from a recorded chain,
 * that chain (`chainId`) and a person's verdict on it (`good` or `bad`).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { isRecord, shown } from '../common/check';
import { UserError } from '../common/errors';
import { LIMITS, utf8Bytes } from '../common/limits';
import { runOptionProblems } from '../common/options';
import { chainFromServer, routeOf } from './chainRecord';
import type { EvalCaseSpec, Expectations } from '../common/eval/types';

/** One line of a dataset. */
export interface DatasetLine {
  /** What the case is called in reports. @default the chain id, else `<file>:<line>` */
  id?: string;
  agent: string;
  input: string;
  options?: Record<string, unknown>;
  context?: Record<string, unknown>;
  expect?: Expectations;
  /** The recorded chain the line was saved from. */
  chainId?: string;
  /** A person's verdict on that chain. */
  verdict?: 'good' | 'bad';
  /** When it was saved, ISO 8601. */
  savedAt?: string;
}

/** A dataset that cannot be read: the file, the line and what is wrong with it. */
export class DatasetError extends UserError<{ file: string; line?: number; problems: string[] }> {
  declare readonly file: string;
  declare readonly line?: number;
  declare readonly problems: string[];
  constructor(file: string, line: number | undefined, problems: string[]) {
    super(`${file}${line !== undefined ? `:${line}` : ''}: ${problems.join('; ')}`, {
      file,
      ...(line !== undefined ? { line } : {}),
      problems,
    });
  }
}

const LINE_KEYS = ['id', 'agent', 'input', 'options', 'context', 'expect', 'chainId', 'verdict', 'savedAt'];
const EXPECT_KEYS = ['route', 'finalAgent', 'outcome', 'output', 'avoid', 'judge'];
const OUTPUT_KEYS = ['regex', 'flags', 'jsonSchema', 'zod'];

/** The cases of a dataset file; a zod reference (`./schemas.ts#Refund`) is resolved from the file's folder. */
export function readDataset(file: string): EvalCaseSpec[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new DatasetError(file, undefined, [`cannot read it: ${(err as Error).message}`]);
  }
  const cases: EvalCaseSpec[] = [];
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    const line = i + 1;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      throw new DatasetError(file, line, [`not JSON: ${(err as Error).message}`]);
    }
    const problems = lineProblems(value);
    if (problems.length > 0) throw new DatasetError(file, line, problems);
    const d = value as DatasetLine;
    const expect = d.expect?.output?.zod
      ? { ...d.expect, output: { ...d.expect.output, zod: path.resolve(path.dirname(file), d.expect.output.zod) } }
      : d.expect;
    cases.push({
      id: d.id ?? d.chainId ?? `${path.basename(file)}:${line}`,
      source: { kind: 'dataset', file: path.resolve(file), line, ...(d.chainId ? { chainId: d.chainId } : {}) },
      start: {
        agent: d.agent,
        input: d.input,
        ...(d.options ? { options: d.options } : {}),
        ...(d.context ? { context: d.context } : {}),
      },
      ...(expect ? { expect } : {}),
    });
  });
  if (cases.length === 0)
    throw new DatasetError(file, undefined, [
      'it has no cases: write one JSON object a line, e.g. {"agent": "triage", "input": "…", "expect": {"finalAgent": "refunds"}}',
    ]);
  return cases;
}

/** What is wrong with a dataset line, each naming the field and what would be valid. */
export function lineProblems(v: unknown): string[] {
  if (!isRecord(v)) return [`a line must be a JSON object, got ${shown(v)}`];
  const problems = unknown(v, LINE_KEYS, '');
  if (typeof v.agent !== 'string' || v.agent.trim() === '')
    problems.push(`"agent" must name the agent that takes the request, got ${shown(v.agent)}`);
  if (typeof v.input !== 'string') problems.push(`"input" must be the request's text, got ${shown(v.input)}`);
  else if (utf8Bytes(v.input) > LIMITS.messageBytes)
    problems.push(`"input" is ${utf8Bytes(v.input)} bytes; a chain takes at most ${LIMITS.messageBytes}`);
  for (const k of ['id', 'chainId', 'savedAt'])
    if (v[k] !== undefined && typeof v[k] !== 'string') problems.push(`"${k}" must be a string, got ${shown(v[k])}`);
  if (v.verdict !== undefined && v.verdict !== 'good' && v.verdict !== 'bad')
    problems.push(`"verdict" must be "good" or "bad", got ${shown(v.verdict)}`);
  if (v.options !== undefined) problems.push(...runOptionProblems(v.options));
  if (v.context !== undefined && !isRecord(v.context))
    problems.push(`"context" must be an object, got ${shown(v.context)}`);
  if (v.expect !== undefined) problems.push(...expectProblems(v.expect));
  return problems;
}

function expectProblems(e: unknown): string[] {
  if (!isRecord(e)) return [`"expect" must be an object of ${EXPECT_KEYS.join(', ')}, got ${shown(e)}`];
  const problems = unknown(e, EXPECT_KEYS, 'expect.');
  const agents = (x: unknown) => Array.isArray(x) && x.length > 0 && x.every((a) => typeof a === 'string' && a !== '');
  if (e.route !== undefined && !agents(e.route))
    problems.push(`"expect.route" must be a list of agent ids, got ${shown(e.route)}`);
  if (e.finalAgent !== undefined && typeof e.finalAgent !== 'string')
    problems.push(`"expect.finalAgent" must be an agent id, got ${shown(e.finalAgent)}`);
  if (e.outcome !== undefined && e.outcome !== 'completed' && e.outcome !== 'failed')
    problems.push(`"expect.outcome" must be "completed" or "failed", got ${shown(e.outcome)}`);
  if (e.output !== undefined) {
    const o = e.output;
    if (!isRecord(o)) problems.push(`"expect.output" must be an object of ${OUTPUT_KEYS.join(', ')}, got ${shown(o)}`);
    else {
      problems.push(...unknown(o, OUTPUT_KEYS, 'expect.output.'));
      if (o.regex !== undefined) {
        try {
          new RegExp(String(o.regex), typeof o.flags === 'string' ? o.flags : undefined);
          if (typeof o.regex !== 'string') throw new Error('not a string');
        } catch (err) {
          problems.push(
            `"expect.output.regex" must be a regular expression (with "flags" such as "i"): ${(err as Error).message}`,
          );
        }
      }
      if (o.jsonSchema !== undefined && !isRecord(o.jsonSchema))
        problems.push(`"expect.output.jsonSchema" must be a JSON Schema object, got ${shown(o.jsonSchema)}`);
      if (o.zod !== undefined && (typeof o.zod !== 'string' || o.zod === ''))
        problems.push(
          `"expect.output.zod" must be "<module>#<export>" (e.g. "./schemas.ts#Refund"), got ${shown(o.zod)}`,
        );
    }
  }
  if (
    e.avoid !== undefined &&
    (!isRecord(e.avoid) ||
      (e.avoid.route !== undefined && !agents(e.avoid.route)) ||
      (e.avoid.output !== undefined && typeof e.avoid.output !== 'string'))
  ) {
    problems.push(`"expect.avoid" must be {route?: [agent ids], output?: text}, got ${shown(e.avoid)}`);
  }
  if (e.judge !== undefined) {
    const j = e.judge;
    if (
      !isRecord(j) ||
      typeof j.rubric !== 'string' ||
      j.rubric.trim() === '' ||
      (j.pass !== undefined && (typeof j.pass !== 'number' || j.pass < 0 || j.pass > 1))
    ) {
      problems.push(`"expect.judge" must be {rubric: text, pass?: a number from 0 to 1}, got ${shown(j)}`);
    }
  }
  return problems;
}

function unknown(v: Record<string, unknown>, keys: readonly string[], prefix: string): string[] {
  return Object.keys(v)
    .filter((k) => !keys.includes(k))
    .map((k) => `unknown field "${prefix}${k}" (valid: ${keys.join(', ')})`);
}

/**
 * A dataset line from a recorded chain: its request, and, marked `good`, the route and final agent
 * it took as what the case expects; marked `bad`, that chain as what the case must not repeat.
 */
export async function lineFromChain(
  client: Client,
  chainId: string,
  verdict: 'good' | 'bad',
  now = new Date(),
): Promise<DatasetLine> {
  const record = await chainFromServer(client, chainId);
  const input = record.input;
  if (!input) throw new UserError(`chain ${chainId} has no request in its history`);
  const { audit } = record;
  if (audit.status === 'running') throw new UserError(`chain ${chainId} is still running: save it once it has ended`);
  const route = routeOf(audit);
  const output = audit.result?.output;
  const answer = output === undefined ? undefined : typeof output === 'string' ? output : JSON.stringify(output);
  const expect: Expectations =
    verdict === 'good'
      ? { route, ...(audit.result ? { finalAgent: audit.result.finalAgent } : { outcome: 'failed' }) }
      : { avoid: { route, ...(answer !== undefined ? { output: answer } : {}) } };
  return {
    id: chainId,
    agent: input.agent,
    input: input.input,
    ...(input.options ? { options: input.options as Record<string, unknown> } : {}),
    ...(input.context ? { context: input.context } : {}),
    expect,
    chainId,
    verdict,
    savedAt: now.toISOString(),
  };
}

/** Append `line` to the dataset `file` (made when missing); a chain already in it is refused, naming its line. */
export function appendToDataset(file: string, line: DatasetLine): { line: number } {
  const existing = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n') : [];
  const at = existing.findIndex((l) => {
    try {
      const v = JSON.parse(l) as DatasetLine;
      return (line.chainId !== undefined && v.chainId === line.chainId) || (line.id !== undefined && v.id === line.id);
    } catch {
      return false;
    }
  });
  if (at >= 0)
    throw new DatasetError(file, at + 1, [
      `${line.chainId ?? line.id} is in the dataset already; edit that line, or remove it to save the chain again`,
    ]);
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  fs.appendFileSync(file, `${text.length > 0 && !text.endsWith('\n') ? '\n' : ''}${JSON.stringify(line)}\n`);
  return { line: (text === '' ? 0 : text.replace(/\n$/, '').split('\n').length) + 1 };
}
