// Module resolution hook for running @modelcontextprotocol/conformance 0.1.16 on Node 20.
// Its bundle imports `globSync` from 'fs' at load time (fs.globSync arrived in Node 22), although
// only its `tier-check` command calls it. Imports of 'fs' made by that package resolve to
// node20_fs.mjs, which re-exports node:fs and adds a globSync that throws if it is ever called.
const CONFORMANCE = '/node_modules/@modelcontextprotocol/conformance/';
export async function resolve(specifier, context, nextResolve) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes(CONFORMANCE)) {
    return { url: new URL('./node20_fs.mjs', import.meta.url).href, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
