/**
 * The failure converter of encrypted deployments, as a module: Temporal loads failure converters by
 * path (`failureConverterPath`), in workers, clients and workflow bundles alike. Workflow-safe, and
 * plain JavaScript in syntax, as a process without a TypeScript loader may load it from baton's
 * own checkout.
 */
import { DefaultFailureConverter } from '@temporalio/common';

const plain = new DefaultFailureConverter();
const encoded = new DefaultFailureConverter({ encodeCommonAttributes: true });
const encode = encoded.errorToFailure.bind(encoded);

// The failure of a payload this process could not decrypt names only key ids and settings, and must
// stay readable by a process that has the other key; its name is checked, as its class (node:crypto)
// is not in workflow code.
encoded.errorToFailure = (err, payloadConverter, context) =>
  err instanceof Error && err.name === 'PayloadDecryptionError'
    ? plain.errorToFailure(err, payloadConverter, context)
    : encode(err, payloadConverter, context);

/** Failure messages and stack traces moved into an encoded payload, so the payload codec encrypts them. */
export const failureConverter = encoded;
