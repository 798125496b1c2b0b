// The harness's terminal output per progress mode: with --no-progress a script reading the log
// still sees each phase begin (and the setup summary), and nothing else.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseOptions } from '../../load-tests/options.js';
import { Progress } from '../../load-tests/progress.js';

let written: string[];

beforeEach(() => {
  written = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
});

afterEach(() => vi.restoreAllMocks());

function phases(p: Progress): void {
  p.start('setup', 100, '%');
  p.update(50, { stage: 'places' });
  p.stop();
  p.log('setup: 10 API calls in 1.0 s');
  p.start('load', 30, 's');
  p.update(10, { rps: 100, pps: 100, errors: 0, events: 3 });
  p.stop();
}

describe('harness progress output', () => {
  it('--no-progress prints one line as each phase starts, and the summaries', () => {
    const o = parseOptions(['--no-progress']);
    expect(o.progress).toBe('lines');
    phases(new Progress(o.progress));
    expect(written).toEqual(['setup…\n', 'setup: 10 API calls in 1.0 s\n', 'load…\n']);
  });

  it('off prints nothing; the default is the bar', () => {
    phases(new Progress('off'));
    expect(written).toEqual([]);
    expect(parseOptions([]).progress).toBe('bar');
  });
});
