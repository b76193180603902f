/**
 * Each run and conversation option's `@default` in its doc comment (what the API docs and editors
 * show) says the default the option really has.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CALL_OPTIONS } from '../../src/common/callRunOptions';
import { CONTROL_OPTIONS } from '../../src/common/controlOptions';
import { CONVERSATION_OPTIONS } from '../../src/common/conversationOptions';
import { RUN_OPTIONS } from '../../src/common/options';

const SOURCES: [string, Record<string, { default?: unknown }>][] = [
  ['src/common/callRunOptions.ts', CALL_OPTIONS],
  ['src/common/controlOptions.ts', CONTROL_OPTIONS],
  ['src/common/options.ts', RUN_OPTIONS],
  ['src/common/conversationOptions.ts', CONVERSATION_OPTIONS],
];

/** Each option declared in `file` with the `@default` its doc comment gives. */
function documented(file: string): { name: string; said: string }[] {
  const source = fs.readFileSync(path.join(__dirname, '../..', file), 'utf8');
  return [...source.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*(\w+): option</g)].flatMap(([, doc, name]) => {
    const said = /@default\s+(.+?)\s*(?:\n|$)/.exec(doc!.replace(/\n\s*\* ?/g, '\n'))?.[1];
    return said === undefined ? [] : [{ name: name!, said: said.replace(/\s*\*$/, '') }];
  });
}

describe("the options' documented defaults", () => {
  it.each(SOURCES)('%s says the default of each option', (file, options) => {
    const found = documented(file);
    expect(found.length).toBeGreaterThan(0);
    for (const { name, said } of found) {
      const actual = options[name]?.default;
      if (actual === undefined) continue;
      expect(said, `${file}: ${name}`).toBe(JSON.stringify(actual));
    }
  });
});
