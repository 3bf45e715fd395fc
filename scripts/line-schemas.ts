// `npm run line-schemas`: compiles src/line/openapi/webhook.yml into the standalone validator the
// webhook edge checks every event with (src/line/openapi/webhook-event-validate.js). Run it after
// copying a new webhook.yml; test/line/webhook-event-validator.test.ts fails while the file is stale.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  WEBHOOK_VALIDATOR_FILE,
  webhookValidatorSource,
} from '../src/line/openapi/webhook-validator-source.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

webhookValidatorSource().then(
  async (source) => {
    await writeFile(path.join(root, WEBHOOK_VALIDATOR_FILE), source);
    process.stdout.write(`wrote ${WEBHOOK_VALIDATOR_FILE}\n`);
  },
  (error: unknown) => {
    process.stderr.write(`line-schemas: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
