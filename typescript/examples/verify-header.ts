// A Node service that accepts a request only with a token the Java lease store signed: the whole
// key hand-over from Java to Node. The Java side wrote its public key file (docs/security.md,
// "Make a key pair"), one verification key per line:
//   Files.writeString(dir.resolve("verify.keys"), key.verificationKey().toText() + "\n");
// Copy that file to this service (it holds no secret). Type-checked in the build (npm run
// typecheck); compile it with tsc to run it.
// region verify-header
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { TokenKeySet, TokenVerificationError, signedBy, verifyHeader } from '@leasehold/fencing';

const keys = TokenKeySet.parse(readFileSync(process.env['LEASEHOLD_VERIFY_KEYS'] ?? 'verify.keys', 'utf8'));
const verifier = signedBy(keys);

createServer((req, res) => {
  try {
    const token = verifyHeader(req.headers['leasehold-token'], verifier); // parse and verify
    // token.key.accountId, token.key.sessionId, token.fence (a bigint), token.runId
    res.end(`accepted fence ${token.fence} of ${token.key.accountId}/${token.key.sessionId}\n`);
  } catch (e) {
    if (!(e instanceof TokenVerificationError)) throw e;
    res.writeHead(e.httpStatus).end(`${e.reason}: ${e.message}\n`);
  }
}).listen(8081, '127.0.0.1');
// endregion
