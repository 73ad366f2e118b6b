/** What a command speaks through: its output, its errors, the terminal when there is one, and Ctrl+C. */
export interface CliIo {
  out: (s: string) => void;
  err: (s: string) => void;
  /** Asks a yes/no question on the terminal; absent when there is none (CI). */
  ask?: (question: string) => Promise<string>;
  /** Aborts on Ctrl+C. */
  signal?: AbortSignal;
}
