/**
 * zod/mini with English messages, for `import * as z from '…/shared/zod.js'`. A namespace import keeps the
 * bundle small: esbuild keeps only what is used, whereas re-exporting the namespace as a value (or touching
 * `z.locales`) pulls every locale in (about 400 KB).
 */
import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

// Jitless: an object schema's first parse otherwise compiles a fast path with `new Function`, on the cold
// start of every function for each schema it parses once (the environment, the event, each item kind); the
// interpreted parse costs microseconds more per parse, nothing beside a DynamoDB or provider round trip.
config({ ...en(), jitless: true });

export * from 'zod/mini';
