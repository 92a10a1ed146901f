export async function runReplay(_args: string[]): Promise<number> {
  process.stderr.write('context-health replay: not built yet\n');
  return 2;
}
