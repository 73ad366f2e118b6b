/** The logging the pure layers need; the editor backs it with its "Ideal State" channel. */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  /** A sub-logger whose lines are prefixed with `[name]`. */
  child(name: string): Logger;
}

/** For tests and quiet command-line use: keeps lines in memory. */
export class MemoryLogger implements Logger {
  constructor(readonly lines: string[] = [], private readonly prefix = '') {}
  debug(message: string): void {
    this.lines.push(`debug ${this.prefix}${message}`);
  }
  info(message: string): void {
    this.lines.push(`info ${this.prefix}${message}`);
  }
  warn(message: string): void {
    this.lines.push(`warn ${this.prefix}${message}`);
  }
  error(message: string): void {
    this.lines.push(`error ${this.prefix}${message}`);
  }
  child(name: string): Logger {
    return new MemoryLogger(this.lines, `${this.prefix}[${name}] `);
  }
}
