/**
 * baton's workflows beside a worker's own: a worker bundles one workflows module, so the plugin
 * gives it one that exports both — the application's, and `handoffRun` and `conversation`.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BundleOptions } from '@temporalio/worker';
import { WorkflowType } from '../../common/messages';
import { EconomicsWorkflow } from '../../common/economics/messages';
import { TEAM_REGISTRY_WORKFLOW } from '../../common/teamRegistry';
import { WORKFLOWS_PATH } from '../bundle';

/** The workflow types baton's module exports, by the names Temporal knows them. */
export const BATON_WORKFLOW_TYPES: readonly string[] = [
  WorkflowType.HANDOFF_RUN,
  WorkflowType.CONVERSATION,
  EconomicsWorkflow.SPEND_LEDGER,
  EconomicsWorkflow.CIRCUIT_BREAKER,
  TEAM_REGISTRY_WORKFLOW,
];

/** Where the combined modules are written: they name absolute paths, so any directory does. */
const DIRECTORY = path.join(os.tmpdir(), 'baton-workflows');

/**
 * A module exporting the workflows of `ownPath` (a file or directory, as `workflowsPath` takes it)
 * and baton's; written once per pair of paths. A workflow of the application with one of baton's
 * names fails its import with an error saying so, since a worker runs one workflow per type.
 */
export function combinedWorkflowsPath(ownPath: string): string {
  const own = path.resolve(ownPath);
  if (own === WORKFLOWS_PATH) return own;
  const file = path.join(
    DIRECTORY,
    `${createHash('sha256').update(`${own}\n${WORKFLOWS_PATH}`).digest('hex').slice(0, 16)}.js`,
  );
  const code = `// baton's workflows beside ${JSON.stringify(own)}: written by BatonPlugin.
const own = require(${JSON.stringify(own)});
const baton = require(${JSON.stringify(WORKFLOWS_PATH)});
const clash = ${JSON.stringify(BATON_WORKFLOW_TYPES)}.filter((name) => own[name] !== undefined && own[name] !== baton[name]);
if (clash.length > 0) {
  throw new Error('the workflows module ' + ${JSON.stringify(own)} + ' exports ' + clash.join(' and ') + ", which are baton's workflow types; rename yours (a worker runs one workflow per type)");
}
module.exports = Object.assign({}, own, { ${BATON_WORKFLOW_TYPES.map((name) => `${name}: baton.${name}`).join(', ')} });
`;
  if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== code) {
    fs.mkdirSync(DIRECTORY, { recursive: true });
    const partial = `${file}.${process.pid}.part`;
    fs.writeFileSync(partial, code);
    fs.renameSync(partial, file);
  }
  return file;
}

/** Whether `workflowsPath` is a module {@link combinedWorkflowsPath} wrote. */
export function isCombined(workflowsPath: string | undefined): boolean {
  return workflowsPath !== undefined && path.dirname(path.resolve(workflowsPath)) === DIRECTORY;
}

/** The `node_modules` directory that holds the `@temporalio/workflow` baton uses (the application's, when baton is installed in it). */
const WORKFLOW_PACKAGES = path.resolve(path.dirname(require.resolve('@temporalio/workflow/package.json')), '../..');

/**
 * The bundler's webpack configuration with {@link WORKFLOW_PACKAGES} among the places packages are
 * found: the bundler writes its entry point beside the workflows module, which for a combined module
 * is a directory no `node_modules` is above. Then `hook`, the application's own.
 */
export function withWorkflowPackages(
  hook: BundleOptions['webpackConfigHook'],
): NonNullable<BundleOptions['webpackConfigHook']> {
  return (config) => {
    const modules = config.resolve?.modules ?? ['node_modules'];
    const found = {
      ...config,
      resolve: {
        ...config.resolve,
        modules: modules.includes(WORKFLOW_PACKAGES) ? modules : [...modules, WORKFLOW_PACKAGES],
      },
    };
    return hook ? hook(found) : found;
  };
}
