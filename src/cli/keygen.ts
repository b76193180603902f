import fs from 'node:fs';
import { generateApproverKey } from '../client/signing/signer';
import { parse, UsageError } from './args';
import { type Command, ExitCode } from './context';

/** `baton keygen --approver <name> --out <file>`: an approver's (or a service's) Ed25519 key pair for signed decisions. */
export const keygenCommand: Command = {
  synopsis: 'baton keygen --approver <name> --out <file> [--kid <id>] [--service]',
  summary: "make an approver's Ed25519 key for signed decisions",
  help: `Options:
  --approver <name>  whom the key signs for (repeat it for several names; with --service, "*" for anyone)
  --out <file>       where the private key goes, as a JWK (readable by you alone); it must not exist
  --kid <id>         its key id (default: the key's RFC 7638 thumbprint)
  --service          a service's key (baton serve's BATON_SERVICE_KEY), which signs for the identity a
                     token proved

Prints the public entry to list in the team's approverKeys (or a run's options): {kid, approvers,
publicKey}. Sign with the private key: baton approve … --key <file>, decisionSignerFromFile(file).`,
  async run(argv, { out }) {
    const { values, positionals } = parse(argv, {
      approver: { type: 'string', multiple: true },
      out: { type: 'string' },
      kid: { type: 'string' },
      service: { type: 'boolean', default: false },
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    if (!values.approver?.length) throw new UsageError('--approver <name> is required: whom the key signs for');
    if (!values.out) throw new UsageError('--out <file> is required: where the private key goes');
    if (fs.existsSync(values.out))
      throw new UsageError(`${values.out} exists; choose another file (a key is never overwritten)`);
    const { privateJwk, approverKey } = generateApproverKey({
      approvers: values.approver,
      ...(values.kid !== undefined ? { kid: values.kid } : {}),
      ...(values.service ? { service: true } : {}),
    });
    fs.writeFileSync(values.out, `${JSON.stringify(privateJwk)}\n`, { mode: 0o600, flag: 'wx' });
    out(JSON.stringify(approverKey));
    return ExitCode.OK;
  },
};
