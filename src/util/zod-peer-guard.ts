// Imported first by every entry point: when agentrl resolves a zod other than 4.x, fail on import with a
// ZodVersionError naming it, before any module builds a zod 4 schema at load time and dies with
// `z.looseObject is not a function`.
import { assertZodPeer } from './zod-peer.js';

assertZodPeer();
