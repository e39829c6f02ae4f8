/**
 * zod/mini with English messages, for `import * as z from '…/shared/zod.js'`. A namespace import keeps the
 * bundle small: esbuild keeps only what is used, whereas re-exporting the namespace as a value (or touching
 * `z.locales`) pulls every locale in (about 400 KB).
 */
import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config(en());

export * from 'zod/mini';
