/**
 * The fuzzing drill's hostile part: the property of test/property/hostile.test.ts (generated
 * oversized and malformed fields by signal, update and the HTTP service to waiting chains and
 * conversations, then one valid decision and message), many more cases, on the drill's server and
 * a worker of its own. Its figures: cases sent, targets, and how many of them the cases ended
 * (which must be 0).
 */
import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import fc from 'fast-check';
import { Baton, createWorker } from '../src';
import { hostileRunner, hostileTeam, type HostileReport } from '../test/helpers/hostile';
import { hostileScenario } from '../test/helpers/hostileCases';
import { seconds, type Cell } from './report';
import type { DrillSettings } from './run';

/** What the hostile part found. */
export interface HostileResult {
  row: Record<string, Cell>;
  problems: string[];
}

/** Run `s.hostileRuns` generated hostile cases (each against one chain and one conversation). */
export async function hostileFuzz(s: DrillSettings, native: NativeConnection, client: Client): Promise<HostileResult> {
  const taskQueue = `drill-hostile-${Date.now().toString(36)}`;
  const worker = await createWorker({
    team: hostileTeam(),
    connection: native,
    taskQueue,
    worker: { identity: 'drill-hostile' },
  });
  const baton = new Baton({ client, taskQueue });
  const reports: HostileReport[] = [];
  let shrinking = false;
  const started = Date.now();
  const run = hostileRunner(baton, taskQueue, (r) => {
    if (shrinking) return;
    reports.push(...r);
    shrinking = r.some((x) => x.violations.length > 0);
  });
  const details = await worker.runUntil(
    fc.check(fc.asyncProperty(hostileScenario, run), {
      seed: s.seed,
      numRuns: s.hostileRuns,
      interruptAfterTimeLimit: s.fuzzTimeMs,
      markInterruptAsFailure: false,
    }),
  );
  const problems = details.failed
    ? [
        `hostile input (seed ${s.seed}, path ${details.counterexamplePath}): ${String(details.errorInstance).slice(0, 2000)}`,
      ]
    : [];
  const cases = reports.reduce((n, r) => n + r.cases, 0);
  return {
    row: {
      part: 'hostile input',
      'generated cases': reports.length / 2,
      'inputs sent': cases,
      'by signal': reports.reduce((n, r) => n + r.channels.signal, 0),
      'by update': reports.reduce((n, r) => n + r.channels.update, 0),
      'by HTTP': reports.reduce((n, r) => n + r.channels.http, 0),
      'MB sent': Math.round(reports.reduce((n, r) => n + r.bytes, 0) / 1e5) / 10,
      chains: reports.filter((r) => r.target === 'chain').length,
      conversations: reports.filter((r) => r.target === 'conversation').length,
      'ended by them': reports.filter((r) => r.endedByThem).length,
      'broken invariants': reports.filter((r) => r.violations.length > 0).length,
      time: seconds(Date.now() - started),
    },
    problems,
  };
}
