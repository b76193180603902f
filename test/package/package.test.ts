/**
 * baton as a user gets it: the packed tarball installed into a fresh ES module service and a fresh
 * CommonJS service, each type-checked with `tsc --init`'s configuration and with NodeNext, then run
 * with plain `node` (no tsx) against a real Temporal server: a worker, a two-agent chain with an
 * approval, the audit, `instanceof` on a typed error imported by name, the HTTP service from
 * `baton-agents/server` answering a request and serving the approvals page's prebuilt script, and the service's own Temporal worker running its own
 * workflow and baton's chain side by side through `BatonPlugin`. Then `npx baton-agents demo`.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { findTemporalBinary } from '../../src/devserver/binary';
import { useTemporalServer } from '../helpers/temporal';
import { type Packed, packedPackage } from './pack';

const run = promisify(execFile);
const repo = path.resolve(__dirname, '../..');
const server = useTemporalServer();

/** The body both services run; `imports` differs by module system. */
const service = (imports: string, wrap: (body: string) => string) => `/// <reference types="node" />
${imports}

const lookupOrder = defineTool({
  name: 'lookupOrder',
  description: 'Look up an order',
  parameters: z.object({ orderId: z.string() }),
  execute: ({ orderId }) => ({ orderId, status: 'delivered' }),
});
const team = new Team([
  defineAgent({ id: 'triage', instructions: 'Route.', model: scripted([{ handoff: { to: 'refunds', message: 'refund order 42' } }]) }),
  defineAgent({
    id: 'refunds',
    instructions: 'Refund.',
    tools: [lookupOrder],
    approval: { approvers: ['alice'] },
    model: scripted([{ toolCalls: [{ name: 'lookupOrder', arguments: { orderId: '42' } }] }, { text: 'Refunded order 42.' }]),
  }),
]);

${wrap(`const taskQueue = process.argv[2] ?? 'package';
const worker = await createWorker({ team, taskQueue });
const baton = await connectBaton({ taskQueue });
const summary = await worker.runUntil(async () => {
  const run = await baton.start('triage', 'I want a refund for order 42');
  for await (const event of run.events()) {
    if (event.kind === 'approval_requested') await baton.approve(run.workflowId, event.approval.handoffId, { approver: 'alice', comment: 'ok' });
  }
  const result = await run.result();
  const audit = await baton.audit(run.workflowId);
  const failure = await baton.run('triage', 'again', { maxHandoffs: 0 }).catch((e: unknown) => e);
  const app = createBatonApp({ baton, auth: { tokens: [{ token: 'package-test-token', identity: 'alice', roles: ['approver'] }] }, metrics: false });
  const me = await app.request('/v1/me', { headers: { authorization: 'Bearer package-test-token' } });
  return {
    output: result.output,
    chain: result.handoffChain.map((h) => h.from + '>' + h.to),
    approvedBy: result.handoffChain[0]?.approval?.approver,
    audit: audit.status + ' ' + audit.events.filter((e) => e.kind === 'tool_call').length + ' tool call(s)',
    typedError: failure instanceof MaxHandoffsExceededError ? failure.name + ' ' + failure.limit : String(failure),
    server: me.status + ' ' + JSON.stringify(await me.json()),
    page: await pageScript(app),
  };
});

// The approvals page's script, bundled at build time and shipped in dist/: served with plain node.
async function pageScript(app: { request(path: string): Response | Promise<Response> }) {
  const res = await app.request('/assets/baton.js');
  const body = await res.text();
  return res.status + ' ' + res.headers.get('content-type') + ' ' + (body.includes("'baton.token'") || body.includes('"baton.token"')) + ' ' + body.includes('import ');
}

// The service's own worker, with its own workflow and activity, serving baton's chains too through the plugin.
const plugin = new BatonPlugin({ team });
const address = process.env.TEMPORAL_ADDRESS ?? 'localhost:7233';
const own = await Worker.create({
  connection: await NativeConnection.connect({ address }),
  taskQueue: taskQueue + '-own',
  workflowsPath: process.cwd() + '/workflows.js',
  activities: { shout: async (name: string) => name.toUpperCase() },
  plugins: [plugin],
});
const client = new Client({ connection: await Connection.connect({ address }), plugins: [plugin] });
const mine = new Baton({ client, taskQueue: taskQueue + '-own' });
const plugged = await own.runUntil(async () => {
  const greeting = await client.workflow.execute('greet', { taskQueue: taskQueue + '-own', workflowId: taskQueue + '-greet', args: ['ada'] });
  const run = await mine.start('triage', 'I want a refund for order 42');
  for await (const event of run.events()) {
    if (event.kind === 'approval_requested') await mine.approve(run.workflowId, event.approval.handoffId, { approver: 'alice' });
  }
  return { greeting, chain: (await run.result()).output };
});
console.log(JSON.stringify({ ...summary, plugged }));`)}
`;

