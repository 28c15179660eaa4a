// How many times to bring a crashed server back before giving up and telling the user.
// A server that crashes in a loop would otherwise burn CPU and spam the output silently.
// Pure: unit-tested.
export class CrashBudget {
  private crashes: number[] = [];

  constructor(
    private readonly maxRestarts = 4,
    private readonly windowMs = 3 * 60 * 1000,
  ) {}

  /** Record a crash at `now`; true when another automatic restart is still allowed. */
  allowRestart(now: number): boolean {
    this.crashes = this.crashes.filter((t) => now - t < this.windowMs);
    this.crashes.push(now);
    return this.crashes.length <= this.maxRestarts;
  }

  reset(): void {
    this.crashes = [];
  }
}
