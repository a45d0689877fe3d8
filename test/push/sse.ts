/** Read a text/event-stream body one message at a time (the server writes one whole message per chunk). */
export type SseMessage = { id?: string; event?: string; data?: unknown; comment?: string };

export function sseReader(res: Response) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  return {
    async next(): Promise<SseMessage | null> {
      const { value, done } = await reader.read();
      if (done) return null;
      const text = decoder.decode(value);
      const msg: SseMessage = {};
      for (const line of text.split('\n')) {
        if (line.startsWith(': ')) msg.comment = line.slice(2);
        else if (line.startsWith('id: ')) msg.id = line.slice(4);
        else if (line.startsWith('event: ')) msg.event = line.slice(7);
        else if (line.startsWith('data: ')) msg.data = JSON.parse(line.slice(6));
      }
      return msg;
    },
    /** Read until a message (not a heartbeat) satisfies `match`; bounded by `max` messages. */
    async until(match: (m: SseMessage) => boolean, max = 50): Promise<SseMessage> {
      for (let i = 0; i < max; i++) {
        const m = await this.next();
        if (!m) throw new Error('stream ended before the expected message');
        if (match(m)) return m;
      }
      throw new Error(`no matching message in ${max}`);
    },
  };
}
