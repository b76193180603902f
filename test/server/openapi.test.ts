/**
 * `/openapi.json` as the live service serves it, checked by a real OpenAPI validator: the document
 * is valid OpenAPI 3.1, every route of the API is in it with an `operationId` of its own, and every
 * response is described.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { createBatonApp } from '../../src/server';
import { useTemporalServer } from '../helpers/temporal';
import { STATIC_TOKENS, withBareService } from './service';

const server = useTemporalServer();

type Operation = { operationId?: string; responses?: Record<string, { description?: string }> };

describe('/openapi.json', () => {
  it('is valid OpenAPI, with an operationId for every route the service serves and every response described', async () => {
    await withBareService(server.env, async ({ call, baton }) => {
      const doc = (await call('GET', '/openapi.json')).body as { paths: Record<string, Record<string, Operation>> };
      await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();

      const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.entries(ops).map(([method, op]) => ({ route: `${method} ${path}`, op })),
      );
      const ids = operations.map((o) => o.op.operationId);
      expect(
        ids.filter((id) => !id),
        'routes without an operationId',
      ).toEqual([]);
      expect(new Set(ids).size).toBe(ids.length);
      for (const { route, op } of operations) {
        expect(Object.keys(op.responses ?? {}).length, `${route} has responses`).toBeGreaterThan(0);
        for (const [status, response] of Object.entries(op.responses ?? {}))
          expect(response.description, `${route} ${status}`).toMatch(/\S/);
      }

      // Every route of the API is described: none is served that the document leaves out.
      const app = createBatonApp({ baton, auth: { tokens: STATIC_TOKENS }, metrics: false });
      const served = new Set(
        app.routes
          .filter((r) => r.path.startsWith('/v1/') && r.method !== 'ALL')
          .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`),
      );
      expect([...served].sort()).toEqual(operations.map((o) => o.route).sort());
    });
  });

  it('the validator refuses what the service must not serve: a response without a description', async () => {
    await withBareService(server.env, async ({ call }) => {
      const doc = (await call('GET', '/openapi.json')).body as { paths: Record<string, Record<string, Operation>> };
      delete doc.paths['/v1/runs']!.post!.responses!['201']!.description;
      await expect(SwaggerParser.validate(doc as never)).rejects.toThrow(/must have required property 'description'/);
    });
  });
});
