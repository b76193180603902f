/**
 * A `temporal server start-dev` process the drill owns, so it can `kill -9` it and start it again
 * on the same port and database file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { Connection } from '@temporalio/client';
import { BATON_SEARCH_ATTRIBUTES } from '../src/workflow';
import { findTemporalBinary } from '../src/devserver/binary';
import { freePort } from '../src/devserver/ports';

const TYPE_NAMES = { KEYWORD: 'Keyword', INT: 'Int', DATETIME: 'Datetime', KEYWORD_LIST: 'KeywordList' } as const;

/** A dev server on a fixed port, optionally persisted to a SQLite file. */
export class DrillServer {
  private child?: ChildProcess;

  private constructor(
    readonly binary: string,
    readonly port: number,
    readonly dbFile: string | undefined,
    readonly logFile: string,
  ) {}

  /** Find the `temporal` binary (installing it when missing) and pick a port. */
  static async create(options: { dbFile?: string; logFile: string }): Promise<DrillServer> {
    const binary = findTemporalBinary('cli');
    if (!binary) throw new Error('no Temporal CLI: set TEMPORAL_CLI_PATH or make python3 -m pip work');
    return new DrillServer(binary, await freePort(), options.dbFile, options.logFile);
  }

  /** The server process's id while it runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Where clients and workers connect. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Start the server and wait until it answers. */
  async start(): Promise<void> {
    const args = [
      'server',
      'start-dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(this.port),
      '--headless',
      '--log-level',
      'error',
    ];
    if (this.dbFile) args.push('--db-filename', this.dbFile);
    for (const a of BATON_SEARCH_ATTRIBUTES) args.push('--search-attribute', `${a.name}=${TYPE_NAMES[a.type]}`);
    const log = fs.openSync(this.logFile, 'a');
    this.child = spawn(this.binary, args, { stdio: ['ignore', log, log] });
    fs.closeSync(log);
    await this.waitUntilServing();
  }

  /** `kill -9` the server and wait for it to be gone. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }

  private async waitUntilServing(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.child?.exitCode !== null && this.child?.exitCode !== undefined) {
        throw new Error(`temporal server exited with code ${this.child.exitCode}; see ${this.logFile}`);
      }
      try {
        const connection = await Connection.connect({ address: this.address, connectTimeout: 1000 });
        try {
          await connection.workflowService.describeNamespace({ namespace: 'default' });
          return;
        } finally {
          await connection.close();
        }
      } catch (err) {
        if (Date.now() > deadline)
          throw new Error(`temporal server not serving on ${this.address} after ${timeoutMs} ms: ${String(err)}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }
}
