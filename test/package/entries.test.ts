/**
 * baton's entry points: the root stays a small front door (at most 60 names, values and types
 * counted alike), each subpath exports its key names, the front door and the new subpaths share no
 * name (each has one home), and package.json, the build and the type paths name the same entries.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const repo = path.resolve(__dirname, '../..');
const MAX_ROOT_NAMES = 60;

/** Each subpath's source entry and names it must export (a value or a type). */
const SUBPATHS: Record<string, { source: string; names: string[] }> = {
  agents: {
    source: 'src/agents/index.ts',
    names: [
      'diffTeams',
      'teamVersion',
      'createHandoffTool',
      'BatonHooks',
      'HandoffDeclaration',
      'GatedEntry',
      'REDACTED',
      'GuardrailOptions',
    ],
  },
  models: {
    source: 'src/models/index.ts',
    names: ['OpenAIProviderOptions', 'AiSdkOptions', 'ModelCallContext', 'ScriptedOptions'],
  },
  client: {
    source: 'src/client/index.ts',
    names: [
      'toBatonError',
      'temporalConfig',
      'parsePosition',
      'formatPosition',
      'ReplayOptions',
      'SteerOptions',
      'PolicyLoosenedError',
      'PROTECTIVE_OPTIONS',
    ],
  },
  audit: {
    source: 'src/audit/index.ts',
    names: [
      'exportAudit',
      'verifyAuditExport',
      'verifyAgainstHistory',
      'formatTimeline',
      'toMermaid',
      'auditConversation',
      'AuditChain',
      'AuditExport',
    ],
  },
  eval: {
    source: 'src/eval/index.ts',
    names: [
      'runEval',
      'evalCases',
      'createEvalWorker',
      'readDataset',
      'appendToDataset',
      'Experiments',
      'experimentStats',
      'fisherExact',
      'mannWhitneyU',
      'EvalReport',
    ],
  },
  payloads: {
    source: 'src/payloads/index.ts',
    names: [
      'batonDataConverter',
      'AesGcmPayloadCodec',
      'GzipPayloadCodec',
      'ClaimCheckPayloadCodec',
      'FileBlobStore',
      'startCodecServer',
      'codecOptionsFromEnv',
      'PayloadCodecOptions',
    ],
  },
  signing: {
    source: 'src/client/signing/index.ts',
    names: [
      'decisionSigner',
      'generateApproverKey',
      'signDecision',
      'signOverrides',
      'verifyDecisionSignature',
      'canonicalJson',
      'TrustedKey',
      'ExportKey',
    ],
  },
  streams: {
    source: 'src/streams/index.ts',
    names: [
      'RedisStreams',
      'InProcessStreams',
      'inProcessStreams',
      'streamsFromEnv',
      'TextBoard',
      'StreamTransport',
      'MessageStreamItem',
    ],
  },
  economics: {
    source: 'src/economics/index.ts',
    names: [
      'BatonEconomics',
      'DEFAULT_PRICES',
      'formatCost',
      'PriceTable',
      'SpendLimit',
      'SharedBreakers',
      'SpendLimitExceededError',
      'PriceUnknownError',
      'MaxTurnsExceededError',
    ],
  },
  mcp: {
    source: 'src/mcp/index.ts',
    names: ['mcpServer', 'McpConnectionError', 'McpServerUnavailableError', 'McpWorkerOptions'],
  },
  worker: {
    source: 'src/worker/index.ts',
    names: ['createWorker', 'BatonPlugin', 'checkHistories', 'BatonMetrics', 'BatonTracing', 'ensureSearchAttributes'],
  },
  workflow: {
    source: 'src/workflow.ts',
    names: ['handoffRun', 'approveHandoffSignal', 'statusQuery', 'Patches', 'HandoffRunInput', 'UserError'],
  },
  server: { source: 'src/server/index.ts', names: ['createBatonApp', 'serveBaton'] },
  react: { source: 'src/react/index.ts', names: ['batonChatTransport', 'useRun', 'usePendingApprovals'] },
};
/** Subpaths that existed before the front door shrank: they may repeat root names (createWorker, the workflow-safe errors). */
const OLDER = new Set(['worker', 'workflow', 'server', 'react']);

