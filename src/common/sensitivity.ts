/**
 * What a tool declares sensitive, as the team snapshot records it (`AgentSpec.toolSensitivity`):
 * the spec alone, below the team that carries it and the redaction (`sensitive.ts`, which
 * re-exports it) that reads the team.
 *
 * Workflow-safe: no I/O.
 */

/**
 * Which parts of a tool's calls are sensitive, as the team snapshot records it. Paths are dotted
 * field names (`customer.email`); a path that meets a list applies to each of its items.
 */
export interface ToolSensitivitySpec {
  /** `true`: the value of every argument; else the paths into the arguments whose values are sensitive. */
  arguments?: true | string[];
  /** `true`: the whole result; else the paths into the result, when it is JSON (a result that is not JSON is redacted whole). */
  result?: true | string[];
}
