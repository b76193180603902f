import { priorityCheck, type RunPriority } from '../common/priority';
import { UsageError } from './args';

/** The flags of a run's task priority, for `parse`. */
export const PRIORITY_FLAGS = {
  priority: { type: 'string' },
  'fairness-key': { type: 'string' },
  'fairness-weight': { type: 'string' },
} as const;

/** How the flags read in a command's help, their descriptions starting at `column`. */
export function priorityHelp(column: number): string {
  return [
    ['--priority N', "task priority of the chain, its calls and specialists: 1 goes first (Temporal's default 3)"],
    ['--fairness-key <key>', 'who the work is for (a tenant): tasks of one priority are shared fairly between keys'],
    ['--fairness-weight W', "this key's share against the other keys (default 1)"],
  ]
    .map(([flag, text]) => `  ${flag!.padEnd(column - 2)}${text}`)
    .join('\n');
}

const NUMBER = /^[0-9]+(\.[0-9]+)?$/;

/** The run option `priority` the flags give, checked by the option's own rule; `undefined` when none is given. */
export function priorityFromFlags(values: {
  priority?: string;
  'fairness-key'?: string;
  'fairness-weight'?: string;
}): RunPriority | undefined {
  const priority: RunPriority = {
    ...(values.priority !== undefined
      ? { priorityKey: /^[0-9]+$/.test(values.priority) ? Number(values.priority) : NaN }
      : {}),
    ...(values['fairness-key'] !== undefined ? { fairnessKey: values['fairness-key'] } : {}),
    ...(values['fairness-weight'] !== undefined
      ? { fairnessWeight: NUMBER.test(values['fairness-weight']) ? Number(values['fairness-weight']) : NaN }
      : {}),
  };
  if (Object.keys(priority).length === 0) return undefined;
  const [problem] = priorityCheck(priority, 'priority');
  if (problem === undefined) return priority;
  // The check names the option's fields and shows parsed values; the user typed flags and strings.
  const flags = {
    priorityKey: ['priority', values.priority],
    fairnessKey: ['fairness-key', values['fairness-key']],
    fairnessWeight: ['fairness-weight', values['fairness-weight']],
  } as const;
  const [flag, raw] = Object.entries(flags).find(([field]) => problem.startsWith(`"priority.${field}"`))?.[1] ?? [
    'priority',
    values.priority,
  ];
  throw new UsageError(
    `${problem.replace(/^"priority\.[a-zA-Z]+"/, `--${flag}`).replace(/, got .*$/, '')}; got ${JSON.stringify(raw)}`,
  );
}
