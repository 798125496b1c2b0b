// What the delivery loop waits on between two turns: a kick (new rows stored, a round ended, a
// stop) or a time. A kick while the loop is busy is kept, so the next wait returns at once.

export class Wake {
  private kicked = false;
  private sleeper?: () => void;

  kick(): void {
    if (this.sleeper) this.sleeper();
    else this.kicked = true;
  }

  /** Until a kick, or until performance.now() reaches `at` (never, for Infinity). */
  wait(at: number): Promise<void> {
    if (this.kicked) {
      this.kicked = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        this.sleeper = undefined;
        this.kicked = false;
        resolve();
      };
      if (Number.isFinite(at)) timer = setTimeout(done, Math.max(0, at - performance.now()));
      this.sleeper = done;
    });
  }
}
