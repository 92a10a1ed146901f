// Splits an NDJSON body into lines on the byte 0x0A, never holding more than one line,
// and that one capped: a line longer than the limit is reported as too long, not kept.
export class LineCutter {
  lineNo = 0;
  private bytes = 0;
  private parts: Buffer[] = [];
  private tooLong = false;

  constructor(
    private readonly max: number,
    private readonly onLine: (raw: Buffer, line: number, tooLong: boolean) => void,
  ) {}

  /** bytes of the unfinished line held in memory (none once it is known to be too long) */
  get held(): number {
    return this.tooLong ? 0 : this.bytes;
  }

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) break;
      this.take(chunk.subarray(start, nl));
      this.flush();
      start = nl + 1;
    }
    if (start < chunk.length) this.take(Buffer.from(chunk.subarray(start)));
  }

  end(): void {
    if (this.bytes > 0 || this.tooLong) this.flush();
  }

  private take(part: Buffer): void {
    if (this.tooLong) return;
    this.bytes += part.length;
    if (this.bytes > this.max + 1) {
      this.tooLong = true;
      this.parts = [];
      return;
    }
    this.parts.push(part);
  }

  private flush(): void {
    this.lineNo++;
    let raw = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    if (raw.length > 0 && raw[raw.length - 1] === 0x0d) raw = raw.subarray(0, raw.length - 1);
    const tooLong = this.tooLong || raw.length > this.max;
    this.parts = [];
    this.bytes = 0;
    this.tooLong = false;
    this.onLine(raw, this.lineNo, tooLong);
  }
}
