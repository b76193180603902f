/**
 * Chains and a conversation recorded on code with the patch baseline (`Patches.BASELINE_2026_11`):
 * one marker for every patch it covers. The same drives as scenarios recorded before it, under
 * names of their own, so both forms replay.
 */
import { toolApprovalChecksScenario } from './auditScenarios';
import { liveConversationScenario } from './liveScenarios';
import { continueAsNewScenario, type Scenario, scenarios } from './scenarios';

const as = (name: string, scenario: Scenario): Scenario => ({ ...scenario, name });
const named = (name: string): Scenario => scenarios.find((s) => s.name === name)!;

export const baselineScenarios: Scenario[] = [
  as('baseline-approval-approved-and-refused', named('approval-approved-and-refused')),
  as('baseline-tool-approval-checks', toolApprovalChecksScenario),
  as('baseline-continue-as-new', continueAsNewScenario),
  as('baseline-live-conversation', liveConversationScenario),
];
