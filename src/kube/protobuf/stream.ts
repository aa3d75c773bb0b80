/**
 * The API server's protobuf Lists and watch streams, decoded while they arrive.
 *
 * A List is one message ("k8s\0" + runtime.Unknown whose raw field holds e.g. a PodList); its
 * items (field 2 of the List) are cut out of the byte stream one at a time and each is decoded
 * as soon as its last byte is in, as the JSON list decoder does, so a large List never exists
 * whole in memory. A watch stream is a sequence of frames, each a 4-byte big-endian length and
 * a metav1.WatchEvent message (type in field 1; the object, itself "k8s\0" + runtime.Unknown, in
 * the raw field of the RawExtension in field 2).
 */
import type { WatchEvent, WatchEventType } from '../types.js';
import { MAX_WATCH_EVENT_BYTES, WatchEventTooLarge, type WatchDecoder } from '../watch-stream.js';
import { checkMagic, Cursor, decodeMessage, decodeObject, ProtobufDecodeError, varint, type DecodeOptions } from './decode.js';
import { kindType, messageType, type MessageType } from './schema.js';

/** Bytes received and not yet consumed, as the chunks they came in. */
class ByteQueue {
  private chunks: Buffer[] = [];
  private head = 0;
  length = 0;

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  /** The byte at offset `i` from the front (i < length). */
  private at(i: number): number {
    let k = 0;
    let off = this.head + i;
    while (off >= this.chunks[k]!.length) off -= this.chunks[k++]!.length;
    return this.chunks[k]![off]!;
  }

  /** A varint at offset `from`: [value, bytes], or undefined when its last byte has not arrived. */
  peekVarint(from: number): [number, number] | undefined {
    let value = 0;
    for (let i = 0; i < 10; i++) {
      if (from + i >= this.length) return undefined;
      const b = this.at(from + i);
      value += (b & 0x7f) * 2 ** (7 * i);
      if (b < 0x80) return [value, i + 1];
    }
    throw new ProtobufDecodeError('a protobuf varint is longer than 10 bytes');
  }

  /** The 4-byte big-endian number at the front (length >= 4). */
  peekUInt32BE(): number {
    return ((this.at(0) << 24) | (this.at(1) << 16) | (this.at(2) << 8) | this.at(3)) >>> 0;
  }

  /** Removes and returns the first n bytes (n <= length): a view when they lie in one chunk. */
  take(n: number): Buffer {
    if (n === 0) return EMPTY;
    const first = this.chunks[0]!;
    let out: Buffer;
    if (this.head + n <= first.length) {
      out = first.subarray(this.head, this.head + n);
    } else {
      out = Buffer.allocUnsafe(n);
      let copied = 0;
      let k = 0;
      let off = this.head;
      while (copied < n) {
        const c = this.chunks[k++]!;
        const m = Math.min(c.length - off, n - copied);
        c.copy(out, copied, off, off + m);
        copied += m;
        off = 0;
      }
    }
    this.drop(n);
    return out;
  }

  /** Removes the first n bytes (n <= length). */
  drop(n: number): void {
    this.length -= n;
    let rest = n;
    while (rest > 0) {
      const c = this.chunks[0]!;
      const left = c.length - this.head;
      if (rest < left) {
        this.head += rest;
        return;
      }
      rest -= left;
      this.chunks.shift();
      this.head = 0;
    }
  }
}

const MAGIC_LEN = 4;
const EMPTY = Buffer.alloc(0);

/**
 * Decodes a protobuf List while it arrives; the same contract as the JSON ListStreamDecoder:
 * write() each chunk, end() returns the List without its items (kind, apiVersion, metadata).
 */
export class ProtobufListStreamDecoder {
  private readonly bytes = new ByteQueue();
  private state: 'magic' | 'outer' | 'list' = 'magic';
  /** Bytes of the List message (the envelope's raw field) still to read. */
  private listLeft = 0;
  private apiVersion = '';
  private listKind = '';
  private itemType: MessageType | undefined;
  private metadata: Record<string, unknown> = {};
  private itemCount = 0;

  constructor(
    private readonly onItem: (item: unknown) => void,
    private readonly opts: DecodeOptions = {},
  ) {}

  get count(): number {
    return this.itemCount;
  }

  write(chunk: Buffer): void {
    this.bytes.push(chunk);
    this.advance();
  }

  end(): Record<string, unknown> {
    this.advance();
    if (this.state === 'magic' || this.state === 'list' || this.bytes.length > 0) {
      throw new ProtobufDecodeError('the protobuf List ended before its last item');
    }
    return { kind: this.listKind, apiVersion: this.apiVersion, metadata: this.metadata, items: [] };
  }

