import { openSqliteSourceStore } from '../../../src/persistence/index.js';
import { crashScenarios } from '../crash-scenarios.js';
import { testClock } from '../source-store-fixtures.js';

// A second process on a SQLite store file, for the tests that only real processes can make:
//   hold <file>                     open the store and keep it until killed
//   open <file>                     open it, print "opened", close; or print the error, exit 1
//   crash <file> <scenario> <step>  arrange the crash scenario, then SIGKILL itself at that step

const [mode, file, scenarioName, crashStep] = process.argv.slice(2);
if (!file) throw new Error('usage: sqlite-store-child <hold|open|crash> <file> [scenario step]');

try {
  if (mode === 'hold') {
    await openSqliteSourceStore({ file });
    process.stdout.write(`ready ${process.pid}\n`);
    setInterval(() => {}, 60_000);
  } else if (mode === 'open') {
    const store = await openSqliteSourceStore({ file });
    process.stdout.write('opened\n');
    await store.close();
  } else if (mode === 'crash') {
    const scenario = crashScenarios.find(({ name }) => name === scenarioName);
    if (!scenario) throw new Error(`no crash scenario ${scenarioName}`);
    const clock = testClock();
    await scenario.arrange(await openSqliteSourceStore({ file, clock }));
    const store = await openSqliteSourceStore({
      file,
      clock,
      onWriteStep: (step) => {
        if (step === crashStep) process.kill(process.pid, 'SIGKILL');
      },
    });
    await scenario.act(store);
    process.stdout.write(`step ${crashStep} never reached\n`);
  }
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
}
