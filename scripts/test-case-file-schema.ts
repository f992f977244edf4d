// Prints the JSON Schema of a test-case file, as /schemas/test-case-file.json serves it; docs/ keeps a copy:
//   node --import tsx scripts/test-case-file-schema.ts > docs/test-case-file.schema.json
import { testCaseFileJsonSchema } from '../src/schemas/test-case-file.js';

process.stdout.write(`${JSON.stringify(testCaseFileJsonSchema(), null, 2)}\n`);
