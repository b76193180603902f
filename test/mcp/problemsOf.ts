/** The problems a declaration's UserError lists, for the MCP declaration tests. */
import { UserError } from '../../src/workflow';

/** The problems `fn` throws a UserError for (its message when it lists none); none when it does not throw. */
export function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof UserError) return (err.details as { problems?: string[] }).problems ?? [err.message];
    throw err;
  }
  return [];
}
