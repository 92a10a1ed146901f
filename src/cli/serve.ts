export async function runServe(_args: string[]): Promise<number> {
  process.stderr.write('context-health serve: not built yet\n');
  return 2;
}
