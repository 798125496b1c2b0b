// The harness's command line: options that reach the service process it starts.
import { describe, expect, it } from 'vitest';
import { parseOptions, UsageError } from '../../load-tests/options.js';

describe('harness options for the service process', () => {
  it('splits --service-node-args into node options and keeps --service-log', () => {
    const o = parseOptions(['--service-node-args=--trace-gc-nvp  --max-semi-space-size=32', '--service-log', 'gc.log']);
    expect(o.serviceNodeArgs).toEqual(['--trace-gc-nvp', '--max-semi-space-size=32']);
    expect(o.serviceLog).toBe('gc.log');
  });

  it('adds nothing by default', () => {
    const o = parseOptions([]);
    expect(o.serviceNodeArgs).toBeUndefined();
    expect(o.serviceLog).toBeUndefined();
  });

  it('refuses a value that looks like an option without "=", with a usage error', () => {
    expect(() => parseOptions(['--service-node-args', '--trace-gc'])).toThrow(UsageError);
  });
});

describe('harness warm-up', () => {
  it('measures from the start by default and takes --warmup seconds', () => {
    expect(parseOptions([]).warmupS).toBe(0);
    const o = parseOptions(['--warmup', '30', '--duration', '60']);
    expect(o.warmupS).toBe(30);
    expect(o.durationS).toBe(60);
    // The hard limit grows with the whole load phase.
    expect(o.maxRuntimeS).toBeGreaterThan(parseOptions(['--duration', '60']).maxRuntimeS);
  });

  it('refuses a negative or non-numeric warm-up with a usage error', () => {
    expect(() => parseOptions(['--warmup', '-1'])).toThrow(UsageError);
    expect(() => parseOptions(['--warmup', 'soon'])).toThrow(UsageError);
  });
});

describe('harness half-load latency goal', () => {
  it('judges the latency goal only for a paced run declared as half of a maximum', () => {
    expect(parseOptions(['--rate', '3000']).halfOfPps).toBeUndefined();
    expect(parseOptions(['--rate', '3000', '--half-of', '6000']).halfOfPps).toBe(6000);
  });

  it('refuses --half-of without --rate, with a usage error', () => {
    expect(() => parseOptions(['--half-of', '6000'])).toThrow(/--half-of needs --rate/);
  });
});
