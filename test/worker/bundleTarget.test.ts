import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { workflowBundle } from '../../src/worker';

describe("baton's workflow bundle", () => {
  it('runs the workflows as the package compiles them (ES2022): no helper calls for object spread or private fields', async () => {
    const bundle = await workflowBundle();
    const code = 'code' in bundle ? bundle.code : fs.readFileSync(bundle.codePath, 'utf8');
    expect(code).toContain('function handoffRun');
    expect(code).not.toMatch(/\b_object_spread(_props)?\(|\b_class_private_field_(get|set|init)\(/);
  });
});
