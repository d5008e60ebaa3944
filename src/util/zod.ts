/**
 * agentrl's one runtime import of zod. Every module that builds a schema imports `z` from here, so the peer check
 * ({@link assertZodPeer}: zod 4, else a `ZodVersionError` naming the zod found) runs before any schema is built — in the
 * sources and in the bundle alike (a bundler may order chunks so that a side-effect import listed first runs later).
 * @internal
 */
import { z } from 'zod';
import { assertZodPeer } from './zod-peer.js';

assertZodPeer();

export { z };
