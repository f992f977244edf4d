// Reading a stream of unknown size with a byte limit: a request body, an upload into the blob store.

/**
 * Hands each chunk of `stream` to `onChunk` and returns the total size. Past `maxBytes` the stream is cancelled
 * (the rest is never read) and `tooLarge()` is thrown, so a client cannot make a server buffer or write more.
 */
export async function readBounded(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
  onChunk: (chunk: Uint8Array) => unknown,
  tooLarge: () => Error,
): Promise<number> {
  const reader = stream.getReader();
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return size;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    await onChunk(value);
  }
}
