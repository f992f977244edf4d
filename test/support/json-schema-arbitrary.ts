// fast-check arbitraries from a JSON Schema (the subset zod emits for tool inputs: type, properties, required,
// enum, const, anyOf, pattern, format, min/max bounds, items), for fuzzing a tool with inputs near its contract.
// Values mostly satisfy the schema, so the calls reach the service behind the validation; `hints` put real ids
// (an existing application, a test case) in front of generated ones, so some calls find what they name.
import fc from 'fast-check';

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  items?: JsonSchema;
};

export interface SchemaArbitraryOptions {
  /** Per property name: values tried as well as (not instead of) the generated ones. */
  hints?: Record<string, fc.Arbitrary<unknown>>;
  /** Per property name: values used instead of the generated ones (e.g. to keep a wait short). */
  overrides?: Record<string, fc.Arbitrary<unknown>>;
}

// Generated strings stay short: a fuzz case is about shape, and oversized input has its own cases.
const maxString = 40;
const maxArray = 3;

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.format === 'uuid') return fc.uuid();
  if (schema.format === 'email') return fc.emailAddress();
  if (schema.format === 'uri' || schema.format === 'url') return fc.webUrl();
  if (schema.pattern) {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= (schema.maxLength ?? 2_000));
    } catch {
      // A pattern fast-check cannot generate from: plain strings, which the validator mostly refuses.
    }
  }
  const minLength = schema.minLength ?? 0;
  return fc.string({
    unit: 'grapheme',
    minLength,
    maxLength: Math.max(minLength, Math.min(schema.maxLength ?? maxString, maxString)),
  });
}

function numberArbitrary(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : undefined);
  const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : undefined);
  if (integer)
    return fc.integer({
      min: Math.max(min ?? -1_000, Number.MIN_SAFE_INTEGER),
      max: Math.min(max ?? 1_000, Number.MAX_SAFE_INTEGER),
    });
  return fc.double({ min: min ?? -1e6, max: max ?? 1e6, noNaN: true, noDefaultInfinity: true });
}

/** An arbitrary of values that (mostly) satisfy `schema`. */
export function arbitraryFromSchema(schema: JsonSchema, opts: SchemaArbitraryOptions = {}): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((s) => arbitraryFromSchema(s, opts)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
    case 'number':
      return numberArbitrary(schema, type === 'integer');
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(schema.items ? arbitraryFromSchema(schema.items, opts) : fc.jsonValue({ maxDepth: 2 }), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? maxArray, maxArray)),
      });
    case 'object': {
      const shape: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        const generated = arbitraryFromSchema(property, opts);
        const hint = opts.hints?.[name];
        shape[name] = opts.overrides?.[name] ?? (hint ? fc.oneof(hint, generated) : generated);
      }
      const overridden = Object.keys(opts.overrides ?? {}).filter((k) => k in shape);
      return fc.record(shape, {
        requiredKeys: [...new Set([...(schema.required ?? []), ...overridden])].filter((k) => k in shape),
      });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/**
 * Inputs for a tool: mostly schema-shaped, some with one property swapped for random JSON, some random objects,
 * and a few that are not objects at all.
 */
export function toolArguments(schema: JsonSchema, opts: SchemaArbitraryOptions = {}): fc.Arbitrary<unknown> {
  const shaped = arbitraryFromSchema(schema, opts);
  const names = Object.keys(schema.properties ?? {});
  const swapped = names.length
    ? fc
        .tuple(shaped, fc.constantFrom(...names), fc.jsonValue({ maxDepth: 3 }))
        .map(([value, name, junk]) => ({ ...(value as object), [name]: junk }))
    : shaped;
  return fc.oneof(
    { weight: 5, arbitrary: shaped },
    { weight: 3, arbitrary: swapped },
    {
      weight: 1,
      arbitrary: fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }),
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  );
}
