/**
 * The real system the model-based harness drives: a Temporal dev server persisted to a database
 * file (so it can be `kill -9`ed and started again), a Redis server the workers stream model text
 * through (when one is installed), worker processes (./hosts.ts) serving the team's versions, and
 * the client. It knows (./settle.ts) when a sequence's chains have settled: each one ended, or
 * waiting for a person or for the puppet model, with nothing else in flight.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Baton } from '../../src';
import { RedisStreams, type StreamTransport } from '../../src/streams';
import { DrillServer } from '../../drill/devserver';
import { freePort } from '../../src/devserver/server';
import { cli, startCli } from '../helpers/cli';
import { CliSession, runsInSession } from '../helpers/commandSession';
import { findRedisServer, type RedisServer, startRedis } from '../helpers/redis';
import { Hosts } from './hosts';
import { startModelJwks } from './jwks';
import { ModelRemote } from './remote';
import { settle } from './settle';
import { forgetSystems } from './systemState';
import { served } from './deployments';
import { setCurrentVersion } from '../../drill/deployments';
import type { DeployMode, Lane } from './model';
import type { ServedWorker } from './protocol';
import { HISTORY_RECEIVE_LIMIT } from '../../src/payloads/historyPages';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Options of {@link ModelSystem.create}. */
export interface SystemOptions {
  /** Working directory: the server's database and log, the workers' logs, the side-effect log. */
  dir: string;
  /** Worker processes. @default 2 */
  workers?: number;
  /** Stream model text through Redis when a redis-server is installed. @default true */
  streams?: boolean;
}

/** What the faults and deploys did, for the report. */
export interface SystemFigures {
  kills: number;
  serverRestarts: number;
  redeploys: Record<DeployMode, number>;
  cliRuns: number;
  /** Times the real CLI could have been run instead of the library. */
  cliChances: number;
  /** Times the stream broker (Redis) was stopped and started again. */
  brokerOutages: number;
  /** Side-by-side rollouts the harness completed at a sequence's finish, roots still waiting on v1's workers. */
  v1Retired: number;
}

export class ModelSystem {
  /** What else the harness started on this system (the archive worker), stopped first by close(). */
  readonly closers: (() => Promise<void>)[] = [];
  readonly figures: SystemFigures = {
    kills: 0,
    serverRestarts: 0,
    redeploys: { drain: 0, side_by_side: 0, v1_gone: 0 },
    cliRuns: 0,
    cliChances: 0,
    brokerOutages: 0,
    v1Retired: 0,
  };
  /** Each lane's task queue and what serves it; a deploy leaves it dirty, and the next sequence of the lane gets a new one. */
  private readonly lanes = new Map<
    Lane,
    { taskQueue: string; deployment?: string; workers: ServedWorker[]; dirty: boolean }
  >();
  /** The process the harness's server-only commands run in (`cli`). */
  private readonly session = new CliSession();
  /** The stream broker's return, while an outage lasts (./operations/broker.ts). */
  private brokerBack: Promise<void> | undefined;

  private constructor(
    readonly dir: string,
    readonly server: DrillServer,
    readonly hosts: Hosts,
    readonly connection: Connection,
    readonly client: Client,
    readonly effectsFile: string,
    readonly streams: StreamTransport | undefined,
    private readonly redis: RedisServer | undefined,
    /** The remote team the workers' team delegates to (./remote.ts). */
    readonly remote: ModelRemote,
    /** What the client's stream transport said of the broker, in order: lost (false), back (true). */
    readonly brokerChanges: boolean[],
  ) {}

  static async create(o: SystemOptions): Promise<ModelSystem> {
    forgetSystems();
    fs.mkdirSync(o.dir, { recursive: true });
    const dbFile = path.join(o.dir, 'model.db');
    fs.rmSync(dbFile, { force: true });
    // What has started, stopped again (last first) when a later part fails to: no process is left running.
    const started: (() => Promise<unknown>)[] = [];
    try {
      const server = await DrillServer.create({ dbFile, logFile: path.join(o.dir, 'server.log') });
      started.push(() => server.kill());
      await server.start();
      const redis = o.streams !== false && findRedisServer() ? await startRedis() : undefined;
      if (redis) started.push(() => redis.stop());
      const effectsFile = path.join(o.dir, 'effects.jsonl');
      const remoteUrl = `http://127.0.0.1:${await freePort()}`;
      const env: Record<string, string> = {
        TEMPORAL_ADDRESS: server.address,
        MODEL_EFFECTS: effectsFile,
        MODEL_REMOTE_URL: remoteUrl,
        MODEL_JWKS_URL: await startModelJwks(),
        ...(redis ? { BATON_STREAMS_URL: redis.url } : {}),
      };
      const hosts = new Hosts(o.workers ?? 2, env, path.join(o.dir, 'workers'));
      started.push(() => hosts.stop());
      await hosts.start();
      // As connectBaton connects: pages of history over 4 MB (a flood of large refused decisions) come whole.
      const connection = await Connection.connect({ address: server.address, channelArgs: HISTORY_RECEIVE_LIMIT });
      started.push(() => connection.close());
      const client = new Client({ connection });
      const remote = new ModelRemote(server.address, client, remoteUrl);
      started.push(() => remote.close());
      await remote.start();
      const brokerChanges: boolean[] = [];
      const streams = redis
        ? new RedisStreams({ url: redis.url, onConnectionChange: (c) => brokerChanges.push(c.up) })
        : undefined;
      return new ModelSystem(
        o.dir,
        server,
        hosts,
        connection,
        client,
        effectsFile,
        streams,
        redis,
        remote,
        brokerChanges,
      );
    } catch (err) {
      for (const stop of started.reverse()) await stop().catch(() => undefined);
      throw err;
    }
  }

