// The layers of Proctor and which may import which (docs/architecture.md explains them). A layer imports only
// the layers listed in its `mayImport`, and itself; type-only imports count like any other, and no import may
// close a cycle. test/unit/layers.test.ts runs this inside `npm test` and prints every violation.
//
// Lowest first. Paths are regular expressions over paths relative to the repository root.
const layers = [
  { name: 'domain', path: '^src/domain/', mayImport: [], why: 'pure values, rules and errors' },
  {
    name: 'support',
    path: '^src/(config|logger|ids|ports|programs|streams|timeouts|tracing|tracing-setup|metrics)\\.ts$',
    mayImport: ['domain'],
    why: "process-wide helpers every layer above may use: the config schema, the logger, id generation, ports for child processes, where the external programs are, bounded stream reading, a time limit on a promise, the process's Prometheus metrics",
  },
  {
    name: 'contracts',
    // workflows/shared.ts (what they share) and each workflow's workflows/<name>-contract.ts beside it.
    path: '^workflows/(shared|[a-z-]+-contract)\\.ts$',
    mayImport: ['domain'],
    why: 'Temporal contracts (signatures, signals, queries, ids); bundled into the workflow sandbox, so leaves',
  },
  {
    name: 'schemas',
    path: '^src/schemas/',
    mayImport: ['domain'],
    why: "the public API's request and response shapes (zod-openapi): REST validates with them, MCP and the chat tools too",
  },
  {
    name: 'adapters',
    path: '^src/(db|git|llm|browser|storage|temporal|builds|devices|notify|tunnels|inbox)/',
    mayImport: ['domain', 'support', 'contracts'],
    why: 'the edges to Postgres, Git providers, the LLM, Chromium, blob storage, the Temporal client, email (sent and received), tunnels',
  },
  {
    name: 'services',
    path: '^src/services/',
    mayImport: ['domain', 'support', 'contracts', 'adapters', 'schemas'],
    why: 'business operations',
  },
  {
    name: 'activities',
    path: '^activities/',
    mayImport: ['domain', 'support', 'contracts', 'adapters', 'schemas', 'services'],
    why: 'Temporal activities: thin adapters over services and adapters',
  },
  {
    name: 'workflows',
    // eslint.config.js narrows this further: value imports from src/domain only, activities as types only.
    path: '^workflows/(?!(shared|[a-z-]+-contract)\\.ts$)',
    mayImport: ['domain', 'support', 'contracts', 'adapters', 'schemas', 'services', 'activities'],
    why: 'deterministic orchestration',
  },
  {
    name: 'delivery-kit',
    // Exception, on purpose: REST and MCP answer with the same error words and validation messages, over the same
    // request context, and the dashboard reads the same deps. These four live under src/api (the routes declared
    // them first) but belong to no one surface; nothing in them may import a route, a tool or a page.
    path: '^src/api/(context|errors|openapi|operation-routes|resource-routes)\\.ts$',
    mayImport: ['domain', 'support', 'contracts', 'adapters', 'schemas', 'services'],
    why: 'the request context, the error envelope and the zod-openapi helpers shared by the delivery surfaces',
  },
  // The three surfaces reach the adapters only through services (issue 20, item 3): no route, MCP tool or
  // dashboard page imports src/db, src/storage, src/temporal or another adapter, type-only imports included.
  {
    name: 'api',
    path: '^src/api/(?!((context|errors|openapi|operation-routes|resource-routes|app|server)\\.ts$))',
    mayImport: ['domain', 'support', 'contracts', 'schemas', 'services', 'delivery-kit'],
    why: 'REST routes',
  },
  {
    name: 'mcp',
    path: '^src/mcp/',
    mayImport: ['domain', 'support', 'contracts', 'schemas', 'services', 'delivery-kit'],
    why: 'MCP tools',
  },
  {
    name: 'web',
    path: '^src/web/',
    mayImport: ['domain', 'support', 'contracts', 'schemas', 'services', 'delivery-kit'],
    why: 'the dashboard',
  },
  {
    name: 'composition',
    // src/api/app.ts (createApp) and src/api/server.ts assemble the HTTP process: they mount the REST routes, the MCP
    // endpoint and the dashboard on one Hono app. They stay beside the routes because every API test builds them.
    path: '^(src/cli\\.ts$|src/cli/|src/runtime\\.ts$|src/worker/|src/api/(app|server)\\.ts$)',
    mayImport: [
      'domain',
      'support',
      'contracts',
      'adapters',
      'schemas',
      'services',
      'activities',
      'workflows',
      'delivery-kit',
      'api',
      'mcp',
      'web',
    ],
    why: 'composition roots: the CLI, the worker assembly and the HTTP app assembly; nothing imports them',
  },
];

const byName = new Map(layers.map((l) => [l.name, l]));

const layerRules = layers.flatMap((layer) => {
  const refused = layers.filter((other) => other !== layer && !layer.mayImport.includes(other.name));
  if (refused.length === 0) return [];
  return [
    {
      name: `${layer.name}-imports-only-below`,
      comment: `${layer.name} (${layer.why}) may import only: ${layer.mayImport.join(', ') || 'itself'}`,
      severity: 'error',
      from: { path: layer.path },
      to: { path: refused.map((l) => l.path) },
    },
  ];
});

for (const layer of layers)
  for (const name of layer.mayImport) if (!byName.has(name)) throw new Error(`unknown layer ${name}`);

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycles, type-only imports included: a cycle ties every file on it into one unit',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'every-file-in-a-layer',
      comment: 'Every source file belongs to a layer of .dependency-cruiser.mjs: add its folder to one',
      severity: 'error',
      from: { path: '^(src|workflows|activities)/', pathNot: layers.map((l) => l.path) },
      to: {},
    },
    ...layerRules,
    {
      name: 'llm-reaches-browser-through-steps-and-page-view',
      comment:
        'src/llm reaches the browser only through the step registry (src/browser/steps/index.ts) and the page view (src/browser/record/: the snapshot, its refs, a ref as a locator)',
      severity: 'error',
      from: { path: '^src/llm/' },
      to: { path: '^src/browser/', pathNot: '^src/browser/(steps/index\\.ts$|record/)' },
    },
  ],
  options: {
    includeOnly: '^(src|workflows|activities)/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'] },
    exclude: { path: '\\.d\\.ts$' },
  },
};
