// `node --import ./lib/node20_register.mjs …/conformance/dist/index.js`: see node20_hooks.mjs.
import { register } from 'node:module';
register('./node20_hooks.mjs', import.meta.url);
