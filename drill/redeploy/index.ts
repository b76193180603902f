/**
 * `npm run drill -- redeploy`: team v2 deployed while chains and conversations wait for people on
 * v1, three ways — v1 draining (Worker Deployments), v1 and v2 side by side on one task queue, and
 * v1 gone — on a dev server of its own (or `TEMPORAL_ADDRESS`), one table row per way.
 */
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { DrillServer } from '../devserver';
import type { Cell } from '../report';
import type { DrillSettings } from '../run';
import type { DrillReport } from '../sigkill';
import { redeploy, REDEPLOY_MODES, type RedeployReport } from './run';

/** Settings of the redeploy drill. */
export interface RedeploySettings {
  /** Chains of each kind waiting when v2 comes (four kinds). */
  perKind: number;
  conversations: number;
  /** Chains started once v2 is deployed. */
  newChains: number;
  /** The chains' `teamMismatchTimeout`. */
  mismatchTimeout: string;
}

export async function redeployDrill(s: DrillSettings & RedeploySettings): Promise<DrillReport> {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // Installed by an earlier drill of this process.
  }
  const server = process.env.TEMPORAL_ADDRESS
    ? undefined
    : await DrillServer.create({ logFile: path.join(s.dir, 'redeploy-server.log') });
  await server?.start();
  const address = server?.address ?? process.env.TEMPORAL_ADDRESS!;
  const connection = await Connection.connect({ address });
  const native = await NativeConnection.connect({ address });
  const reports: RedeployReport[] = [];
  try {
    for (const mode of REDEPLOY_MODES) {
      reports.push(
        await redeploy({
          mode,
          client: new Client({ connection }),
          connection: native,
          perKind: s.perKind,
          conversations: s.conversations,
          newChains: s.newChains,
          mismatchTimeout: s.mismatchTimeout,
          modelDelayMs: s.modelDelayMs,
          deadlineMs: s.deadlineMs,
        }),
      );
    }
  } finally {
    await native.close();
    await connection.close();
    await server?.kill();
  }
  const rows = reports.map(row);
  const total = (k: keyof RedeployReport) => reports.reduce((n, r) => n + (r[k] as number), 0);
  return {
    title: `Redeploy drill: ${s.perKind} chain(s) of each of 4 kinds and ${s.conversations} conversation(s) waiting on team v1, ${s.newChains} started after the deploy; v2 changes instructions, removes an agent, renames a tool and changes a tool's parameters (teamMismatchTimeout ${s.mismatchTimeout} with v1 gone, 2 minutes otherwise)`,
    summary: {
      drill: 'redeploy',
      chains: total('chains'),
      lost: total('lost'),
      'asked twice': total('repeatedApprovals'),
      problems: reports.reduce((n, r) => n + r.problems.length, 0),
    },
    faults: rows,
    problems: reports.flatMap((r) => r.problems.map((p) => `${r.mode}: ${p}`)),
    details: reports,
  };
}

function row(r: RedeployReport): Record<string, Cell> {
  return {
    deploy: { drain: 'v1 draining', side_by_side: 'side by side', v1_gone: 'v1 gone' }[r.mode],
    chains: r.chains,
    'completed on v1': r.completedOnV1,
    'completed on v2': r.completedOnV2,
    'failed TeamMismatchError': r.failedMismatch,
    migrated: r.mode === 'v1_gone' ? r.failedMismatch : undefined,
    lost: r.lost,
    'steps refused': r.refusals,
    'approvals asked': r.approvals,
    'asked twice': r.repeatedApprovals,
    time: `${r.seconds} s`,
  };
}
