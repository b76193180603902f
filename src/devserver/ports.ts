/**
 * Ports for the servers baton starts on this machine (a dev server, and in its tests a broker or a
 * service brought down and back on its port). A port the kernel hands out with `listen(0)` comes
 * from the ephemeral range, the same range the local end of every outgoing connection takes its
 * port from: between choosing such a port and listening on it (or while a server is down and comes
 * back on it) a connection to a server on this machine can be given it, and the listen fails with
 * EADDRINUSE. So these are chosen below that range, where the kernel never puts a connection.
 */
import fs from 'node:fs';
import net from 'node:net';

/** The lowest port chosen: above the well-known and most registered service ports. */
const LOWEST = 20_000;
/** Where the ephemeral range starts when the kernel does not say (IANA's, macOS's and Windows' default). */
const IANA_EPHEMERAL = 49_152;

/** The first port of this machine's ephemeral range: Linux says in /proc; elsewhere IANA's. */
export function ephemeralStart(): number {
  try {
    const [low] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low !== undefined && Number.isInteger(low) && low > 0) return low;
  } catch {
    // Not Linux.
  }
  return IANA_EPHEMERAL;
}

/** Whether nothing listens on `port` at 127.0.0.1 now (by listening on it for a moment). */
function listenable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A TCP port on 127.0.0.1 that nothing listens on now, below the ephemeral range (so no outgoing
 * connection takes it before it is listened on, or while its server is down): tried at random,
 * else, when 200 tries found none, one the kernel hands out.
 */
export async function freePort(): Promise<number> {
  // A range tuned to start below LOWEST leaves no such port: the kernel's choice it is.
  const span = ephemeralStart() - LOWEST;
  for (let tries = 0; span > 1000 && tries < 200; tries++) {
    const port = LOWEST + Math.floor(Math.random() * span);
    if (await listenable(port)) return port;
  }
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
