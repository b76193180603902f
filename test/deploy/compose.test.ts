/**
 * docker-compose.yml and what it mounts, checked without a Docker engine: services wired to each
 * other, tools that exist in the images used (temporalio/server has busybox `nc`, not `tctl`;
 * admin-tools has the `temporal` CLI and `temporal-sql-tool`), search attributes registered before
 * a baton container starts, Prometheus scraping the ports baton serves, and a Grafana dashboard
 * that asks only for metrics baton registers.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Baton } from '../../src/client/baton';
import { BATON_SEARCH_ATTRIBUTES } from '../../src/common/messages';
import { findTemporalBinary } from '../../src/devserver/binary';
import { parseTokens } from '../../src/server/auth';
import { ServiceMetrics } from '../../src/server/metrics';
import { BatonMetrics } from '../../src/worker/telemetry';

const root = path.resolve(__dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

interface Service {
  image?: string;
  build?: string;
  environment?: Record<string, string>;
  ports?: string[];
  depends_on?: string[] | Record<string, { condition: string }>;
  command?: string[];
  entrypoint?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
}
const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;
const service = (name: string) => services[name]!;
const deps = (s: Service) =>
  Array.isArray(s.depends_on)
    ? Object.fromEntries(s.depends_on.map((d) => [d, 'service_started']))
    : Object.fromEntries(Object.entries(s.depends_on ?? {}).map(([k, v]) => [k, v.condition]));
/** Host file → container path of a service's bind mounts. */
const mounts = (s: Service) =>
  Object.fromEntries(
    (s.volumes ?? [])
      .filter((v) => v.startsWith('./') || v.startsWith('${'))
      .map((v) => [
        v.replace(/^\$\{[A-Z_]+:-(.+?)\}/, '$1').split(':')[0]!,
        v.replace(/^\$\{[^}]+\}/, '').split(':')[1]!,
      ]),
  );
const hostFor = (s: Service, target: string) =>
  Object.entries(mounts(s)).find(([, t]) => target === t || target.startsWith(`${t}/`));
/** The host file a container path of `s` comes from. */
function hostPath(s: Service, target: string): string {
  const [host, mounted] = hostFor(s, target) ?? [];
  if (!host) throw new Error(`${target} is not mounted`);
  return path.join(root, host, path.relative(mounted!, target));
}
const flag = (command: string[] | undefined, name: string) => command?.[command.indexOf(name) + 1];