  private advance(): void {
    const q = this.bytes;
    for (;;) {
      if (this.state === 'magic') {
        if (q.length < MAGIC_LEN) return;
        checkMagic(q.take(MAGIC_LEN), 0, MAGIC_LEN);
        this.state = 'outer';
        continue;
      }
      if (this.state === 'list' && this.listLeft === 0) this.state = 'outer';
      const tag = q.peekVarint(0);
      if (!tag) return;
      const [key, tagLen] = tag;
      const wire = key & 7;
      const num = Math.floor(key / 8);
      if (wire !== 2) {
        // Neither the envelope nor a List has fields other than length-delimited ones.
        throw new ProtobufDecodeError(`protobuf List field ${num} has wire type ${wire}`);
      }
      const length = q.peekVarint(tagLen);
      if (!length) return;
      const [len, lenLen] = length;
      const head = tagLen + lenLen;
      if (this.state === 'outer' && num === 2) {
        // The envelope's raw field: the List itself, read field by field.
        q.drop(head);
        this.state = 'list';
        this.listLeft = len;
        if (!this.itemType) this.itemType = this.itemTypeOf();
        continue;
      }
      if (q.length < head + len) return;
      q.drop(head);
      const body = q.take(len);
      if (this.state === 'outer') {
        if (num === 1) this.typeMeta(body);
        continue;
      }
      this.listLeft -= head + len;
      if (this.listLeft < 0) throw new ProtobufDecodeError('a protobuf List item runs past the end of the List');
      if (num === 2) {
        this.itemCount++;
        this.onItem(decodeMessage(body, this.itemType!, 0, body.length, this.opts));
      } else if (num === 1) {
        this.metadata = decodeMessage(body, messageType('meta/v1.ListMeta'));
      }
    }
  }

  private typeMeta(body: Buffer): void {
    // runtime.TypeMeta: apiVersion (1), kind (2).
    const meta = decodeMessage(body, TYPE_META);
    this.apiVersion = typeof meta.apiVersion === 'string' ? meta.apiVersion : '';
    this.listKind = typeof meta.kind === 'string' ? meta.kind : '';
  }

  private itemTypeOf(): MessageType {
    const kind = this.listKind.endsWith('List') ? this.listKind.slice(0, -4) : '';
    const type = kind ? kindType(this.apiVersion, kind) : undefined;
    if (!type)
      throw new ProtobufDecodeError(
        `the API server sent a ${this.listKind || 'message without a kind'} (${this.apiVersion}) in protobuf, which this program has no List of`,
      );
    return type;
  }
}

/** runtime.TypeMeta, the one message of the envelope the table has no Go type for. */
const TYPE_META: MessageType = (() => {
  const str = (num: number, name: string) => ({ num, name, flags: 4, kind: 0 as const, managedFields: false, fieldSets: false });
  const fields = [str(1, 'apiVersion'), str(2, 'kind')];
  return { id: 'runtime.TypeMeta', byNumber: [undefined, ...fields], fields, defaults: [], decoder: undefined, create: undefined };
})();

const WATCH_EVENT_TYPES = new Set<string>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/** Cuts a protobuf watch stream into frames and decodes each into a WatchEvent. */
export class ProtobufWatchDecoder implements WatchDecoder {
  private readonly bytes = new ByteQueue();

  constructor(
    private readonly opts: DecodeOptions = {},
    private readonly maxEventBytes = MAX_WATCH_EVENT_BYTES,
  ) {}

  /** Decodes every whole frame received so far; refuses a frame longer than the limit from its length prefix. */
  write(chunk: Buffer, push: (event: WatchEvent) => void): void {
    const q = this.bytes;
    q.push(chunk);
    while (q.length >= 4) {
      const len = q.peekUInt32BE();
      if (len > this.maxEventBytes) throw new WatchEventTooLarge(len, true, this.maxEventBytes);
      if (q.length < 4 + len) return;
      q.drop(4);
      push(this.event(q.take(len)));
    }
  }

  end(): void {
    if (this.bytes.length > 0) throw new ProtobufDecodeError(`the stream ended inside a frame (${this.bytes.length} bytes of it)`);
  }

  private event(frame: Buffer): WatchEvent {
    let type = '';
    let object: Record<string, unknown> | undefined;
    const c = new Cursor(frame);
    const end = frame.length;
    // metav1.WatchEvent: type (1, string), object (2, RawExtension whose field 1 is the raw object).
    while (c.pos < end) {
      const key = varint(c, end);
      const len = varint(c, end);
      const stop = c.pos + len;
      if ((key & 7) !== 2 || stop > end) throw new ProtobufDecodeError('a protobuf watch frame is not a WatchEvent');
      if (key >>> 3 === 1) {
        type = frame.toString('utf8', c.pos, stop);
      } else if (key >>> 3 === 2) {
        while (c.pos < stop) {
          const k = varint(c, stop);
          const l = varint(c, stop);
          if (k === 10) object = decodeObject(frame, c.pos, c.pos + l, this.opts);
          c.pos += l;
        }
      }
      c.pos = stop;
    }
    if (!WATCH_EVENT_TYPES.has(type) || !object) throw new ProtobufDecodeError(`a protobuf watch frame holds no event (type "${type}")`);
    return { type: type as WatchEventType, object: object as WatchEvent['object'] };
  }
}
