import { loadConfig } from '../../../src/config/index.js';
import { silentLogger } from '../../../src/logging/index.js';
import { startKaiwa } from '../../../src/server/kaiwa-runtime.js';
import { reportModel, reportTool } from '../../support/report-tool.js';

// kaiwa as `npm start` runs it (SQLite under DATA_DIR, configuration from the environment), with
// a report tool whose background work never ends: the crash test SIGKILLs this process while the
// work runs, then starts kaiwa again on the same DATA_DIR.
const kaiwa = await startKaiwa(loadConfig(process.env), {
  model: reportModel(),
  tools: [reportTool(() => new Promise(() => undefined))],
  logger: silentLogger,
});
process.stdout.write(`listening ${kaiwa.url}\n`);
