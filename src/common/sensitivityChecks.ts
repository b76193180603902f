/**
 * Checks of what a tool declares sensitive (`defineTool({sensitive})`, `mcpServer({sensitive})`,
 * a snapshot's `AgentSpec.toolSensitivity`), and the form a valid declaration takes in the team
 * snapshot. The redaction that follows from it is in `sensitive.ts`.
 *
 * Workflow-safe: no I/O.
 */
import { isRecord, shown, type Check } from './check';
import type { JsonSchema } from './model';
import { schemaPathProblem } from './schemaPaths';
import type { ToolSensitivitySpec } from './sensitivity';

const PATH_EXAMPLE = '["cardNumber", "customer.email"]';

/**
 * Problems with a `sensitive` option, each naming the field and what would be valid. With
 * `parameters` (the tool's JSON Schema), every argument path must name a field of it. `quoted`
 * names fields as the checks of plain JSON do (`"toolSensitivity.x.arguments"`).
 */
export function sensitivityProblems(
  value: unknown,
  key: string,
  parameters?: JsonSchema,
  tool?: string,
  quoted = false,
): string[] {
  const field = (k: string) => (quoted ? `"${k}"` : k);
  if (value === true) return [];
  if (!isRecord(value))
    return [
      `${field(key)} must be true (every argument and the whole result) or {arguments?, result?}, got ${shown(value)}`,
    ];
  const problems: string[] = [];
  const extra = Object.keys(value).filter((k) => k !== 'arguments' && k !== 'result');
  if (extra.length > 0)
    problems.push(
      `${field(key)} has unknown field(s) ${extra.map((k) => `"${k}"`).join(', ')} (valid: arguments, result)`,
    );
  if (value.arguments === undefined && value.result === undefined)
    problems.push(
      `${field(key)} names nothing sensitive: give arguments (true or paths like ${PATH_EXAMPLE}), result (true or paths like ["token"]), or both`,
    );
  if (value.arguments !== undefined)
    problems.push(...pathListProblems(value.arguments, `${key}.arguments`, PATH_EXAMPLE, field, parameters, tool));
  if (value.result !== undefined) problems.push(...pathListProblems(value.result, `${key}.result`, '["token"]', field));
  return problems;
}

function pathListProblems(
  value: unknown,
  key: string,
  example: string,
  field: (k: string) => string,
  schema?: JsonSchema,
  tool?: string,
): string[] {
  if (value === true) return [];
  if (!Array.isArray(value) || value.length === 0)
    return [`${field(key)} must be true or a non-empty list of paths like ${example}, got ${shown(value)}`];
  return value.flatMap((path, i) => {
    const at = field(`${key}[${i}]`);
    if (!isPath(path)) return [`${at} must be a dotted path of field names like "customer.email", got ${shown(path)}`];
    const problem = schema ? schemaPathProblem(schema, path, tool) : undefined;
    return problem ? [`${at} ${JSON.stringify(path)}: ${problem}`] : [];
  });
}

function isPath(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value !== '' &&
    value.split('.').every((part) => part.trim() !== '' && part === part.trim())
  );
}

/** The snapshot's form of a valid `sensitive` option: `true` spelled out, paths copied without repeats. */
export function toSensitivitySpec(value: true | ToolSensitivitySpec): ToolSensitivitySpec {
  if (value === true) return { arguments: true, result: true };
  const copy = (v: true | string[] | undefined) => (v === undefined ? undefined : v === true ? true : [...new Set(v)]);
  const args = copy(value.arguments);
  const result = copy(value.result);
  return { ...(args !== undefined ? { arguments: args } : {}), ...(result !== undefined ? { result } : {}) };
}

/** Problems with a snapshot's `toolSensitivity` entry (the workflow checks a carried team with it). */
export const toolSensitivityCheck: Check<ToolSensitivitySpec> = (v, key) => {
  if (!isRecord(v)) return [`"${key}" must be an object {arguments?, result?}, got ${shown(v)}`];
  return sensitivityProblems(v, key, undefined, undefined, true);
};
