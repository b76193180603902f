/** Where the page tests find Chromium without a path written into them. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findChromium } from '../helpers/chromium';

function executable(file: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, '#!/bin/sh\n');
  fs.chmodSync(file, 0o755);
  return file;
}

describe('finding Chromium for the page tests', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-chromium-'));
  const nowhere = {
    PATH: path.join(dir, 'empty'),
    HOME: path.join(dir, 'home'),
    PLAYWRIGHT_BROWSERS_PATH: path.join(dir, 'none'),
  };

  it('takes BATON_CHROMIUM first, and only when it is an executable', () => {
    const given = executable(path.join(dir, 'given/chrome'));
    expect(findChromium({ ...nowhere, BATON_CHROMIUM: given })).toBe(given);
    expect(findChromium({ ...nowhere, BATON_CHROMIUM: path.join(dir, 'given/missing') })).toBeUndefined();
  });

  it('looks on PATH under the names Chromium and Chrome go by', () => {
    const chrome = executable(path.join(dir, 'bin/google-chrome'));
    expect(
      findChromium({ ...nowhere, PATH: `${path.join(dir, 'empty')}${path.delimiter}${path.join(dir, 'bin')}` }),
    ).toBe(chrome);
  });

  it("finds the newest Chromium in Playwright's browser cache", () => {
    const cache = path.join(dir, 'ms-playwright');
    executable(path.join(cache, 'chromium-1100/chrome-linux/chrome'));
    const newest = executable(path.join(cache, 'chromium-1187/chrome-linux/chrome'));
    const found = findChromium({ ...nowhere, PLAYWRIGHT_BROWSERS_PATH: cache });
    // Unless the system has one of its own, which comes first.
    expect([newest, '/usr/bin/chromium', '/usr/bin/chromium-browser']).toContain(found);
    if (!fs.existsSync('/usr/bin/chromium') && !fs.existsSync('/usr/bin/chromium-browser')) expect(found).toBe(newest);
  });
});
