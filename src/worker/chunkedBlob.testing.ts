// For tests: a Blob whose stream() yields chunks of a chosen size, as a disk read would. A
// line split across two chunks is the bug this lets a test catch.
export function chunkedBlob(bytes: Uint8Array, size: number): Blob {
  const blob = new Blob([bytes as Uint8Array<ArrayBuffer>]);
  return Object.assign(blob, {
    stream: () =>
      new ReadableStream<Uint8Array>({
        start(c) {
          for (let i = 0; i < bytes.length; i += size) c.enqueue(bytes.slice(i, i + size));
          c.close();
        },
      }),
  });
}
