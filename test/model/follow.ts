/**
 * Followers, as a user's page would run them: `run.stream()` from a chain's start to its end,
 * resuming after its last position when the connection drops (a server restart), and
 * `chat.stream()` for a conversation message. Each keeps the text every model call ended with.
 */
import type { BatonRun } from '../../src';
import { applyChange, type TextChange } from '../../src/streams';
import { errorText, sleep, type Harness } from './harness';
import type { FollowedStream, RootModel } from './model';

/** The text each call ended with, by `<workflowId> <agent>#<callIndex>`. */
export type FollowedTexts = Map<string, string>;

/** Apply a stream item to the texts it changes. */
export function applyItem(texts: FollowedTexts, item: { kind: string }): void {
  if (item.kind !== 'text' && item.kind !== 'text_reset') return;
  const change = item as TextChange;
  const key = `${change.workflowId} ${change.call}`;
  texts.set(key, applyChange(texts.get(key) ?? '', change));
}

const FINAL = new Set(['completed', 'failed', 'ended']);

/** Follow `run` to its end; resumes after the last position it had when the stream fails. */
export function follow(run: BatonRun, h: Harness): NonNullable<RootModel['follower']> {
  const texts: FollowedTexts = new Map();
  const abort = new AbortController();
  const streams: FollowedStream[] = [];
  const follower: NonNullable<RootModel['follower']> = {
    texts,
    done: Promise.resolve(),
    stop: () => abort.abort(),
    streams,
  };
  follower.done = (async () => {
    let after: string | undefined;
    for (let tries = 0; tries < 30 && !abort.signal.aborted; tries++) {
      const stream: FollowedStream = { told: 0, items: 0, outages: 0 };
      streams.push(stream);
      try {
        for await (const item of run.stream({ signal: abort.signal, ...(after !== undefined ? { after } : {}) })) {
          after = item.position;
          stream.items++;
          if (item.kind === 'text_unavailable') stream.told++;
          applyItem(texts, item);
          if (FINAL.has(item.kind)) {
            stream.ended = true;
            break;
          }
        }
        // The stream ended with the chain: whatever failed before was resumed.
        follower.error = undefined;
        return;
      } catch (err) {
        if (abort.signal.aborted) return;
        follower.error = errorText(err);
        h.options.log?.(`follower of ${run.workflowId} resumes after ${after ?? 'the start'}: ${follower.error}`);
        await sleep(1000);
      }
    }
  })();
  return follower;
}
