/** The team of the chat test that kills its worker mid-answer: one agent writing a long answer. */
import { Team } from '../../../src';
import { scriptedAgent } from '../../helpers/agents';

/** The answer, long enough to be killed in the middle of. */
export const LONG_ANSWER =
  'Your teapot is on its way back to us, and a new one leaves our warehouse today: you will get a tracking number by mail within the hour, and the refund of the shipping costs by Friday.';

export const killTeam = () => new Team([scriptedAgent('support', [{ text: LONG_ANSWER }])]);
