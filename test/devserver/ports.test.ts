import fs from 'node:fs';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { ephemeralStart, freePort } from '../../src/devserver/ports';

describe('ports for the servers baton starts', () => {
  it('are below the range the kernel gives outgoing connections, and free to listen on', async () => {
    const range = '/proc/sys/net/ipv4/ip_local_port_range';
    if (fs.existsSync(range))
      expect(ephemeralStart()).toBe(Number(fs.readFileSync(range, 'utf8').trim().split(/\s+/)[0]));
    // The local ends of outgoing connections come from the ephemeral range, which the ports are below.
    const server = net.createServer((s) => s.destroy());
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const { port: target } = server.address() as net.AddressInfo;
    const clients = await Promise.all(
      Array.from({ length: 20 }, () => {
        const c = net.connect(target, '127.0.0.1');
        return new Promise<net.Socket>((ok) => c.once('connect', () => ok(c)));
      }),
    );
    for (const c of clients) expect(c.localPort).toBeGreaterThanOrEqual(ephemeralStart());
    const ports = await Promise.all(Array.from({ length: 40 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(ephemeralStart());
    }
    for (const c of clients) c.destroy();
    await new Promise<void>((ok) => server.close(() => ok()));
    // Each can be listened on.
    for (const port of ports.slice(0, 5)) {
      const s = net.createServer();
      await new Promise<void>((ok, fail) => s.once('error', fail).listen(port, '127.0.0.1', ok));
      await new Promise<void>((ok) => s.close(() => ok()));
    }
  });
});
