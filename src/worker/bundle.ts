/**
 * baton's workflow code for a worker: the prebuilt bundle the package ships, or bundled here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type BundleOptions, bundleWorkflowCode, DefaultLogger, type WorkflowBundleOption } from '@temporalio/worker';
import { cachedBundle } from './bundleCache';

/** The workflow entry point: compiled JavaScript in the package, TypeScript in baton's own checkout. */
export const WORKFLOWS_PATH = [
  path.resolve(__dirname, '../../workflows/index.js'),
  path.resolve(__dirname, '../../workflows/index.ts'),
].find((f) => fs.existsSync(f))!;

/**
 * baton's own workflow interceptor modules, bundled first (outermost) in every bundle of its
 * workflows: its signals taken without the SDK's per-signal promises (`workflows/quickSignals.ts`).
 */
export const BATON_INTERCEPTOR_MODULES: readonly string[] = [
  [
    path.resolve(__dirname, '../../workflows/quickSignals.js'),
    path.resolve(__dirname, '../../workflows/quickSignals.ts'),
  ].find((f) => fs.existsSync(f))!,
];

/** The workflow bundle the package ships, built with the `@temporalio/workflow` version it names. */
const PREBUILT = {
  code: path.resolve(__dirname, '../../workflow-bundle.js'),
  meta: path.resolve(__dirname, '../../workflow-bundle.json'),
};

/**
 * Modules the bundle loads once, when a worker's workflow context starts, instead of once per
 * workflow: baton's whole workflow code. Every workflow of the worker then shares one instance of
 * each module and keeps only its own state (no module of baton's keeps state: see
 * `workflows/patches.ts`), which is most of the memory a waiting chain held.
 */
export const PRELOAD_MODULES: readonly string[] = [WORKFLOWS_PATH];

const bundles = new Map<string, Promise<WorkflowBundleOption>>();

/**
 * baton's workflow code for a worker: the prebuilt bundle when the package has one for the
 * installed `@temporalio/workflow`, else bundled here (once per process, set of interceptors and
 * failure converter; an encrypting deployment's failure converter must be in the bundle; in baton's
 * own checkout, once per change to its sources: the bundle is kept in `node_modules/.cache/baton`).
 */
export async function workflowBundle(
  options: { interceptorModules?: string[]; failureConverterPath?: string } = {},
): Promise<WorkflowBundleOption> {
  const own = options.interceptorModules ?? [];
  const failureConverterPath = options.failureConverterPath;
  if (own.length === 0 && !failureConverterPath && prebuiltMatches()) return { codePath: PREBUILT.code };
  const modules = withBatonInterceptors(own);
  const key = [...modules, failureConverterPath ?? ''].join('\n');
  let bundle = bundles.get(key);
  if (!bundle) {
    const make = () =>
      bundleWorkflowCode({
        workflowsPath: WORKFLOWS_PATH,
        preloadModules: [...PRELOAD_MODULES],
        workflowInterceptorModules: modules,
        failureConverterPath,
        logger: new DefaultLogger('WARN'),
        webpackConfigHook: compiledAsPackaged,
      });
    bundle = cachedBundle([...modules, ...(failureConverterPath ? [failureConverterPath] : [])], make);
    bundles.set(key, bundle);
  }
  return bundle;
}

/**
 * The bundler's configuration with TypeScript compiled for ES2022, the target of the package's own
 * JavaScript (tsconfig.json), instead of the bundler's ES2017: in baton's checkout the workflows are
 * bundled from their TypeScript, and ES2017 turns every object spread and private field into helper
 * calls, code the package does not run (they were ~14% of the workflow code's time in a burst).
 */
function compiledAsPackaged(config: WebpackConfiguration): WebpackConfiguration {
  const retarget = (rule: unknown): unknown => {
    const use = (rule as { use?: { loader?: string; options?: { jsc?: object } } }).use;
    if (!use?.loader?.includes('swc-loader')) return rule;
    return {
      ...(rule as object),
      use: { ...use, options: { ...use.options, jsc: { ...use.options?.jsc, target: 'es2022' } } },
    };
  };
  return {
    ...config,
    module: {
      ...config.module,
      rules: config.module?.rules?.map(retarget) as NonNullable<WebpackConfiguration['module']>['rules'],
    },
  };
}

type WebpackConfiguration = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];

/** `modules` with baton's own interceptor modules first (the outermost), once. */
export function withBatonInterceptors(modules: readonly string[]): string[] {
  return [...new Set([...BATON_INTERCEPTOR_MODULES, ...modules])];
}

function prebuiltMatches(): boolean {
  if (!fs.existsSync(PREBUILT.code) || !fs.existsSync(PREBUILT.meta)) return false;
  const built = (JSON.parse(fs.readFileSync(PREBUILT.meta, 'utf8')) as Record<string, string>)['@temporalio/workflow'];
  return built === (require('@temporalio/workflow/package.json') as { version: string }).version;
}
