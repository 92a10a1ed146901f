// A WebSocket close reason is at most 123 bytes of UTF-8 (RFC 6455 §5.5): every socket the
// relay closes on purpose (subscribers, harness connections) shortens its reason here.
const MAX_BYTES = 123;

/** `reason`, cut at a character boundary and ended with an ellipsis when it is longer than a close frame holds. */
export function closeReason(reason: string): string {
  if (Buffer.byteLength(reason) <= MAX_BYTES) return reason;
  // each character is at least one byte: what fits is within the first MAX_BYTES of them
  let s = reason.slice(0, MAX_BYTES);
  while (Buffer.byteLength(s + '…') > MAX_BYTES) s = s.slice(0, -1);
  // a cut between the halves of a surrogate pair leaves a lone one: drop it too
  if (/[\uD800-\uDBFF]$/.test(s)) s = s.slice(0, -1);
  return s + '…';
}
