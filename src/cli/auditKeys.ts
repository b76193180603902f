/**
 * The keys `baton audit` signs export heads with and trusts them by: the signing key from
 * `--key <file>`, else `BATON_AUDIT_KEY`, else the service's `BATON_SERVICE_KEY` (the key
 * `baton serve` signs decisions with); the trusted keys from `--export-keys <file>`,
 * `BATON_AUDIT_KEYS=<file>`, and the public half of the signing key this machine has.
 */
import fs from 'node:fs';
import { decisionSignerFromFile, type DecisionSigner } from '../client/signing/signer';
import { isRecord } from '../common/check';
import { type ExportKey, exportKeysCheck } from '../common/signatures/head';
import { approverKeysCheck, type ApproverKey } from '../common/signatures/keys';
import { UsageError } from './args';

/** The signer of export heads and where it was named, or none. */
export function exportSigner(keyFile?: string, kid?: string): { signer: DecisionSigner; from: string } | undefined {
  if (kid !== undefined && keyFile === undefined)
    throw new UsageError('--kid names the key of --key <file>: give the key too');
  const [file, id, from] =
    keyFile !== undefined
      ? [keyFile, kid, `--key ${keyFile}`]
      : process.env.BATON_AUDIT_KEY
        ? [process.env.BATON_AUDIT_KEY, process.env.BATON_AUDIT_KID || undefined, 'BATON_AUDIT_KEY']
        : process.env.BATON_SERVICE_KEY
          ? [process.env.BATON_SERVICE_KEY, process.env.BATON_SERVICE_KID || undefined, 'BATON_SERVICE_KEY']
          : [];
  if (!file) return undefined;
  return { signer: decisionSignerFromFile(file, id !== undefined ? { kid: id } : {}), from: from! };
}

/** The keys trusted to sign export heads, each with where it was named. */
export function trustedExportKeys(files: string[]): { keys: ExportKey[]; from: string[] } {
  const keys: ExportKey[] = [];
  const from: string[] = [];
  const add = (list: ExportKey[], source: string) => {
    if (list.length === 0) return;
    keys.push(...list.filter((k) => !keys.some((x) => x.kid === k.kid && x.publicKey === k.publicKey)));
    from.push(source);
  };
  for (const file of files) add(readExportKeys(file, `--export-keys ${file}`), `--export-keys ${file}`);
  if (process.env.BATON_AUDIT_KEYS)
    add(readExportKeys(process.env.BATON_AUDIT_KEYS, 'BATON_AUDIT_KEYS'), 'BATON_AUDIT_KEYS');
  const own = exportSigner();
  if (own?.signer.publicKey)
    add([{ kid: own.signer.kid, publicKey: own.signer.publicKey }], `the public half of ${own.from}`);
  return { keys, from };
}

/** Approver keys from a file: a JSON list of {kid, approvers, publicKey, …}, or {"approverKeys": [...]}. */
export function readApproverKeys(file: string): ApproverKey[] {
  const value = readJson(file);
  const list = isRecord(value) && Array.isArray(value.approverKeys) ? value.approverKeys : value;
  const problems = approverKeysCheck(list, file);
  if (problems.length > 0) throw new UsageError(`--keys ${file}: ${problems.slice(0, 5).join('; ')}`);
  return list as ApproverKey[];
}

/** Export keys from a file: a JSON list of {kid, publicKey, …} (approver key entries fit), or {"exportKeys": [...]}. */
function readExportKeys(file: string, source: string): ExportKey[] {
  const value = readJson(file);
  const list = isRecord(value) && Array.isArray(value.exportKeys) ? value.exportKeys : value;
  const problems = exportKeysCheck(list, file);
  if (problems.length > 0) throw new UsageError(`${source}: ${problems.slice(0, 5).join('; ')}`);
  return (list as ExportKey[]).map((k) => ({
    kid: k.kid,
    publicKey: k.publicKey,
    ...(k.notBefore ? { notBefore: k.notBefore } : {}),
    ...(k.notAfter ? { notAfter: k.notAfter } : {}),
  }));
}

/** A JSON file, or a usage error naming it. */
export function readJson(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${file} is not JSON: ${(e as Error).message}`);
  }
}
