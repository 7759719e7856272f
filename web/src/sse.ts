// Incremental parser of a text/event-stream body read through fetch (docs/http_api.md, "The event
// stream"). Bytes arrive in arbitrary chunks: a line, an event or a UTF-8 character may be split
// across two reads, so the parser keeps what it has not yet seen the end of.

export interface StreamEvent {
  event: string;
  data: string;
}

export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private readonly decoder = new TextDecoder();

  constructor(private readonly emit: (e: StreamEvent) => void) {}

  // Feeds raw bytes (or text). Complete events are emitted as soon as their blank line arrives.
  push(chunk: Uint8Array | string): void {
    this.buffer += typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    for (;;) {
      const nl = this.buffer.search(/\r\n|\r|\n/);
      if (nl < 0) break;
      // A lone \r at the very end may be the first half of \r\n: wait for the next chunk.
      if (this.buffer[nl] === '\r' && nl === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, nl);
      const width = this.buffer.startsWith('\r\n', nl) ? 2 : 1;
      this.buffer = this.buffer.slice(nl + width);
      this.line(line);
    }
  }

  // The body ended: a final event without its blank line is still delivered.
  end(): void {
    this.buffer += this.decoder.decode();
    if (this.buffer.length > 0) {
      this.line(this.buffer);
      this.buffer = '';
    }
    this.dispatch();
  }

  private line(line: string): void {
    if (line === '') {
      this.dispatch();
      return;
    }
    if (line.startsWith(':')) return; // comment (keep-alive)
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
  }

  private dispatch(): void {
    if (this.data.length > 0 || this.event !== '') {
      this.emit({ event: this.event || 'message', data: this.data.join('\n') });
    }
    this.event = '';
    this.data = [];
  }
}
