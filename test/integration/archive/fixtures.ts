/**
 * What the archive tests share: `baton audit` run in the test's process, histories deleted with
 * the Temporal CLI, an archive worker process that stops dead mid-archive, and the objects an
 * archive holds for one chain (every version of them, in S3).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ListObjectVersionsCommand, S3Client } from '@aws-sdk/client-s3';
import type { SiemEvent } from '../../../src/audit/siem/events';
import { auditCommand } from '../../../src/cli/audit';
import type { DevServer } from '../../../src/devserver/server';
import { findTemporalBinary } from '../../../src/devserver/binary';
import { waitFor } from '../../helpers/wait';
import { TYPESCRIPT } from '../../helpers/typescript';

/** `baton audit …`, run in this process. */
export async function audit(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = { stdout: '', stderr: '' };
  const code = await auditCommand.run(args, {
    out: (l) => (out.stdout += `${l}\n`),
    err: (l) => (out.stderr += `${l}\n`),
    interrupted: new Promise(() => undefined),
  });
  return { code, ...out };
}

/** The SIEM stream file's events. */
export const readLines = (file: string): SiemEvent[] =>
  fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as SiemEvent)
    : [];

/** Delete every execution of `queue` from the dev server with the Temporal CLI, and wait until they are gone (the server deletes in the background, slower on a busy machine). */
export async function deleteHistories(server: DevServer, queue: string): Promise<string[]> {
  const cli = findTemporalBinary('cli')!;
  const { client } = server;
  const page = await client.workflowService.listWorkflowExecutions({
    namespace: 'default',
    query: `TaskQueue = "${queue}" AND WorkflowType != "teamRegistry"`,
  });
  const ids = (page.executions ?? []).map((e) => ({
    workflowId: e.execution!.workflowId!,
    runId: e.execution!.runId!,
  }));
  for (const e of ids)
    execFileSync(
      cli,
      ['workflow', 'delete', '--yes', '--address', server.address, '--workflow-id', e.workflowId, '--run-id', e.runId],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
  for (const e of ids) {
    await waitFor(
      () =>
        client.workflowService.describeWorkflowExecution({ namespace: 'default', execution: e }).then(
          () => 'there',
          (err: { code?: number }) => (err.code === 5 ? 'gone' : 'there'),
        ),
      (s) => s === 'gone',
      120_000,
    );
  }
  return [...new Set(ids.map((e) => e.workflowId))];
}

/** An archive worker process that stops dead at one point of its first chain (see ./archiveWorker.ts). */
export class StallingArchiveWorker {
  private readonly child: ChildProcess;
  readonly stalled: Promise<string>;

  constructor(address: string, env: Record<string, string>) {
    this.child = spawn(process.execPath, [...TYPESCRIPT, path.join(__dirname, 'archiveWorker.ts')], {
      cwd: path.resolve(__dirname, '../../..'),
      env: { ...process.env, TEMPORAL_ADDRESS: address, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    this.stalled = new Promise((resolve, reject) => {
      this.child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const line = output.split('\n').find((l) => l.startsWith('stalled '));
        if (line) resolve(line.slice('stalled '.length));
      });
      this.child.once('exit', (code, signal) =>
        reject(new Error(`the archive worker exited before it stalled (${code ?? signal})`)),
      );
    });
  }

  async kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const gone = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGKILL');
    await gone;
  }
}

/** Objects (every version of them, in S3 at `s3Endpoint`) whose key names `workflowId`. */
export async function objectsOf(location: string, workflowId: string, s3Endpoint?: string): Promise<string[]> {
  if (!location.startsWith('s3://')) {
    const found: string[] = [];
    const walk = (d: string) => {
      for (const e of fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }) : []) {
        if (e.isDirectory()) walk(path.join(d, e.name));
        else if (path.join(d, e.name).includes(encodeURIComponent(workflowId).replace(/\./g, '%2E')))
          found.push(path.join(d, e.name));
      }
    };
    walk(path.join(location, 'chains'));
    return found;
  }
  const s3 = new S3Client({ endpoint: s3Endpoint, forcePathStyle: true, region: 'us-east-1' });
  const [, bucket, prefix] = location.match(/^s3:\/\/([^/]+)\/(.*)$/)!;
  const page = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: `${prefix}/chains/` }));
  s3.destroy();
  return (page.Versions ?? []).filter((v) => v.Key!.includes(workflowId)).map((v) => `${v.Key} ${v.VersionId}`);
}
