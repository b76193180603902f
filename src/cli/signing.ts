import { decisionSignerFromFile, type DecisionSigner } from '../client/signing/signer';
import { UsageError } from './args';

/**
 * The signer of the CLI's decisions: `--key <file>` (with `--kid`), else `BATON_SIGNING_KEY`
 * (with `BATON_SIGNING_KID`); none when neither is given.
 */
export function cliSigner(keyFile?: string, kid?: string): { signer?: DecisionSigner } {
  const file = keyFile ?? (process.env.BATON_SIGNING_KEY || undefined);
  const id = kid ?? (process.env.BATON_SIGNING_KID || undefined);
  if (kid !== undefined && !file)
    throw new UsageError('--kid names the key of --key <file> (or BATON_SIGNING_KEY): give the key too');
  return file ? { signer: decisionSignerFromFile(file, id !== undefined ? { kid: id } : {}) } : {};
}
