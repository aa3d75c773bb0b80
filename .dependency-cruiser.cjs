/**
 * The layering of src/, checked on every `npm test` (npm run lint:layers): a folder imports only
 * folders below it. From the top: the commands; the TUIs and the probe; the text outputs; the CI
 * checks; the live sessions; the view models; the diagnosis; the tracer and the CLI plumbing; the
 * readiness engine; the informer, lease and metrics machinery; src/kube (the only code that talks to the API server, and
 * the only importer of @kubernetes/client-node); the work queue; the utilities. tools/ (the local
 * control plane, packaging, the test fakes, the demo) uses src/ and is never imported by what ships;
 * no import goes round in a circle.
 */
const LAYERS = [
  ['commands', 'main.ts'],
  ['tui', 'probe'],
  ['output'],
  ['check'],
  ['live'],
  ['view'],
  ['diagnose'],
  ['trace', 'cli'],
  ['readiness'],
  ['informer', 'lease', 'metrics'],
  ['kube'],
  ['workqueue', 'errors.ts'],
  ['util', 'clock.ts', 'version.ts', 'exit-codes.ts'],
];

const path = (names) => `^src/(${names.map((n) => n.replace('.', '[.]')).join('|')})(/|$)`;

const upward = LAYERS.slice(1).map((layer, i) => ({
  name: `no-upward-from-${layer[0]}`,
  comment: `${layer.join(', ')} may import only what lies below it, not ${LAYERS.slice(0, i + 1).flat().join(', ')}`,
  severity: 'error',
  from: { path: path(layer), pathNot: '[.]test[.]tsx?$' },
  to: { path: path(LAYERS.slice(0, i + 1).flat()) },
}));

/**
 * Folders entered only through their index.ts (their contract): from outside, nothing else of theirs
 * is imported. Their own files, tests included, import each other directly.
 */
const FRONT_DOORS = ['trace'];

const frontDoors = FRONT_DOORS.map((folder) => ({
  name: `only-through-${folder}-index`,
  comment: `outside src/${folder}, import it through src/${folder}/index.ts, its public surface`,
  severity: 'error',
  from: { pathNot: `^src/${folder}/` },
  to: { path: `^src/${folder}/`, pathNot: `^src/${folder}/index[.]ts$` },
}));

module.exports = {
  forbidden: [
    ...upward,
    ...frontDoors,
    { name: 'no-circular', severity: 'error', from: { path: '^(src|tools)/' }, to: { circular: true } },
    {
      name: 'client-node-only-in-kube',
      comment: '@kubernetes/client-node is for kubeconfig, auth and HTTP, in src/kube alone',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/kube/' },
      to: { path: '@kubernetes/client-node' },
    },
    {
      name: 'tooling-not-shipped',
      comment: 'tools/ (control plane, packaging, fakes, demo) is for development; what ships does not import it',
      severity: 'error',
      from: { path: '^src/', pathNot: '[.]test[.]tsx?$' },
      to: { path: '^tools/' },
    },
    {
      name: 'fakes-only-in-tests',
      comment: 'tools/testing holds fakes for tests; the tooling does not run them',
      severity: 'error',
      from: { path: '^tools/', pathNot: ['[.]test[.]tsx?$', '^tools/testing/'] },
      to: { path: '^tools/testing/' },
    },
  ],
  options: {
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^src/kube/protobuf/schema[.]generated[.]ts$', 'node_modules'] },
  },
};
