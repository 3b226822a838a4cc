import type { Json } from '../helpers/json.js';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';
import { catalogue } from '../../src/operations/catalogue.js';

/** Every endpoint row of the interface specification, as METHOD path (copied into fixtures). */
function specificationRoutes(): string[] {
  const { routes } = JSON.parse(
    readFileSync(new URL('../fixtures/spec-routes.json', import.meta.url), 'utf8'),
  ) as { routes: string[] };
  return routes.map((route) => {
    const [method, path] = route.split(' ') as [string, string];
    const full = path.startsWith('/v1') ? path : `/api/v1/workspaces/{workspace_id}${path}`;
    return `${method} ${full}`;
  });
}

const normalise = (path: string) => path.replace(/\{[^}]+\}/g, '{}');

describe('the contract of the specification', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.stop());

  it('the OpenAPI document lists every route of the specification with request and response schemas', async () => {
    const doc = (await s.call('GET', '/openapi.json')).body;
    const documented = new Set<string>();
    for (const [path, methods] of Object.entries(
      doc.paths as Record<string, Record<string, Json>>,
    )) {
      for (const [method, op] of Object.entries(methods)) {
        documented.add(`${method.toUpperCase()} ${normalise(path)}`);
        expect(Object.keys(op.responses).length, `${method} ${path}`).toBeGreaterThan(1);
      }
    }
    // Every route documents what it answers (beyond a bare object).
    for (const op of catalogue.filter((o) => o.http)) {
      expect(op.output, `${op.name} has no response schema`).toBeDefined();
    }
    for (const op of catalogue.filter((o) => o.http && o.body)) {
      const path = op.http!.path.replace(/:([A-Za-z_]+)/g, '{$1}');
      expect(doc.paths[path][op.http!.method.toLowerCase()].requestBody, op.name).toBeDefined();
    }
    const routes = specificationRoutes();
    expect(routes.length).toBe(20);
    const missing = routes.filter(
      (r) => !documented.has(`${r.split(' ')[0]} ${normalise(r.split(' ')[1]!)}`),
    );
    expect(missing).toEqual([]);
  });

  it('publishes the full enum sets of persona fields', async () => {
    const doc = (await s.call('GET', '/openapi.json')).body;
    const body =
      doc.paths['/api/v1/workspaces/{workspace_id}/personas'].post.requestBody.content[
        'application/json'
      ].schema;
    expect(body.properties.difficulty.enum).toEqual(['easy', 'medium', 'hard', 'very_hard']);
    expect(body.properties.emotion.enum).toEqual(
      expect.arrayContaining(['frustrated', 'happy', 'confused', 'neutral']),
    );
    expect(body.properties.backgroundNoise.enum).toEqual(
      expect.arrayContaining(['office', 'none']),
    );
    expect(body.required).toEqual(['name', 'prompt']);
    expect(body.additionalProperties).toBe(false);
  });

  it('every route of the specification answers (none is missing from the server)', async () => {
    for (const route of specificationRoutes()) {
      const [method, template] = route.split(' ') as [string, string];
      const path = template.replace('{workspace_id}', s.workspaceId).replace(/\{[^}]+\}/g, 'x_1');
      const res = await s.call(method, path, method === 'GET' ? undefined : {});
      expect(res.status, route).not.toBe(405);
      expect(res.body?.error?.message ?? '', route).not.toMatch(/There is no endpoint/);
    }
  });
});
