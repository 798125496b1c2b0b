// Live progress on the terminal (cli-progress): one bar per phase, showing the request and point
// rates, errors and events received so far; not on a TTY, a plain line at the start of each phase
// and every ten seconds instead. `lines` (--no-progress) prints only the line at each phase's start
// and the summaries, so a script reading the log can tell when the load phase begins; `off`
// (in-process tests) prints nothing.
import cliProgress from 'cli-progress';

export type ProgressMode = 'bar' | 'lines' | 'off';

export interface ProgressValues {
  rps?: number;
  pps?: number;
  errors?: number;
  events?: number;
  stage?: string;
}

export class Progress {
  private bar?: cliProgress.SingleBar;
  private phase = '';
  private total = 0;
  private unit = '';
  private lastLine = 0;
  private values: ProgressValues = {};

  constructor(private readonly mode: ProgressMode) {}

  private get enabled(): boolean {
    return this.mode !== 'off';
  }

  private get tty(): boolean {
    return this.mode === 'bar' && Boolean(process.stderr.isTTY);
  }

  start(phase: string, total: number, unit: string): void {
    this.stop();
    if (!this.enabled) return;
    this.phase = phase;
    this.total = total;
    this.unit = unit;
    this.values = {};
    if (!this.tty) {
      process.stderr.write(`${phase}…\n`);
      this.lastLine = Date.now();
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
    if (this.mode === 'bar' && !this.tty && Date.now() - this.lastLine >= 10_000) {
      this.lastLine = Date.now();
      this.values = { ...this.values, ...v };
      const x = this.values;
      const shown = `${Math.round(value)}/${Math.round(this.total)} ${this.unit}`;
      process.stderr.write(`${this.phase} ${shown}${x.rps !== undefined ? ` | ${Math.round(x.rps)} req/s ${Math.round(x.pps ?? 0)} pts/s` : ''}` +
        `${x.errors !== undefined ? ` | errors ${x.errors}` : ''}${x.events !== undefined ? ` | events ${x.events}` : ''}${x.stage ? ` ${x.stage}` : ''}\n`);
    }
    this.bar?.update(Math.round(value), {
      ...(v.rps !== undefined ? { rps: Math.round(v.rps) } : {}),
      ...(v.pps !== undefined ? { pps: Math.round(v.pps) } : {}),
      ...(v.errors !== undefined ? { errors: v.errors } : {}),
      ...(v.events !== undefined ? { events: v.events } : {}),
      ...(v.stage !== undefined ? { stage: v.stage } : {}),
    });
  }

  setTotal(total: number): void {
    this.total = total;
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
