/**
 * The Chromium the page tests drive (through playwright-core, which brings no browser): found where
 * a machine keeps one, else installed as CI installs it, saying what it does.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { aptInstallSteps, has, isExecutable } from './system';

/** Names a Chromium or Chrome goes by on PATH. */
const NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];
/** Where Debian's and Ubuntu's packages put it, for a PATH without /usr/bin. */
const SYSTEM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** Where a Chromium was looked for, in order, for messages. */
export const SEARCHED =
  "BATON_CHROMIUM, PATH (chromium, chromium-browser, google-chrome), /usr/bin/chromium, Playwright's browser cache";

/** A Chromium executable: `BATON_CHROMIUM`, then PATH, then the system's, then Playwright's cache; `undefined` when there is none. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env.BATON_CHROMIUM;
  if (given) return isExecutable(given) ? given : undefined;
  const onPath = (env.PATH ?? '')
    .split(path.delimiter)
    .filter(Boolean)
    .flatMap((dir) => NAMES.map((name) => path.join(dir, name)));
  return [...onPath, ...SYSTEM, ...playwrightChromiums(env)].find(isExecutable);
}

/** Chromiums Playwright downloaded (`npx playwright install chromium`), newest revision first. */
function playwrightChromiums(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME ?? os.homedir();
  const cache =
    env.PLAYWRIGHT_BROWSERS_PATH ||
    (process.platform === 'darwin'
      ? path.join(home, 'Library/Caches/ms-playwright')
      : path.join(home, '.cache/ms-playwright'));
  let revisions: string[];
  try {
    revisions = fs.readdirSync(cache).filter((d) => /^chromium(_headless_shell)?-\d+$/.test(d));
  } catch {
    return [];
  }
  revisions.sort((a, b) => Number(b.split('-').pop()) - Number(a.split('-').pop()));
  const inside = [
    'chrome-linux/chrome',
    'chrome-linux64/chrome',
    'chrome-linux/headless_shell',
    'chrome-mac/Chromium.app/Contents/MacOS/Chromium',
  ];
  return revisions.flatMap((r) => inside.map((p) => path.join(cache, r, p)));
}

/**
 * Install Chromium as `.ci/run` used to: Debian's package with apt-get (through sudo when not root),
 * else Playwright's download; `say` reports each step. Resolves to the executable, or throws saying what failed.
 */
export function installChromium(say: (line: string) => void): string {
  const steps = installSteps();
  if (steps.length === 0)
    throw new Error(
      `no Chromium found (looked at ${SEARCHED}) and no way to install one here: install Chromium or Chrome, or set BATON_CHROMIUM to its executable`,
    );
  for (const [command, ...args] of steps) {
    say(`page tests: ${[command, ...args].join(' ')}`);
    const done = spawnSync(command!, args, { stdio: ['ignore', 'inherit', 'inherit'] });
    if (done.status !== 0)
      throw new Error(
        `\`${[command, ...args].join(' ')}\` failed (${done.error?.message ?? `exit ${done.status}`}): install Chromium yourself, or set BATON_CHROMIUM to its executable`,
      );
  }
  const found = findChromium();
  if (!found) throw new Error(`installed Chromium, yet none is at ${SEARCHED}: set BATON_CHROMIUM to its executable`);
  return found;
}

function installSteps(): string[][] {
  const apt = aptInstallSteps('chromium');
  if (apt) return apt;
  if (process.platform === 'linux' && has('apt-get')) return [];
  // Elsewhere (macOS, other Linux), Playwright's own download of the browser it is built for.
  return [
    [process.execPath, path.resolve(__dirname, '../../node_modules/playwright-core/cli.js'), 'install', 'chromium'],
  ];
}
