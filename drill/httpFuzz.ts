/**
 * The HTTP fuzzing drill, part of `npm run drill -- fuzz`: the fuzzing of test/server/fuzz.test.ts
 * (requests generated from the service's `/openapi.json`: paths, methods, headers, tokens, bodies)
 * at length, against `baton serve`'s service on a dev server of its own and an in-process worker.
 * A problem is any 5xx, an error that is not problem details, or Temporal's raw text or a stack
 * trace in any answer; the first is shrunk to its smallest request.
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import path from 'node:path';
import { Baton, createWorker } from '../src';
import { serveBaton } from '../src/server';
import { describeRequest, FUZZ_SERVICE, fuzzHttp, httpFuzzTeam, seedPools } from '../test/helpers/httpFuzz';
import { DrillServer } from './devserver';
import { seconds, type Cell } from './report';
import type { DrillSettings } from './run';
import type { DrillReport } from './sigkill';

/** Run the HTTP fuzzing drill against `TEMPORAL_ADDRESS`, or a dev server of its own. */
export async function httpFuzzDrill(s: DrillSettings): Promise<DrillReport> {
  const server = process.env.TEMPORAL_ADDRESS
    ? undefined
    : await DrillServer.create({ logFile: path.join(s.dir, 'http-fuzz-server.log') });
  await server?.start();
  const address = server?.address ?? process.env.TEMPORAL_ADDRESS!;
  const connection = await Connection.connect({ address });
  const native = await NativeConnection.connect({ address });
  const taskQueue = `drill-http-fuzz-${Date.now().toString(36)}`;
  const team = httpFuzzTeam();
  const worker = await createWorker({ team, connection: native, taskQueue, worker: { identity: 'drill-http-fuzz' } });
  const logged: string[] = [];
  const service = await serveBaton({
    ...FUZZ_SERVICE,
    baton: new Baton({ client: new Client({ connection }), taskQueue }),
    auth: FUZZ_SERVICE.auth!,
    agents: team.ids,
    port: 0,
    log: (message, err) => logged.push(`${message}: ${err instanceof Error ? err.message : String(err ?? '')}`),
  });
  const started = Date.now();
  try {
    const run = await worker.runUntil(async () =>
      fuzzHttp(service.url, await seedPools(service.url), {
        numRuns: s.httpFuzzRequests,
        seed: s.seed,
        timeLimitMs: s.fuzzTimeMs,
      }),
    );
    const ms = Date.now() - started;
    const d = run.details;
    const problems = [
      ...run.problems,
      ...(d.failed && d.counterexample
        ? [
            `smallest failing request (seed ${d.seed}, path ${d.counterexamplePath}): ${describeRequest(d.counterexample[0])}`,
          ]
        : []),
      ...(d.failed && !d.counterexample ? [`the fuzzer failed: ${String(d.errorInstance)}`] : []),
      ...logged.map((l) => `the service logged an unexpected failure: ${l}`),
    ];
    const summary: Record<string, Cell> = {
      drill: 'http fuzz',
      requests: run.requests,
      '5xx': run.serverErrors,
      'raw text': run.rawText,
      'failed checks': run.problems.length,
      time: seconds(ms),
    };
    return {
      title: `HTTP fuzzing drill: ${run.requests} requests generated from /openapi.json (seed ${s.seed}), one service, one worker`,
      summary,
      faults: Object.entries(run.byStatus)
        .sort(([a], [b]) => Number(a) - Number(b))
        .map(([status, n]) => ({ status, answers: n })),
      problems,
      details: { byStatus: run.byStatus, seed: s.seed, slowest: run.slowest },
    };
  } finally {
    await service.close();
    await native.close();
    await connection.close();
    await server?.kill();
  }
}