describe('docker-compose.yml', () => {
  it('has Temporal on PostgreSQL with its UI, baton workers and service, Prometheus and Grafana', () => {
    expect(Object.keys(services).sort()).toEqual(
      [
        'baton',
        'baton-setup',
        'grafana',
        'postgresql',
        'prometheus',
        'temporal',
        'temporal-schema',
        'temporal-ui',
        'worker',
      ].sort(),
    );
    for (const [name, s] of Object.entries(services)) if (s.image) expect(s.image, name).toMatch(/:v?\d[\w.-]*$/);
  });

  it('runs the current Temporal images: schema and setup from admin-tools, the server checked with a tool its image has', () => {
    const pg = service('postgresql').environment!;
    for (const name of ['temporal', 'temporal-schema']) {
      const env = service(name).environment!;
      expect(env.POSTGRES_SEEDS, name).toBe('postgresql');
      expect(env.POSTGRES_USER, name).toBe(pg.POSTGRES_USER);
      expect(env.POSTGRES_PWD, name).toBe(pg.POSTGRES_PASSWORD);
    }
    const temporal = service('temporal');
    expect(temporal.image).toMatch(/^temporalio\/server:/);
    expect(temporal.environment!.DB).toBe('postgres12');
    expect(deps(temporal)).toEqual({ 'temporal-schema': 'service_completed_successfully' });
    expect(deps(service('temporal-schema'))).toEqual({ postgresql: 'service_healthy' });
    // Alpine's busybox nc; tctl is no longer in Temporal's images, and the CLI lives in admin-tools.
    expect(temporal.healthcheck!.test.slice(0, 2)).toEqual(['CMD', 'nc']);
    expect(temporal.environment!.BIND_ON_IP).toBe('0.0.0.0');
    for (const s of Object.values(services)) expect(JSON.stringify(s.healthcheck ?? {})).not.toContain('tctl');
    const dynamic = path.posix.join('/etc/temporal', temporal.environment!.DYNAMIC_CONFIG_FILE_PATH!);
    expect(fs.existsSync(hostPath(temporal, dynamic))).toBe(true);
    expect(temporal.ports).toContain('${BATON_PUBLISH_ADDRESS:-127.0.0.1}:7233:7233');
  });

  it('runs the Temporal server and UI versions the tests run on (those of the Temporal CLI the tests use)', () => {
    const cli = process.env.TEMPORAL_CLI_PATH ?? findTemporalBinary('cli');
    const version = execFileSync(cli!, ['--version'], { encoding: 'utf8' });
    const [, server, ui] = /Server (\d[\w.-]*), UI (\d[\w.-]*)/.exec(version) ?? [];
    expect(server, version).toBeDefined();
    expect(service('temporal').image).toBe(`temporalio/server:${server}`);
    for (const name of ['temporal-schema', 'baton-setup'])
      expect(service(name).image, name).toBe(`temporalio/admin-tools:${server}`);
    expect(service('temporal-ui').image).toBe(`temporalio/ui:${ui}`);
  });

  it("registers baton's search attributes before a worker or the service starts", () => {
    const setup = service('baton-setup');
    expect(setup.image).toBe(service('temporal-schema').image);
    expect(setup.image).toMatch(/^temporalio\/admin-tools:/);
    expect(deps(setup)).toEqual({ temporal: 'service_healthy' });
    const script = fs.readFileSync(hostPath(setup, setup.entrypoint!.at(-1)!), 'utf8');
    expect(script).toContain('t() { temporal "$@" --address "$TEMPORAL_ADDRESS"; }');
    expect(script).toContain('retry t operator cluster health');
    for (const key of BATON_SEARCH_ATTRIBUTES)
      expect(script).toMatch(
        new RegExp(
          `add ${key.name} ${{ INT: 'Int', KEYWORD: 'Keyword', DATETIME: 'Datetime', KEYWORD_LIST: 'KeywordList' }[key.type]}\\b`,
        ),
      );
    expect(script).toContain('t operator search-attribute create --name "$1" --type "$2"');
    const schema = service('temporal-schema');
    expect(fs.readFileSync(hostPath(schema, schema.entrypoint!.at(-1)!), 'utf8')).toContain(
      'temporal-sql-tool --plugin postgres12',
    );
    for (const name of ['worker', 'baton'])
      expect(deps(service(name)), name).toEqual({ 'baton-setup': 'service_completed_successfully' });
  });

  it('builds the workers and the service from the Dockerfile, pointed at Temporal', () => {
    const dockerfile = read('Dockerfile');
    for (const dir of ['src', 'workflows', 'activities', 'examples', 'bin'])
      expect(dockerfile).toContain(`COPY ${dir} ./${dir}`);
    // The Temporal SDK and zod are peers that --omit=dev would drop; tsx runs the sources.
    expect(dockerfile).toContain('npm pkg delete devDependencies');
    expect(dockerfile).toContain('dependencies.tsx=');
    for (const name of ['worker', 'baton']) {
      const s = service(name);
      expect(s.build, name).toBe('.');
      expect(s.environment, name).toMatchObject({
        TEMPORAL_ADDRESS: 'temporal:7233',
        OPENAI_API_KEY: '${OPENAI_API_KEY:-}',
      });
    }
    const worker = service('worker');
    expect(worker.command!.slice(0, 3)).toEqual(['node', 'bin/baton.js', 'worker']);
    expect(fs.existsSync(path.join(root, flag(worker.command, '--team')!))).toBe(true);
    expect(service('baton').command!.slice(0, 3)).toEqual(['node', 'bin/baton.js', 'serve']);
    expect(service('temporal-ui').environment!.TEMPORAL_ADDRESS).toBe('temporal:7233');
  });

  it('configures the service with tokens that parse, and checks its health on the port it serves', () => {
    const baton = service('baton');
    const port = flag(baton.command, '--port')!;
    expect(baton.ports!.every((p) => p.endsWith(`:${port}`))).toBe(true);
    // Inside its container the service listens on every interface; Docker publishes it on BATON_PUBLISH_ADDRESS.
    expect(flag(baton.command, '--host')).toBe('0.0.0.0');
    expect(baton.healthcheck!.test.join(' ')).toContain(`http://127.0.0.1:${port}/healthz`);
    const tokensFile = hostPath(baton, baton.environment!.BATON_TOKENS_FILE!);
    const tokens = parseTokens(fs.readFileSync(tokensFile, 'utf8'), tokensFile);
    expect(tokens.map((t) => t.roles).flat()).toEqual(expect.arrayContaining(['starter', 'approver']));
  });

  it('publishes every port on 127.0.0.1 unless BATON_PUBLISH_ADDRESS says otherwise, with no admin token and no default Grafana password', () => {
    const published = Object.entries(services).flatMap(([name, s]) => (s.ports ?? []).map((p) => [name, p] as const));
    expect(published.map(([name]) => name).sort()).toEqual([
      'baton',
      'grafana',
      'prometheus',
      'temporal',
      'temporal-ui',
    ]);
    for (const [name, p] of published)
      expect(p, name).toMatch(/^\$\{BATON_PUBLISH_ADDRESS:-127\.0\.0\.1\}:\d+(-\d+)?:\d+$/);
    const baton = service('baton');
    const tokens = parseTokens(
      fs.readFileSync(hostPath(baton, baton.environment!.BATON_TOKENS_FILE!), 'utf8'),
      'tokens.dev.json',
    );
    expect(tokens.flatMap((t) => t.roles)).not.toContain('admin');
    // The metrics port is scraped inside the stack, not published.
    const metricsPort = baton.environment!.BATON_METRICS_PORT!;
    expect(metricsPort).toMatch(/^\d+$/);
    expect(published.map(([, p]) => p.split(':').at(-1))).not.toContain(metricsPort);
    const grafana = service('grafana').environment!;
    expect(grafana.GF_SECURITY_ADMIN_PASSWORD).toMatch(/^\$\{GRAFANA_ADMIN_PASSWORD:\?[^}]+\}$/);
    expect(grafana.GF_SECURITY_ADMIN_USER).toMatch(/^\$\{GRAFANA_ADMIN_USER(:-\w+)?\}$/);
  });

  it('publishes no host port twice, counting the ranges replicas take', () => {
    const hostPorts = Object.values(services).flatMap((s) =>
      (s.ports ?? []).flatMap((p) => {
        const [from, to = from] = p
          .replace(/^\$\{[^}]+\}:/, '')
          .split(':')[0]!
          .split('-')
          .map(Number);
        return Array.from({ length: to! - from! + 1 }, (_, i) => from! + i);
      }),
    );
    expect(new Set(hostPorts).size).toBe(hostPorts.length);
  });

  it('has Prometheus scrape every replica of the service and the workers on the ports they serve metrics on', () => {
    const prometheus = service('prometheus');
    const config = parse(fs.readFileSync(hostPath(prometheus, '/etc/prometheus/prometheus.yml'), 'utf8')) as {
      scrape_configs: {
        job_name: string;
        dns_sd_configs?: { names: string[]; port: number }[];
        static_configs?: { targets: string[] }[];
      }[];
    };
    const job = (name: string) => config.scrape_configs.find((j) => j.job_name === name)!;
    expect(job('baton-service').dns_sd_configs![0]).toMatchObject({
      names: ['baton'],
      port: Number(service('baton').environment!.BATON_METRICS_PORT),
    });
    expect(job('baton-worker').dns_sd_configs![0]).toMatchObject({
      names: ['worker'],
      port: Number(service('worker').environment!.BATON_METRICS_PORT),
    });
    expect(job('temporal').static_configs![0]!.targets).toEqual([
      `temporal:${service('temporal').environment!.PROMETHEUS_ENDPOINT!.split(':')[1]}`,
    ]);
  });

  it("provisions Grafana with the Prometheus data source and baton's dashboard, which asks only for metrics baton registers", () => {
    const grafana = service('grafana');
    const datasources = parse(
      fs.readFileSync(hostPath(grafana, '/etc/grafana/provisioning/datasources/prometheus.yml'), 'utf8'),
    ) as { datasources: { uid: string; url: string }[] };
    expect(datasources.datasources[0]!.url).toBe('http://prometheus:9090');
    const providers = parse(
      fs.readFileSync(hostPath(grafana, '/etc/grafana/provisioning/dashboards/baton.yml'), 'utf8'),
    ) as { providers: { options: { path: string } }[] };
    const dashboardPath = path.posix.join(providers.providers[0]!.options.path, 'baton.json');
    expect(grafana.environment!.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH).toBe(dashboardPath);
    const dashboard = JSON.parse(fs.readFileSync(hostPath(grafana, dashboardPath), 'utf8')) as {
      panels: { type: string; datasource?: { uid: string }; targets?: { expr: string }[] }[];
    };

    const registry = new Registry();
    BatonMetrics.in(registry);
    ServiceMetrics.in(registry, {} as Baton);
    const known = new Set(
      registry.getMetricsAsArray().flatMap((m) => {
        const { name, type } = m as unknown as { name: string; type: string };
        return type === 'histogram' ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name];
      }),
    );
    const queries = dashboard.panels.filter((p) => p.type !== 'row');
    expect(queries.length).toBeGreaterThanOrEqual(20);
    const asked = new Set<string>();
    for (const panel of queries) {
      expect(panel.datasource?.uid).toBe(datasources.datasources[0]!.uid);
      for (const t of panel.targets ?? []) for (const m of t.expr.match(/\bbaton_\w+/g) ?? []) asked.add(m);
    }
    expect([...asked].filter((m) => !known.has(m))).toEqual([]);
    for (const metric of [
      'baton_handoffs_total',
      'baton_chains_total',
      'baton_approvals_waiting',
      'baton_approval_wait_seconds_bucket',
      'baton_model_tokens_total',
      'baton_model_call_seconds_bucket',
      'baton_tool_calls_total',
      'baton_loops_detected_total',
      'baton_circuit_breakers_open',
      'baton_budgets_exceeded_total',
      'baton_guardrail_trips_total',
      'baton_cost_total',
      'baton_shared_breaker_state',
      'baton_spend_refusals_total',
    ]) {
      expect(asked.has(metric), metric).toBe(true);
    }
  });
});
