import { register } from 'node:module';

// Loaded by tap (package.json "tap"."node-arg") in every test process; see ts-hooks.mjs.
register('./ts-hooks.mjs', import.meta.url);
