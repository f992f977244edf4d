// The rules of a config's type: a `totp` config holds a seed or an otpauth URI that must parse (a bad one is a 400
// now, not a failed replay later) and is always secret, since the seed is worth more than any password.
import { InvalidError } from '../domain/errors.js';
import { totpProblem } from '../domain/totp.js';

type ConfigType = 'plain' | 'totp';

/** The write with a TOTP config's rules applied (secret forced), or InvalidError. `current`: the stored config, on update. */
export function totpRules<T extends { value?: string; isSecret?: boolean; type?: ConfigType }>(
  write: T,
  current?: { type: ConfigType; isSecret: boolean },
): T {
  const type = write.type ?? current?.type ?? 'plain';
  if (type !== 'totp') return write;
  // On create `isSecret` defaults to false and is simply overridden; turning a stored one plain is refused.
  if (current && write.isSecret === false) throw new InvalidError('isSecret: a totp config is always secret');
  if (write.value === undefined && current?.type !== 'totp')
    throw new InvalidError(
      'value: required when turning a config into a totp config (an otpauth://totp/ URI or a base32 seed)',
    );
  if (write.value !== undefined) {
    const problem = totpProblem(write.value);
    if (problem) throw new InvalidError(`value: ${problem}`);
  }
  return { ...write, isSecret: true };
}
