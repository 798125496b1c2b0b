// Live progress on the terminal (cli-progress): one bar per phase, showing the request and point
// rates, errors and events received so far. Silent when disabled (CI, tests) or not on a TTY,
// where a line per phase is printed instead.
import cliProgress from 'cli-progress';

export interface ProgressValues {
  rps?: number;
  pps?: number;
  errors?: number;
  events?: number;
  stage?: string;
}

export class Progress {
  private bar?: cliProgress.SingleBar;

  constructor(private readonly enabled: boolean) {}

  private get tty(): boolean {
    return this.enabled && Boolean(process.stderr.isTTY);
  }

  start(phase: string, total: number, unit: string): void {
    this.stop();
    if (!this.enabled) return;
    if (!this.tty) {
      process.stderr.write(`${phase}…\n`);
      return;
    }
    this.bar = new cliProgress.SingleBar(
      {
        format: `${phase.padEnd(9)} |{bar}| {value}/{total} ${unit} | {rps} req/s {pps} pts/s | errors {errors} | events {events} {stage}`,
        barsize: 24,
        hideCursor: true,
        clearOnComplete: false,
        stream: process.stderr,
      },
      cliProgress.Presets.shades_classic,
    );
    this.bar.start(total, 0, { rps: '-', pps: '-', errors: 0, events: 0, stage: '' });
  }

  update(value: number, v: ProgressValues = {}): void {
    this.bar?.update(Math.round(value), {
      ...(v.rps !== undefined ? { rps: Math.round(v.rps) } : {}),
      ...(v.pps !== undefined ? { pps: Math.round(v.pps) } : {}),
      ...(v.errors !== undefined ? { errors: v.errors } : {}),
      ...(v.events !== undefined ? { events: v.events } : {}),
      ...(v.stage !== undefined ? { stage: v.stage } : {}),
    });
  }

  setTotal(total: number): void {
    this.bar?.setTotal(Math.round(total));
  }

  stop(): void {
    this.bar?.stop();
    this.bar = undefined;
  }

  log(line: string): void {
    if (!this.enabled) return;
    if (this.bar) this.bar.stop();
    process.stderr.write(`${line}\n`);
    this.bar = undefined;
  }
}
