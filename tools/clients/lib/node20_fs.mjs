// node:fs as the conformance suite's bundle imports it, with globSync for Node 20 (see node20_hooks.mjs).
import fs from 'node:fs';
export * from 'node:fs';
export default fs;
export const globSync = fs.globSync ?? (() => {
  throw new Error('fs.globSync needs Node 22: the conformance suite\'s tier-check command does not run on Node 20');
});
