/**
 * What the edge test (edge.test.ts) sends and checks: a body of any size posted in chunks, with a
 * Content-Length or without one, and a problem answer that names its status in baton's words.
 */
import http from 'node:http';
import { expect } from 'vitest';
import type { Answer } from './service';

/** A problem answer with `status`, saying `detail`, and nothing of Temporal's own text. */
export function expectProblem(answer: Answer, status: number, detail?: RegExp) {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers.get('content-type')).toBe('application/problem+json');
  if (detail) expect(answer.body.detail).toMatch(detail);
  expect(answer.text).not.toMatch(/INVALID_ARGUMENT|NOT_FOUND:|grpc|TMPRL/i);
}

/**
 * POST `total` bytes of a JSON body to `url` on a connection of its own, in 64 KiB chunks, with a
 * Content-Length or without one (chunked), and return the answer and how many bytes had been
 * written when it came. The body is cut short once the answer is in.
 */
export function post(
  url: string,
  token: string,
  total: number,
  chunked = false,
): Promise<{ status: number; written: number; body: string }> {
  return new Promise((resolve, reject) => {
    let written = 0;
    let answered = false;
    const length = chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(total + 32) };
    const req = http.request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...length },
      },
      (res) => {
        answered = true;
        const at = written;
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, written: at, body }));
      },
    );
    req.on('error', (err) => (answered ? undefined : reject(err)));
    const head = Buffer.from('{"agent":"triage","input":"'.padEnd(30, ' '));
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const pump = () => {
      while (!answered && written < total) {
        written += chunk.length;
        if (!req.write(written === chunk.length ? Buffer.concat([head, chunk.subarray(head.length)]) : chunk))
          return void req.once('drain', pump);
      }
      if (!answered) req.end('"}');
    };
    pump();
  });
}
