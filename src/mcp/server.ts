export async function serveMcp(_options: { workspace: string; store: string | false | undefined; log: (s: string) => void }): Promise<number> {
  return 2;
}
