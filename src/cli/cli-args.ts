// Argument parsing for `weft`: positionals and `--flag value` / `--flag=value` options, with a
// known set of flags per the usage text (an unknown flag is a usage error, exit 2).

import { CliError } from './admin-client.js';

export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string | true>;
}

/** Flags that take a value. */
const VALUE_FLAGS = new Set(['url', 'ca', 'username', 'password', 'filter', 'limit', 'offset', 'data', 'file', 'output', 'timeout']);
/** Flags that stand alone. */
const SWITCHES = new Set(['password-stdin', 'no-wait', 'help']);

export function parseArgs(args: string[]): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-h') {
      flags.set('help', true);
      continue;
    }
    if (arg === '-o') {
      flags.set('output', valueAfter(args, i++, '-o'));
      continue;
    }
    if (!arg.startsWith('--') || arg === '--') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq > 0 ? eq : undefined);
    if (SWITCHES.has(name)) {
      if (eq > 0) throw new CliError(`--${name} takes no value`, 2);
      flags.set(name, true);
    } else if (VALUE_FLAGS.has(name)) {
      flags.set(name, eq > 0 ? arg.slice(eq + 1) : valueAfter(args, i++, arg));
    } else {
      throw new CliError(`unknown option --${name} (see weft --help)`, 2);
    }
  }
  return { positionals, flags };
}

function valueAfter(args: string[], i: number, flag: string): string {
  const value = args[i + 1];
  if (value === undefined || (value.startsWith('--') && value.length > 2)) throw new CliError(`${flag} needs a value`, 2);
  return value;
}

/** A flag's string value (undefined when absent); a switch given where a value is needed is an error. */
export function flag(parsed: ParsedArgs, name: string): string | undefined {
  const value = parsed.flags.get(name);
  return typeof value === 'string' ? value : undefined;
}

/** A non-negative integer flag. */
export function intFlag(parsed: ParsedArgs, name: string): number | undefined {
  const value = flag(parsed, name);
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new CliError(`--${name} must be a non-negative integer, got ${JSON.stringify(value)}`, 2);
  return Number(value);
}
