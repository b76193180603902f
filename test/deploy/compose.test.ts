import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = path.resolve(__dirname, '../..');
interface Service {
  image?: string;
  build?: string;
  environment?: Record<string, string>;
  ports?: string[];
  depends_on?: string[] | Record<string, unknown>;
  command?: string[];
}
const compose = parse(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8')) as { services: Record<string, Service> };
const services = compose.services;
const deps = (s: Service) => (Array.isArray(s.depends_on) ? s.depends_on : Object.keys(s.depends_on ?? {}));
const containerPort = (ports: string[] | undefined, port: string) => (ports ?? []).some((p) => p.split(':').at(-1) === port);

describe('docker-compose.yml', () => {
  it('has PostgreSQL, Temporal, the UI and a baton worker', () => {
    expect(Object.keys(services).sort()).toEqual(['postgresql', 'temporal', 'temporal-ui', 'worker']);
  });

  it('points Temporal at the PostgreSQL service with its credentials', () => {
    const pg = services.postgresql!.environment!;
    const t = services.temporal!.environment!;
    expect(t.DB).toMatch(/^postgres/);
    expect(t.POSTGRES_SEEDS).toBe('postgresql');
    expect(t.POSTGRES_USER).toBe(pg.POSTGRES_USER);
    expect(t.POSTGRES_PWD).toBe(pg.POSTGRES_PASSWORD);
    expect(deps(services.temporal!)).toContain('postgresql');
  });

  it('points the UI and the worker at the Temporal frontend it exposes', () => {
    expect(containerPort(services.temporal!.ports, '7233')).toBe(true);
    for (const name of ['temporal-ui', 'worker']) {
      const s = services[name]!;
      expect(s.environment?.TEMPORAL_ADDRESS).toBe('temporal:7233');
      expect(deps(s)).toContain('temporal');
    }
    expect(containerPort(services['temporal-ui']!.ports, '8080')).toBe(true);
  });

  it('publishes no host port twice', () => {
    const hostPorts = Object.values(services).flatMap((s) => (s.ports ?? []).map((p) => p.split(':')[0]));
    expect(new Set(hostPorts).size).toBe(hostPorts.length);
  });

  it('builds the worker from the Dockerfile and serves a team module that exists', () => {
    const worker = services.worker!;
    expect(worker.build).toBe('.');
    expect(fs.existsSync(path.join(root, 'Dockerfile'))).toBe(true);
    const command = worker.command ?? [];
    expect(command.slice(0, 3)).toEqual(['node', 'bin/baton.js', 'worker']);
    const team = command[command.indexOf('--team') + 1]!;
    expect(fs.existsSync(path.join(root, team))).toBe(true);
    expect(worker.environment?.OPENAI_API_KEY).toBe('${OPENAI_API_KEY:-}');
    const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    for (const dir of ['src', 'workflows', 'activities', 'examples', 'bin']) expect(dockerfile).toContain(`COPY ${dir} ./${dir}`);
  });
});
