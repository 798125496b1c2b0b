// ESLint (flat config): typescript-eslint's recommended rules (syntax only, no type information, so
// a run stays fast) and the import boundaries of docs/architecture.md ("Import boundaries"), checked
// by eslint-plugin-boundaries. Each element below is a part of the layout; a file imports only its
// own element and the elements its policy lists.
import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import tseslint from 'typescript-eslint';

/**
 * The parts of the tree, most specific first (a file belongs to the first pattern it matches).
 * `mode: 'full'`: a pattern is a whole path, so single files can be elements (the plugin's newer
 * file descriptors cannot be elements of a policy yet).
 */
const elements = [
  // Entries and wiring: they may import anything of the project.
  { type: 'app', pattern: ['src/app.ts', 'src/server.ts', 'src/startup.ts', 'src/stopping.ts'], mode: 'full' },
  { type: 'cli', pattern: 'src/cli/**', mode: 'full' },
  { type: 'plugins', pattern: 'src/plugins/**', mode: 'full' },
  // The shared kernel: configuration and the error registry, importing nothing of the project.
  { type: 'config', pattern: 'src/config.ts', mode: 'full' },
  { type: 'errors', pattern: 'src/errors.ts', mode: 'full' },
  // What services, engine and delivery are handed: the ServiceContext, its change feed and locks.
  {
    type: 'context',
    pattern: ['src/services/context.ts', 'src/services/changes.ts', 'src/services/stream-feed.ts', 'src/services/structure-lock.ts'],
    mode: 'full',
  },
  { type: 'http', pattern: 'src/http/**', mode: 'full' },
  { type: 'routes', pattern: 'src/routes/**', mode: 'full' },
  { type: 'auth', pattern: 'src/auth/**', mode: 'full' },
  { type: 'schemas', pattern: 'src/schemas/**', mode: 'full' },
  { type: 'services', pattern: 'src/services/**', mode: 'full' },
  { type: 'sqlite-driver', pattern: 'src/store/sqlite/driver.ts', mode: 'full' },
  { type: 'store', pattern: 'src/store/**', mode: 'full' },
  // The replay threads' entry is the engine's own (it runs engine/replay-run.ts), though it lives beside the shard workers.
  { type: 'engine', pattern: ['src/engine/**', 'workers/replay-worker.ts'], mode: 'full' },
  // The callback sender's thread entry is delivery's own, though it lives beside the shard workers.
  { type: 'delivery', pattern: ['src/delivery/**', 'workers/sender-worker.ts'], mode: 'full' },
  { type: 'geo', pattern: 'src/geo/**', mode: 'full' },
  // The messages between the engine and the shard workers: all the engine may know of workers/.
  { type: 'protocol', pattern: 'workers/protocol.ts', mode: 'full' },
  // Starting and naming a worker thread: used by every part that runs one.
  { type: 'threads', pattern: ['workers/exec-argv.ts', 'workers/thread-name.ts'], mode: 'full' },
  // The shard's request handler, which the engine also runs in-process (one shard, tests).
  { type: 'shard-entry', pattern: 'workers/shard-worker.ts', mode: 'full' },
  { type: 'workers', pattern: 'workers/**', mode: 'full' },
  { type: 'machines', pattern: 'machines/**', mode: 'full' },
];

const kernel = ['config', 'errors'];

/**
 * Nothing outside src/store/ touches a collection or writes a query (docs/architecture.md,
 * "Storage"): the store's repositories answer in the domain's words. Caught here: the drivers and
 * an engine's repositories imported, MongoDB operators as object keys, calls of the collection and
 * cursor API, and SQL text. It holds for every file outside src/store/.
 */
