/**
 * The failure converter of encrypted deployments, as a module: Temporal loads failure converters by
 * path (`failureConverterPath`), in workers, clients and workflow bundles alike.
 */
import { DefaultFailureConverter } from '@temporalio/common';

/** Failure messages and stack traces moved into an encoded payload, so the payload codec encrypts them. */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
