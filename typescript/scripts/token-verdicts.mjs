// The TypeScript package's verdict on a case of docs/token-vectors.json's schema (docs/token-spec.md
// section 9): the vector test runs it on the committed vectors, and the Java build's differential
// test (TokenDifferentialTest) runs it on a generated corpus:
//   node scripts/token-verdicts.mjs <corpus.json>   prints one verdict per case, as a JSON array.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  parseToken, parseVerificationKey, parseSigningKey, TokenKeySet, signedBy, verifyHeader, TokenVerificationError,
} from '../dist/index.js';

const keySets = new Map();

/** The key set of a verifier, parsed once per distinct list of key texts. */
function keySetOf(texts) {
  const id = JSON.stringify(texts);
  let set = keySets.get(id);
  if (set === undefined) {
    set = TokenKeySet.of(texts.map(parseVerificationKey));
    keySets.set(id, set);
  }
  return set;
}

function verifierOf(c) {
  return signedBy(keySetOf(c.verifier.keys), { clock: () => c.nowMillis, clockSkewMillis: c.verifier.clockSkewMillis });
}

/** Runs `fn`: "valid", or the reason of the TokenVerificationError it threw; anything else is a bug. */
function refusal(fn) {
  try {
    fn();
    return 'valid';
  } catch (e) {
    if (!(e instanceof TokenVerificationError)) return `threw ${e?.name}: ${e?.message}`;
    return e.reason;
  }
}

/** Runs a loader: "valid", or "refused" for a plain Error; a TypeError or other crash is a bug. */
function refusedOrValid(fn) {
  try {
    fn();
    return 'valid';
  } catch (e) {
    if (!(e instanceof Error) || e instanceof TypeError || e instanceof RangeError || e instanceof TokenVerificationError) {
      return `threw ${e?.name}: ${e?.message}`;
    }
    return 'refused';
  }
}

/**
 * This package's verdict on one case: "valid", "refused", an error class, or "threw ..." when it
 * failed in a way the spec does not allow. For a valid key set, `ids` gets its key ids.
 */
export function verdict(c, signingKeys, out = {}) {
  switch (c.kind ?? 'token') {
    case 'token':
      return refusal(() => verifierOf(c).verify(parseToken(c.token)));
    case 'header':
      return refusal(() => verifyHeader(c.header ?? undefined, verifierOf(c)));
    case 'input':
      return refusal(() => verifierOf(c).verify(c.input));
    case 'skew':
      return refusedOrValid(() => signedBy(keySetOf([signingKeys.hmac.replace('signing', 'verify')]),
        { clockSkewMillis: c.clockSkewMillis }));
    case 'verificationKey':
      return refusedOrValid(() => parseVerificationKey(c.text));
    case 'signingKey':
      return refusedOrValid(() => parseSigningKey(c.text));
    case 'keySet':
      return refusedOrValid(() => { out.ids = TokenKeySet.parse(c.text).ids; });
    default:
      return `unknown kind ${c.kind}`;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = JSON.parse(readFileSync(process.argv[2], 'utf8'));
  const verdicts = file.cases.map((c) => {
    const out = {};
    const v = verdict(c, file.signingKeys, out);
    return out.ids === undefined ? v : `${v} ${out.ids.join(',')}`;
  });
  process.stdout.write(JSON.stringify(verdicts));
}
