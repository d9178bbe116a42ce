#!/usr/bin/env node
// `warren <command>`: the package's command line (package.json "bin", so `npx warren doctor`).
import { runDoctor } from './doctor.js';

const USAGE = 'usage: warren doctor    check this machine and its config.yaml for running Warren (exit 1 on a fault)';

async function main(args: readonly string[]): Promise<number> {
  const [command, ...rest] = args;
  if (command === 'doctor' && rest.length === 0) return (await runDoctor()).exitCode;
  if (command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  process.stderr.write(`${command === undefined ? 'warren: no command' : `warren: unknown command "${args.join(' ')}"`}\n${USAGE}\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`warren: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
