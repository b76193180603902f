/**
 * The other team of the model-based harness: `ledger`, served over A2A on a port of its own
 * (./operations/remote.ts), which the harness team's triage delegates to. Its answer takes a
 * while, so the harness can take things down in the middle of its task.
 */
import { Team } from '../../src';
import { scriptedAgent } from '../helpers/agents';

/** What ledger answers every task with. */
export const LEDGER_ANSWER = 'ledger: settled';

export const team = new Team([scriptedAgent('ledger', [{ text: LEDGER_ANSWER, delayMs: 1_500 }])], { name: 'ledger' });
