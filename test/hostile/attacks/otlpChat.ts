// An OTLP GenAI chat span as protobufjs's fromObject takes it (ids as bytes): span i of one
// trace, its input messages the JSON text given. The hostile OTLP tests nest their attack in it.
export function chatSpanObject(i: number, messagesJson: string): Record<string, unknown> {
  return {
    traceId: Buffer.alloc(16, 1),
    spanId: Buffer.from((i + 1).toString(16).padStart(16, '0'), 'hex'),
    name: 'chat m',
    startTimeUnixNano: 1 + i,
    endTimeUnixNano: 2 + i,
    attributes: [
      { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
      { key: 'gen_ai.conversation.id', value: { stringValue: 'c1' } },
      { key: 'gen_ai.input.messages', value: { stringValue: messagesJson } },
    ],
  };
}
