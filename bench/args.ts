// The benchmarks' numeric options: `--name N` on the command line, else the default.
export function numberArg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
}
