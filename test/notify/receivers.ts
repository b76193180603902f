/**
 * The receivers notifications go to, started by the tests: an HTTP server that records what it is
 * sent (a webhook endpoint, or a server that speaks Slack's incoming-webhook and response_url
 * shapes), and a real SMTP server (aiosmtpd from PyPI) that writes each message it takes to a file.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/devserver/ports';

export { freePort };

/** A request a receiver got. */
export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** An HTTP receiver on `port` (a free one when 0) answering `status` (Slack's webhooks answer `ok`). */
export async function httpReceiver(port = 0, status = 200) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push({ path: req.url ?? '/', headers: req.headers, body });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const SMTP_TARGET = path.resolve(__dirname, '../../node_modules/.cache/baton-smtp');

const SMTP_SERVER = `
import email, email.policy, json, os, sys
from aiosmtpd.controller import Controller
out, port = sys.argv[1], int(sys.argv[2])
class Keep:
    async def handle_DATA(self, server, session, envelope):
        m = email.message_from_bytes(envelope.original_content or envelope.content, policy=email.policy.default)
        part = lambda kind: (m.get_body(preferencelist=(kind,)) or m).get_content()
        kept = {'rcpt': envelope.rcpt_tos, 'from': envelope.mail_from, 'headers': {k.lower(): ' '.join(str(v).split()) for k, v in m.items()}, 'text': part('plain'), 'html': part('html')}
        name = os.path.join(out, '%06d.json' % len(os.listdir(out)))
        with open(name + '.tmp', 'w') as f:
            json.dump(kept, f)
        os.rename(name + '.tmp', name)
        return '250 OK'
c = Controller(Keep(), hostname='127.0.0.1', port=port)
c.start()
print('ready', flush=True)
sys.stdin.read()
c.stop()
`;

/** Python with aiosmtpd: installed from PyPI into node_modules/.cache/baton-smtp when missing. */
function pythonPathWithAiosmtpd(): string {
  const has = (env: Record<string, string>) =>
    spawnSync('python3', ['-c', 'import aiosmtpd'], { env: { ...process.env, ...env }, stdio: 'ignore' }).status === 0;
  if (has({ PYTHONPATH: SMTP_TARGET })) return SMTP_TARGET;
  const install = spawnSync(
    'python3',
    ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', SMTP_TARGET, 'aiosmtpd'],
    { encoding: 'utf8' },
  );
  if (install.status !== 0 || !has({ PYTHONPATH: SMTP_TARGET }))
    throw new Error(`pip install aiosmtpd failed: ${install.stderr}`);
  return SMTP_TARGET;
}

/** A message the SMTP server took, as Python's email parser read it. */
export interface Mail {
  rcpt: string[];
  from: string;
  headers: Record<string, string>;
  text: string;
  html: string;
}

/** A real SMTP server on a free port; `messages()` gives what it took, oldest first. */
export async function smtpServer() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-smtp-'));
  const port = await freePort();
  const child: ChildProcess = spawn('python3', ['-c', SMTP_SERVER, dir, String(port)], {
    env: { ...process.env, PYTHONPATH: pythonPathWithAiosmtpd() },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
    child.on('exit', (code) => reject(new Error(`the SMTP server exited (${code}): ${stderr}`)));
  });
  return {
    port,
    messages(): Mail[] {
      return fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Mail);
    },
    close: async () => {
      child.stdin?.end();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      setTimeout(() => child.kill('SIGKILL'), 3_000).unref();
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
