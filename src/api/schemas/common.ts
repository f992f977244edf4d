import { z } from '@hono/zod-openapi';
import { shortIdPattern, type ShortIdKind } from '../../domain/short-ids.js';

const examples: Record<ShortIdKind, string> = {
  application: 'app-shop_k3x9q2m7p1za',
  environment: 'env-staging_8d2kq0x1mzpa',
  devicePreset: 'preset-iphone_0p2kdm3x9q1a',
  build: 'build_x8q2m1k0z9pa',
  chat: 'chat_3k9x0q2m1pza',
  testPlan: 'pln-smoke_q2m1k3x9z0pa',
  config: 'cfg_m1k3x9q2z0pa',
  scenario: 'scenario_k3x9q2m1z0pa',
  run: 'run_9q2m1k3xz0pa',
};

/** A short id of the given kind, validated against the spec's pattern and documented with it. */
export const shortId = (kind: ShortIdKind) =>
  z
    .string()
    .regex(new RegExp(shortIdPattern(kind)), `must be a ${kind} short id matching ${shortIdPattern(kind)}`)
    .openapi({ pattern: shortIdPattern(kind), example: examples[kind] });

export const uuid = () => z.string().uuid().openapi({ example: '3f2b8c1e-7d4a-4b6f-9a2e-1c5d8e9f0a7b' });

export const name = (max = 120) => z.string().trim().min(1).max(max);

export const Deleted = z.object({ deleted: z.literal(true) }).openapi('Deleted');
