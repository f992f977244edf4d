// The one place a step's `{{NAME}}` references become text, at the moment the step runs: configs (plain and
// secret), TOTP configs (the code current now, so each run types a fresh one) and run variables that earlier steps
// set (an http_request's saved value, an email's code or link). Whatever is secret is known here for redaction.
import { configReferences, substituteConfigs } from './steps.js';
import { parseTotp, totpCode, type TotpKey } from './totp.js';

export interface ConfigValues {
  /** Config values by name (a TOTP config's value is its seed or otpauth URI). */
  configs: Record<string, string>;
  secretNames?: string[];
  /** Configs of type `totp`: always secret, resolved to the current code. */
  totpNames?: string[];
}

export class RunValues {
  private readonly fixed = new Map<string, { value: string; secret: boolean }>();
  private readonly totp = new Map<string, TotpKey>();
  /** Secrets no step may reference but nothing may show (an environment's basic-auth password, say). */
  private readonly hidden: Record<string, string> = {};
  /** The last code each TOTP config produced: redacted like a secret, since the model sees `{{NAME}}` instead. */
  private readonly codes = new Map<string, string>();

  constructor(
    init: ConfigValues = { configs: {} },
    private readonly now: () => number = Date.now,
  ) {
    const secret = new Set([...(init.secretNames ?? []), ...(init.totpNames ?? [])]);
    const totpNames = new Set(init.totpNames ?? []);
    for (const [name, value] of Object.entries(init.configs)) {
      if (totpNames.has(name)) this.totp.set(name, parseTotp(value));
      else this.fixed.set(name, { value, secret: secret.has(name) });
    }
  }

  /** Sets a run variable for later steps; a secret one is redacted from everything the model or a log sees. */
  set(name: string, value: string, opts: { secret?: boolean } = {}): void {
    this.totp.delete(name);
    this.fixed.set(name, { value, secret: opts.secret ?? false });
  }

  /** Secret values to redact that steps cannot reference, by the name a redaction shows. */
  redactAlso(secrets: Record<string, string>): void {
    Object.assign(this.hidden, secrets);
  }

  has(name: string): boolean {
    return this.fixed.has(name) || this.totp.has(name);
  }

  /** Every name a step may reference now (configs first, then variables in the order they were set). */
  names(): string[] {
    return [...new Set([...this.fixed.keys(), ...this.totp.keys()])];
  }

  /** Names `text` references that nothing defines (yet). */
  missing(text: string): string[] {
    return configReferences(text).filter((name) => !this.has(name));
  }

  /** `text` with every known `{{NAME}}` replaced; unknown names stay as written so the failure is visible. */
  resolve(text: string): string {
    const current: Record<string, string> = {};
    for (const name of configReferences(text)) {
      const value = this.value(name);
      if (value !== undefined) current[name] = value;
    }
    return substituteConfigs(text, current);
  }

  /** Secret values by name as they stand now (TOTP: the last code typed), for `redact`. */
  secrets(): Record<string, string> {
    const out: Record<string, string> = { ...this.hidden };
    for (const [name, entry] of this.fixed) if (entry.secret) out[name] = entry.value;
    for (const [name, code] of this.codes) out[name] = code;
    return out;
  }

  private value(name: string): string | undefined {
    const key = this.totp.get(name);
    if (key) {
      const code = totpCode(key, this.now());
      this.codes.set(name, code);
      return code;
    }
    return this.fixed.get(name)?.value;
  }
}