/** The service's own workflows, beside baton's in its worker, written for each module system. */
const WORKFLOWS = {
  esm: `import { proxyActivities } from '@temporalio/workflow';

const { shout } = proxyActivities<{ shout(name: string): Promise<string> }>({ startToCloseTimeout: '10 seconds' });

export async function greet(name: string): Promise<string> {
  return 'hello ' + (await shout(name));
}
`,
  cjs: `import workflow = require('@temporalio/workflow');

const { shout } = workflow.proxyActivities<{ shout(name: string): Promise<string> }>({ startToCloseTimeout: '10 seconds' });

async function greet(name: string): Promise<string> {
  return 'hello ' + (await shout(name));
}

export = { greet };
`,
};

const NAMES =
  'Baton, BatonPlugin, connectBaton, createWorker, defineAgent, defineTool, MaxHandoffsExceededError, scripted, Team';

const NODENEXT = {
  compilerOptions: {
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    types: ['node'],
  },
};

async function sh(cwd: string, file: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  try {
    return await run(file, args, { cwd, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${file} ${args.join(' ')} failed in ${cwd}: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
}

describe('the published package', () => {
  it('installs, type-checks and runs in ES module and CommonJS services with plain node, and runs the demo', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-package-'));
    const { filename, files, size } = await packedPackage(repo, dir, async (destination) => {
      const { stdout: packed } = await sh(repo, 'npm', ['pack', '--json', '--pack-destination', destination]);
      return (JSON.parse(packed.slice(packed.indexOf('['))) as Packed[])[0]!;
    });
    const paths = files.map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'bin/baton.js',
        'dist/src/index.js',
        'dist/src/index.d.ts',
        'dist/esm/index.mjs',
        'dist/esm/server.mjs',
        'dist/src/server/index.js',
        'dist/workflow-bundle.js',
        'dist/src/server/page/page-bundle.js',
      ]),
    );
    expect(paths.filter((p) => p.startsWith('src/') || p.startsWith('test/') || p.endsWith('.test.js'))).toEqual([]);
    // Most of it is the prebuilt workflow bundle (dist/workflow-bundle.js, about 4.9 MB unpacked), which grows with the workflows.
    expect(size).toBeLessThan(2.5 * 1024 * 1024);

    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'services', private: true }));
    await sh(dir, 'npm', [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      path.join(dir, filename),
      'typescript@5',
      '@types/node@20',
      '@types/ms',
    ]);
    const installed = JSON.parse(fs.readFileSync(path.join(dir, 'node_modules/baton-agents/package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(installed.dependencies)).not.toContain('tsx');
    expect(fs.existsSync(path.join(dir, 'node_modules/@temporalio/testing'))).toBe(false);

    // The workflow bundle's source map names files relative to their packages, never the packing machine's paths (they would reach users' stack traces).
    const bundle = fs.readFileSync(path.join(dir, 'node_modules/baton-agents/dist/workflow-bundle.js'), 'utf8');
    expect(bundle).not.toContain(repo);
    const inline = /sourceMappingURL=data:application\/json;(?:charset=utf-8;)?base64,([A-Za-z0-9+/=]+)/.exec(bundle);
    const { sources } = JSON.parse(Buffer.from(inline![1]!, 'base64').toString()) as { sources: string[] };
    expect(sources.filter((s) => path.isAbsolute(s) || s.includes('..'))).toEqual([]);
    expect(sources).toContain('baton-agents/workflows/loop.ts');

    const tsc = path.join(dir, 'node_modules/typescript/bin/tsc');
    const env = { TEMPORAL_ADDRESS: server.env.address, TEMPORAL_NAMESPACE: 'default' };
    const projects = {
      esm: {
        type: 'module',
        source: service(
          `import { ${NAMES} } from 'baton-agents';\nimport { createBatonApp } from 'baton-agents/server';\nimport { Client, Connection } from '@temporalio/client';\nimport { NativeConnection, Worker } from '@temporalio/worker';\nimport { z } from 'zod';`,
          (body) => body,
        ),
      },
      cjs: {
        type: 'commonjs',
        source: service(
          `import baton = require('baton-agents');\nimport batonServer = require('baton-agents/server');\nimport temporalClient = require('@temporalio/client');\nimport temporalWorker = require('@temporalio/worker');\nimport zod = require('zod');\nconst { ${NAMES} } = baton;\nconst { createBatonApp } = batonServer;\nconst { Client, Connection } = temporalClient;\nconst { NativeConnection, Worker } = temporalWorker;\nconst { z } = zod;`,
          (body) => `async function main() {\n${body}\n}\nvoid main();`,
        ),
      },
    };
    for (const [name, project] of Object.entries(projects)) {
      const cwd = path.join(dir, name);
      fs.mkdirSync(cwd);
      fs.writeFileSync(path.join(cwd, 'package.json'), JSON.stringify({ name, private: true, type: project.type }));
      fs.writeFileSync(path.join(cwd, 'service.ts'), project.source);
      fs.writeFileSync(path.join(cwd, 'workflows.ts'), WORKFLOWS[name as keyof typeof WORKFLOWS]);
      await sh(cwd, process.execPath, [tsc, '--init']);
      // The declarations baton ships are checked once, in the ES module service: the CommonJS one reads the same files.
      const compilerOptions = { ...NODENEXT.compilerOptions, skipLibCheck: name !== 'esm' };
      fs.writeFileSync(
        path.join(cwd, 'tsconfig.nodenext.json'),
        JSON.stringify({ compilerOptions, files: ['service.ts', 'workflows.ts'] }),
      );
    }
    // Both services, each with both configurations, checked (and the --init ones compiled) by one
    // tsc in build mode, which reads the declarations they share (baton's, Temporal's, Node's) once.
    await sh(dir, process.execPath, [
      tsc,
      '--build',
      ...Object.keys(projects).flatMap((name) => [`${name}/tsconfig.nodenext.json`, `${name}/tsconfig.json`]),
    ]);
    for (const name of Object.keys(projects)) {
      const { stdout } = await sh(path.join(dir, name), process.execPath, ['service.js', `package-${name}`], env);
      expect(JSON.parse(stdout.trim().split('\n').at(-1)!), name).toEqual({
        output: 'Refunded order 42.',
        chain: ['triage>refunds'],
        approvedBy: 'alice',
        audit: 'completed 1 tool call(s)',
        typedError: 'MaxHandoffsExceededError 0',
        server: '200 {"name":"alice","roles":["approver"]}',
        page: '200 text/javascript; charset=utf-8 true false',
        plugged: { greeting: 'hello ADA', chain: 'Refunded order 42.' },
      });
    }

    // Every entry in package.json's exports loads in both services, with the same names (the ES module entries re-export the CommonJS ones);
    // baton-agents/react wants react, an optional peer these services do not install.
    const entries = Object.keys(
      (JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8')) as { exports: Record<string, unknown> })
        .exports,
    )
      .filter((k) => k !== './package.json' && k !== './react')
      .map((k) => `baton-agents${k.slice(1)}`);
    const probe = (load: string) =>
      `const out = {}; for (const s of ${JSON.stringify(entries)}) out[s] = Object.keys(${load}).filter((n) => n !== 'default' && n !== '__esModule').sort(); console.log(JSON.stringify(out));`;
    const esmNames = JSON.parse(
      (await sh(path.join(dir, 'esm'), process.execPath, ['--input-type=module', '-e', probe('await import(s)')]))
        .stdout,
    ) as Record<string, string[]>;
    const cjsNames = JSON.parse(
      (await sh(path.join(dir, 'cjs'), process.execPath, ['-e', probe('require(s)')])).stdout,
    ) as Record<string, string[]>;
    expect(Object.keys(esmNames)).toEqual(entries);
    expect(esmNames).toEqual(cjsNames);
    expect(esmNames['baton-agents/audit']).toContain('exportAudit');
    expect(esmNames['baton-agents/payloads']).toContain('batonDataConverter');

    const demo = await sh(dir, 'npx', ['--no-install', 'baton-agents', 'demo'], {
      TEMPORAL_CLI_PATH: findTemporalBinary('cli') ?? '',
    });
    expect(demo.stdout).toMatch(/answer from refunds/);
    expect(demo.stdout).toMatch(/flowchart LR/);
  }, 600_000);
});
