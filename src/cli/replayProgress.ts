// `replay`'s progress line on stderr: redrawn in place on a terminal, now and then otherwise.
export class Progress {
  turns = 0;
  acked = 0;
  private lastShown = Date.now();
  private drawn = false;
  private readonly tty = process.stderr.isTTY === true;

  constructor(
    private readonly bytesTotal: number | null,
    private readonly speed: number,
  ) {}

  show(bytesRead: number, force = false): void {
    const now = Date.now();
    if (!force && now - this.lastShown < (this.tty ? 100 : 2000)) return;
    this.lastShown = now;
    const mb = (n: number): string => (n / 1e6).toFixed(1);
    const of =
      this.bytesTotal === null
        ? `${mb(bytesRead)} MB read`
        : `${mb(bytesRead)} of ${mb(this.bytesTotal)} MB (${this.bytesTotal === 0 ? 100 : Math.floor((100 * bytesRead) / this.bytesTotal)}%)`;
    const text = `replay: ${this.turns} turns sent, ${this.acked} messages acknowledged · ${of} · speed ${this.speed === 0 ? 'max' : `×${this.speed}`}`;
    process.stderr.write(this.tty ? `\r\x1b[2K${text}` : `${text}\n`);
    this.drawn = true;
  }

  done(): void {
    if (this.tty && this.drawn) process.stderr.write('\n');
  }
}
