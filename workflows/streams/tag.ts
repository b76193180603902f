/**
 * Chains that stream: every model call carries a {@link StreamTag} saying where its text goes as it
 * forms, and specialists are told which conversation turn they work for. Nothing else of a stream
 * is in workflow code: the text goes from the worker to the transport, never into history.
 */
import type { StreamTag } from '../../src/common/model';
import type { ChainEffects } from '../chain/effects';

/** `effects` whose model calls carry `tag()` (none while it is `undefined`), and which tell the delegation step the tag. */
export function taggingStreams(effects: ChainEffects, tag: () => StreamTag | undefined): ChainEffects {
  return Object.assign(Object.create(effects) as ChainEffects, {
    callModel: (input, options, local) => {
      const t = tag();
      return effects.callModel(t ? { ...input, stream: t } : input, options, local);
    },
    streamTag: tag,
  } satisfies Partial<ChainEffects>);
}

/** The tag of a chain's model calls: the top of its delegation, and the conversation turn it works for. */
export function chainTag(
  ownWorkflowId: string,
  parent: { rootWorkflowId: string; turn?: number; message?: string } | undefined,
): StreamTag {
  if (!parent) return {};
  return {
    ...(parent.rootWorkflowId !== ownWorkflowId ? { root: parent.rootWorkflowId } : {}),
    ...(parent.turn !== undefined ? { turn: parent.turn } : {}),
    ...(parent.message !== undefined ? { message: parent.message } : {}),
  };
}
