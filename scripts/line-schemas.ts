// `npm run line-schemas`: converts src/line/openapi/webhook.yml into the JSON Schema the webhook
// edge validates every event against (src/line/openapi/webhook-schema.json). Run it after copying a
// new webhook.yml; test/line/webhook-event-validator.test.ts fails while the JSON is stale.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { convertWebhookSchema } from '../src/line/openapi/line-schemas.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = path.join(root, 'src/line/openapi/webhook-schema.json');

convertWebhookSchema().then(
  async (schema) => {
    // Formatted as `prettier --check .` expects, so the lint stays green.
    const options = (await prettier.resolveConfig(target)) ?? {};
    await writeFile(target, await prettier.format(JSON.stringify(schema), { ...options, parser: 'json' }));
    process.stdout.write(`wrote ${path.relative(root, target)}\n`);
  },
  (error: unknown) => {
    process.stderr.write(`line-schemas: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