  /** A client of the task queue `taskQueue`, reading streamed text from the workers' transport. */
  baton(taskQueue: string): Baton {
    return new Baton({ client: this.client, taskQueue, ...(this.streams ? { streams: this.streams } : {}) });
  }

  /**
   * A task queue for a sequence, served by v1 (as a Worker Deployment version in the versioned lane):
   * the last one of the lane while no deploy changed it, else a new one. Both lanes are served at once.
   */
  async begin(lane: Lane, tag: string): Promise<string> {
    await this.brokerBack;
    await this.hosts.untilAllUp();
    const current = this.lanes.get(lane);
    if (current && !current.dirty) return current.taskQueue;
    const taskQueue = `model-${tag}`;
    const deployment = lane === 'versioned' ? `model-${tag}`.replace(/\./g, '-') : undefined;
    this.lanes.set(lane, {
      taskQueue,
      deployment,
      workers: [served(taskQueue, 'v1', deployment, lane === 'ai_sdk')],
      dirty: false,
    });
    await this.serveLanes();
    if (deployment) await setCurrentVersion(this.client, deployment, 'v1', 'model harness', 100);
    return taskQueue;
  }

  /** Team v2 comes to `lane`: beside a draining v1 (deployment), side by side with v1, or with v1 gone. */
  async redeploy(lane: Lane, mode: DeployMode): Promise<void> {
    this.figures.redeploys[mode]++;
    const l = this.lanes.get(lane)!;
    l.dirty = true;
    const v1 = served(l.taskQueue, 'v1', l.deployment, lane === 'ai_sdk');
    const v2 = served(l.taskQueue, 'v2', l.deployment, lane === 'ai_sdk');
    l.workers = mode === 'v1_gone' ? [v2] : [v1, v2];
    await this.hosts.untilAllUp();
    await this.serveLanes();
    if (mode === 'drain') await setCurrentVersion(this.client, l.deployment!, 'v2', 'model harness', 100);
  }

  /** The rollout of `lane` completes: v1's workers stop, v2's serve on (an operator retiring the old version). */
  async retireV1(lane: Lane): Promise<void> {
    this.figures.v1Retired++;
    const l = this.lanes.get(lane)!;
    l.workers = l.workers.filter((w) => w.version !== 'v1');
    await this.hosts.untilAllUp();
    await this.serveLanes();
  }

  private serveLanes(): Promise<void> {
    return this.hosts.serve([...this.lanes.values()].flatMap((l) => l.workers));
  }

  /** SIGKILL a worker process (it comes back on its own). */
  kill(slot: number): boolean {
    const killed = this.hosts.kill(slot) !== undefined;
    if (killed) this.figures.kills++;
    return killed;
  }

  /** `kill -9` the dev server and start it again on its database file after `downMs`. */
  async restartServer(downMs: number): Promise<void> {
    this.figures.serverRestarts++;
    await this.server.kill();
    await sleep(downMs);
    await this.server.start();
  }

  /** Whether model text streams through a broker (a redis-server was found): else outages change nothing. */
  get streamsThroughBroker(): boolean {
    return this.redis !== undefined;
  }

  /**
   * Stop the stream broker and start it again on its port `downMs` later: before this returns, or
   * (`across`) while the next steps run. False when text does not stream through a broker.
   */
  async brokerOutage(downMs: number, across: boolean): Promise<boolean> {
    const redis = this.redis;
    if (!redis) return false;
    await this.brokerBack;
    this.figures.brokerOutages++;
    await redis.stop();
    const back = sleep(downMs).then(() => redis.restart());
    back.catch(() => undefined);
    this.brokerBack = back;
    if (!across) await back;
    return true;
  }

  /** Resolves once the stream broker is up (at once when no outage lasts); rejects when it could not be started again. */
  brokerUp(): Promise<void> {
    return this.brokerBack ?? Promise.resolve();
  }

  /** The real `baton` command against this server: in the command session when it only talks to the server (`audit`, …). */
  async cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    this.figures.cliRuns++;
    const env = { TEMPORAL_ADDRESS: this.server.address };
    return runsInSession(args) ? this.session.cli(args, env) : cli(args, env);
  }

  /**
   * The real `baton` command until it prints `pattern` (a command that then follows a chain to its
   * end, which the harness drives meanwhile), then stopped; throws with its output when it exits first.
   */
  async cliUntil(args: string[], pattern: RegExp, timeoutMs = 60_000): Promise<string> {
    this.figures.cliRuns++;
    const p = startCli(args, { TEMPORAL_ADDRESS: this.server.address });
    try {
      const exited = p.exited.then((code) =>
        Promise.reject(new Error(`baton ${args.join(' ')} exited ${code}: ${p.output.stdout}${p.output.stderr}`)),
      );
      const [line] = await Promise.race([p.until('stdout', pattern, timeoutMs), exited]);
      return line;
    } finally {
      p.child.kill('SIGTERM');
    }
  }

  /**
   * Wait until every chain of `roots` (and every specialist under it) has ended or waits for the
   * harness (./settle.ts); answers what is still moving at `timeoutMs`.
   */
  settle(roots: string[], timeoutMs: number): Promise<string[]> {
    return settle(this.client, this.hosts, roots, timeoutMs);
  }

  async close(): Promise<void> {
    for (const close of this.closers) await close().catch(() => undefined);
    await this.session.close();
    await this.remote.close().catch(() => undefined);
    await this.hosts.stop();
    await this.connection.close().catch(() => undefined);
    if (this.streams && 'close' in this.streams)
      await (this.streams as { close: () => Promise<void> }).close().catch(() => undefined);
    await this.brokerBack?.catch(() => undefined);
    await this.redis?.stop();
    await this.server.kill();
  }
}