const SQL = '^\\s*(SELECT\\s[\\s\\S]*\\sFROM\\s|INSERT\\s+(OR\\s+\\w+\\s+)?INTO\\s|UPDATE\\s+\\w+\\s+SET\\s|DELETE\\s+FROM\\s|(CREATE|DROP)\\s+(UNIQUE\\s+)?(TABLE|INDEX)\\s|ALTER\\s+TABLE\\s|PRAGMA\\s)';
const COLLECTION_METHODS = ['collection', 'findOne', 'findOneAndUpdate', 'countDocuments', 'insertOne', 'insertMany', 'updateOne', 'updateMany', 'deleteOne', 'deleteMany', 'bulkWrite', 'removeWhere', 'toArray'];
const storeOnly = {
  'no-restricted-imports': ['error', {
    paths: [
      { name: 'mongodb', message: 'Only src/store/ speaks to MongoDB: ask a repository.' },
      { name: 'better-sqlite3', message: 'Only src/store/ speaks to SQLite: ask a repository.' },
    ],
    patterns: [{
      // An engine's repositories, tables and statements (the entries and the importer open the engine itself).
      group: ['**/store/sqlite/*.js', '**/store/mongodb/*.js', '!**/store/sqlite/engine.js', '!**/store/sqlite/legacy.js'],
      message: 'An engine\'s repositories are the store\'s own: ask the store for a repository.',
    }],
  }],
  'no-restricted-syntax': ['error',
    // ($ref, $id, $schema and $defs are JSON Schema's.)
    { selector: 'Property[key.type="Identifier"][key.name=/^\\$(?!(ref|id|schema|defs)$)/]', message: 'A MongoDB operator outside src/store/: ask a repository.' },
    { selector: 'Property[key.type="Literal"][key.value=/^\\$(?!(ref|id|schema|defs)$)/]', message: 'A MongoDB operator outside src/store/: ask a repository.' },
    { selector: `CallExpression[callee.property.name=/^(${COLLECTION_METHODS.join('|')})$/]`, message: 'A collection call outside src/store/: ask a repository.' },
    { selector: `Literal[value=/${SQL}/]`, message: 'SQL outside src/store/: ask a repository.' },
    { selector: `TemplateElement[value.raw=/${SQL}/]`, message: 'SQL outside src/store/: ask a repository.' },
  ],
};
/** What each element may import besides itself (docs/architecture.md, "Import boundaries"). */
const mayImport = {
  app: ['*'],
  cli: ['*'],
  // http: the pages' route settings (http/pages.ts).
  plugins: ['context', 'store', 'services', 'engine', 'delivery', 'auth', 'http', ...kernel],
  config: [],
  errors: [],
  // delivery and auth: the types of the runtime parts the context holds.
  context: ['store', 'schemas', 'config', 'delivery', 'auth'],
  // Fastify glue for every route: body parsing, error replies, OpenAPI.
  http: ['schemas', 'errors'],
  // Thin: a schema, a call to a service, the reply. Credentials come from auth.
  routes: ['services', 'context', 'schemas', 'auth', 'http', 'errors'],
  // Reading and checking credentials over the store (the Fastify side is plugins/auth.ts).
  auth: ['store', ...kernel],
  // TypeBox schemas import no services.
  schemas: ['geo', 'errors'],
  // Use cases: they ask the store, hand work to delivery (enqueue, cancel, send) and reach the
  // engine through the context's locationSink. threads: the geocoder's data thread.
  services: ['context', 'store', 'delivery', 'auth', 'schemas', 'geo', 'threads', ...kernel],
  // threads: the WAL checkpoint thread's entry.
  store: ['threads', 'sqlite-driver', ...kernel],
  'sqlite-driver': [],
  // schemas: the location points the engine batches (their type and order).
  engine: ['context', 'store', 'protocol', 'threads', 'shard-entry', 'schemas', 'geo', ...kernel],
  // The callback payload and listings use the API's shapes and date rules (schemas).
  delivery: ['context', 'store', 'schemas', 'threads', 'geo', ...kernel],
  geo: [],
  protocol: ['machines', 'geo', 'schemas'],
  threads: [],
  workers: ['protocol', 'threads', 'sqlite-driver', 'machines', 'geo', 'schemas'],
  'shard-entry': ['protocol', 'threads', 'workers', 'machines', 'geo', 'schemas'],
  machines: [],
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'reports/**', '**/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      // A leading underscore marks a parameter or binding kept for its position or shape.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
    },
  },
  {
    // Tests and benchmarks read JSON answers whose shape the assertions check.
    files: ['test/**/*.ts', 'load-tests/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The build script runs before anything is compiled: plain JavaScript for Node.
    files: ['scripts/**/*.mjs'],
    languageOptions: { sourceType: 'module', globals: { process: 'readonly', console: 'readonly' } },
  },
  {
    // CommonJS shims (workers/sender-entry.cjs loads a TypeScript worker through tsx).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The web inspector (inspector/) runs in the browser: it speaks to the service over HTTP only
    // and imports nothing of the server's code.
    files: ['inspector/**/*.ts', 'inspector/**/*.tsx'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/src/**', '**/machines/**', '**/workers/**', '**/test/**'], message: 'The inspector imports no server code: it uses the HTTP API.' }] }],
    },
  },
  {
    files: ['src/**/*.ts', 'workers/**/*.ts', 'machines/**/*.ts'],
    plugins: { boundaries },
    settings: {
      'boundaries/elements': elements,
      'import/resolver': { typescript: { project: './tsconfig.json' } },
      'boundaries/legacy-warnings': false,
    },
    rules: { 'boundaries/dependencies': boundaryRule() },
  },
  {
    files: ['src/**/*.ts', 'workers/**/*.ts', 'machines/**/*.ts'],
    // The checkpoint thread's entry is the store's own (sqlite/checkpointer.ts), beside the other thread entries.
    ignores: ['src/store/**', 'workers/checkpoint-worker.ts'],
    rules: storeOnly,
  },
  {
    // The use cases import each other in one direction: a cycle among them (users, layers and
    // geonotes once needed each other at start) makes the order they load in matter.
    files: ['src/services/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
);

/** The boundaries rule for `mayImport`, with `extra` targets added per element type. */
function boundaryRule(extra = {}) {
  return [
    'error',
    {
      default: 'disallow',
      policies: Object.entries(mayImport).map(([from, to]) => ({
        from: { element: { type: from } },
        allow: { to: { element: { types: { anyOf: [from, ...to, ...(extra[from] ?? [])] } } } },
      })),
    },
  ];
}
