import { register } from 'node:module';

// Let Node load next-auth as it is published (see next-esm-hooks.mjs). Import this before anything imports next-auth.
register('./next-esm-hooks.mjs', import.meta.url);
