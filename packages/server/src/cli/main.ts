// Process entry of the operator command (bin/purse.mjs imports this file after registering tsx).
import { runCli } from './run.ts';

const code = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
// Everything is closed by now; exit explicitly so a stray handle cannot keep the command alive.
process.exit(code);