/** The names an entry exports, values and types, as a service's compiler sees them. */
let exportsOf: (source: string) => string[];

beforeAll(() => {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(repo, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  )!;
  const sources = ['src/index.ts', ...Object.values(SUBPATHS).map((s) => s.source)].map((s) => path.join(repo, s));
  const program = ts.createProgram(sources, { ...config.options, noEmit: true });
  const checker = program.getTypeChecker();
  exportsOf = (source) => {
    const file = program.getSourceFile(path.join(repo, source));
    if (!file) throw new Error(`${source} is not in the program`);
    return checker
      .getExportsOfModule(checker.getSymbolAtLocation(file)!)
      .map((s) => s.name)
      .sort();
  };
}, 120_000);

describe('the package entry points', () => {
  it(`the root exports at most ${MAX_ROOT_NAMES} names, with what a service needs to define a team, run a worker and start chains`, () => {
    const names = exportsOf('src/index.ts');
    expect(names.length, `the root exports ${names.length} names: ${names.join(', ')}`).toBeLessThanOrEqual(
      MAX_ROOT_NAMES,
    );
    expect(names).toEqual(
      expect.arrayContaining([
        'Team',
        'defineAgent',
        'defineTool',
        'handoff',
        'openai',
        'scripted',
        'createWorker',
        'BatonPlugin',
        'connectBaton',
        'Baton',
        'BatonRun',
        'StartOptions',
        'DecisionOptions',
        'BatonError',
        'MaxHandoffsExceededError',
        'LIMITS',
      ]),
    );
  });

  it.each(Object.entries(SUBPATHS))('baton-agents/%s exports its key names', (_subpath, { source, names }) => {
    const exported = exportsOf(source);
    expect(exported.length).toBeGreaterThan(0);
    expect(names.filter((n) => !exported.includes(n))).toEqual([]);
  });

  it('a name of the root or of a new subpath has no second home among them', () => {
    const homes = new Map<string, string[]>();
    const entries: [string, string][] = [
      ['.', 'src/index.ts'],
      ...Object.entries(SUBPATHS)
        .filter(([s]) => !OLDER.has(s))
        .map(([s, { source }]): [string, string] => [s, source]),
    ];
    for (const [entry, source] of entries)
      for (const name of exportsOf(source)) homes.set(name, [...(homes.get(name) ?? []), entry]);
    expect([...homes].filter(([, at]) => at.length > 1).map(([name, at]) => `${name}: ${at.join(', ')}`)).toEqual([]);
  });

  it('package.json, the build, and the type paths name the same entries', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
    };
    const subpaths = Object.keys(pkg.exports)
      .filter((k) => k !== '.' && k !== './package.json')
      .map((k) => k.slice(2))
      .sort();
    expect(subpaths).toEqual(Object.keys(SUBPATHS).sort());
    const build = fs.readFileSync(path.join(repo, 'scripts/build.mjs'), 'utf8');
    const tsconfig = fs.readFileSync(path.join(repo, 'tsconfig.json'), 'utf8');
    for (const subpath of subpaths) {
      const compiled = SUBPATHS[subpath]!.source.replace(/\.ts$/, '');
      expect(pkg.exports[`./${subpath}`], subpath).toEqual({
        import: { types: `./dist/esm/${subpath}.d.mts`, default: `./dist/esm/${subpath}.mjs` },
        require: { types: `./dist/${compiled}.d.ts`, default: `./dist/${compiled}.js` },
      });
      expect(build, subpath).toContain(`${subpath}: '${compiled}.js'`);
      expect(tsconfig, subpath).toContain(`"baton-agents/${subpath}": ["./${SUBPATHS[subpath]!.source}"]`);
    }
  });
});
