import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * A forwarded write's answer as the writer keeps it until its caller confirms it: JSON,
 * encrypted and authenticated with the caller's key (AES-256-GCM). Claim answers carry
 * tokens, and no file may show a token; only the caller, which never writes its key
 * anywhere, can open it.
 */
export function seal(key: Buffer, value: unknown): Buffer {
  const iv = ivs.next();
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

/** Opens what `seal` made with the same key; throws when the key is another or the text was changed. */
export function unseal(key: Buffer, bytes: Buffer): unknown {
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return JSON.parse(Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8'));
}

/**
 * Fresh random 12-byte IVs, drawn from a buffer refilled now and then: each call of
 * `randomBytes` makes a system call, whatever its size, and this is on the path of every
 * forwarded write. An IV only needs to be unique under its key, which random ones are.
 */
class IvPool {
  private bytes = Buffer.alloc(0);
  private at = 0;

  next(): Buffer {
    if (this.at === this.bytes.length) {
      this.bytes = randomBytes(12 * 256);
      this.at = 0;
    }
    this.at += 12;
    return this.bytes.subarray(this.at - 12, this.at);
  }
}

const ivs = new IvPool();
