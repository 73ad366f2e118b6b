/** Keeps the last `limit` bytes of a stream (the end of a log is where the error is). */
export class OutputTail {
  private chunks: Buffer[] = [];
  private kept = 0;
  /** Every byte seen, kept or not. */
  total = 0;

  constructor(readonly limit: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (chunk.length >= this.limit) {
      this.chunks = [chunk.subarray(chunk.length - this.limit)];
      this.kept = this.limit;
      return;
    }
    this.chunks.push(chunk);
    this.kept += chunk.length;
    while (this.kept - this.chunks[0]!.length >= this.limit) this.kept -= this.chunks.shift()!.length;
  }

  /** The tail as text; a cut multi-byte character at the start becomes U+FFFD. */
  text(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.limit)).toString('utf8');
  }

  get dropped(): number {
    return Math.max(0, this.total - this.limit);
  }
}

/**
 * Node's MODULE_TYPELESS_PACKAGE_JSON warning (an ES module under a package.json without
 * "type") with its advice lines: noise about the workspace's packaging, never evidence about a
 * criterion, so it is left out of a command's captured output. Other warnings stay.
 */
const TYPELESS_WARNING = /^\(node:\d+\) \[MODULE_TYPELESS_PACKAGE_JSON\] Warning:[^\n]*\r?\n(?:(?:Reparsing as ES module|To eliminate this warning)[^\n]*\r?\n)*(?:\(Use `node --trace-warnings[^\n]*\r?\n)?/gm;

export function withoutKnownNoise(text: string): string {
  return text.includes('[MODULE_TYPELESS_PACKAGE_JSON]') ? text.replace(TYPELESS_WARNING, '') : text;
}
