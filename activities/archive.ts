/**
 * The archive worker's activities: list the chains closed since the archiver's cursor, and archive
 * one (its export written once, its events streamed once). They run on the archive's own task
 * queue, apart from the chains', so archiving never holds up or fails a chain; what they do is the
 * port's (`ChainArchiver` in src/audit/archive, given by the archive worker).
 */
import { Context } from '@temporalio/activity';
import type { ArchiveActivities, ArchivedChain, ClosedExecution, ListClosedInput } from '../src/common/archive';
import { whileHeartbeating } from './heartbeat';

/** What the activities archive with. */
export interface ArchivePort {
  listClosed(input: ListClosedInput): Promise<ClosedExecution[]>;
  archive(closed: ClosedExecution): Promise<ArchivedChain>;
}

/** The archive activities over `port`. */
export function createArchiveActivities(port: ArchivePort): ArchiveActivities {
  return {
    /** The closed chains and conversations after the cursor, oldest first. */
    async listClosedChains(input: ListClosedInput): Promise<ClosedExecution[]> {
      return port.listClosed(input);
    },
    /** Archive one closed chain; heartbeats while it reads history and writes, so a lost worker's attempt starts again elsewhere in seconds. */
    async archiveClosedChain(closed: ClosedExecution): Promise<ArchivedChain> {
      return whileHeartbeating(Context.current(), () => port.archive(closed));
    },
  };
}
