/**
 * Decodes the API server's protobuf (`application/vnd.kubernetes.protobuf`) into the objects its
 * JSON would give: the same field names, the same omitted and `null` fields, times as RFC 3339
 * strings, quantities as strings, int-or-strings as a number or a string. The rest of the program
 * (stores, indexers, field paths, views) cannot tell which encoding an object came in.
 *
 * The wire format is protobuf's (varints, length-delimited fields, fixed 32- and 64-bit values);
 * the messages are the table's (schema.ts). A body is the 4 bytes "k8s\0" followed by a
 * runtime.Unknown whose `typeMeta` names the kind and whose `raw` holds the object's message.
 *
 * Why not a protobuf library: protobufjs decodes a 10,000-Pod List no faster than JSON.parse
 * reads the same List as JSON (BENCHMARKS.md, section 1b), builds a message object for every
 * field it reads, and gives protobuf's shapes (`{seconds, nanos}` times, tagged unions), which
 * would then be rebuilt into JSON's. Built for the JSON shape directly, in one pass, and skipping
 * what the informer drops (metadata.managedFields) without reading it, it decodes a Pod List
 * in less time than JSON.parse takes for the same List as JSON (BENCHMARKS.md, section 1b).
 */
import {
  INLINE,
  OMIT_EMPTY,
  OMIT_ZERO,
  POINTER,
  REPEATED,
  ValueKind,
  kindType,
  messageType,
  type FieldSpec,
  type MessageType,
  type ValueSpec,
} from './schema.js';

export class ProtobufDecodeError extends Error {
  override readonly name = 'ProtobufDecodeError';
}

/** Options of one decode. */
export interface DecodeOptions {
  /** Leave metadata.managedFields out without decoding it (what the informer's default transform drops). */
  skipManagedFields?: boolean;
  /** Leave out the field sets (fieldsV1) of managedFields without decoding them. */
  skipManagedFieldSets?: boolean;
  /**
   * Keep a top-level object's `spec` and `status` as their bytes and decode each on its first
   * read (see lazyField): a List's objects reach the store with their metadata decoded, and the
   * rest costs only for the objects that are read.
   */
  lazySpecStatus?: boolean;
}

const STRING = ValueKind.String;
const BOOL = ValueKind.Bool;
const INT = ValueKind.Int;
const UINT = ValueKind.Uint;
const DOUBLE = ValueKind.Double;
const FLOAT = ValueKind.Float;
const BYTES = ValueKind.Bytes;
const MESSAGE = ValueKind.Message;
const TIME = ValueKind.Time;
const MICRO_TIME = ValueKind.MicroTime;
const DURATION = ValueKind.Duration;
const QUANTITY = ValueKind.Quantity;
const INT_OR_STRING = ValueKind.IntOrString;
const RAW = ValueKind.Raw;
const FIELDS_V1 = ValueKind.FieldsV1;
const MAP = ValueKind.Map;
const LIST = ValueKind.List;

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_BYTES = 2;
const WIRE_FIXED32 = 5;

/** A read position in a buffer; one per decode, passed down instead of allocating per message. */
class Cursor {
  pos = 0;
  constructor(readonly buf: Buffer) {}
}

function truncated(): never {
  throw new ProtobufDecodeError('the protobuf message ends in the middle of a field');
}

/** Reads a length-delimited field's length; returns where the field ends (within `end`). */
function delimited(c: Cursor, end: number): number {
  const len = varint(c, end);
  const stop = c.pos + len;
  if (stop > end) truncated();
  return stop;
}

/** An unsigned varint up to 2^53; larger values lose precision, as JSON numbers do. */
function varint(c: Cursor, end: number): number {
  const buf = c.buf;
  let pos = c.pos;
  if (pos >= end) truncated();
  let b = buf[pos++]!;
  if (b < 0x80) {
    c.pos = pos;
    return b;
  }
  let value = b & 0x7f;
  let shift = 7;
  for (;;) {
    if (pos >= end) truncated();
    b = buf[pos++]!;
    if (shift < 28) value |= (b & 0x7f) << shift;
    else value += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) break;
    shift += 7;
    if (shift > 63) throw new ProtobufDecodeError('a protobuf varint is longer than 10 bytes');
  }
  c.pos = pos;
  return value;
}

/**
 * A signed varint (int32 and int64 fields: negative values are written as 10-byte two's
 * complement).
 */
function signedVarint(c: Cursor, end: number): number {
  const start = c.pos;
  const v = varint(c, end);
  if (c.pos - start < 10) return v;
  // Ten bytes: a negative number. Re-read the low 64 bits as two halves.
  const buf = c.buf;
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < 4; i++) lo |= (buf[start + i]! & 0x7f) << (7 * i);
  lo |= (buf[start + 4]! & 0x0f) << 28;
  hi = (buf[start + 4]! & 0x7f) >> 4;
  for (let i = 5; i < 10; i++) hi |= (buf[start + i]! & 0x7f) << (7 * (i - 5) + 3);
  // Two's complement of (hi, lo).
  return -((~hi >>> 0) * 2 ** 32 + ((~lo >>> 0) + 1));
}

function skip(c: Cursor, wire: number, end: number): void {
  switch (wire) {
    case WIRE_VARINT:
      while (c.pos < end && c.buf[c.pos++]! >= 0x80);
      return;
    case WIRE_FIXED64:
      c.pos += 8;
      break;
    case WIRE_BYTES: {
      const len = varint(c, end);
      c.pos += len;
      break;
    }
    case WIRE_FIXED32:
      c.pos += 4;
      break;
    default:
      throw new ProtobufDecodeError(`protobuf wire type ${wire} is not one the API server writes`);
  }
  if (c.pos > end) truncated();
}

const utf8Slice = (Buffer.prototype as unknown as { utf8Slice?: (start: number, end: number) => string }).utf8Slice;

/**
 * A direct-mapped table of strings made from bytes: indexed by a hash of the bytes, it gives back
 * the string made the last time the same bytes were read, checked byte by byte. A hit costs no
 * string at all and keeps one copy; a miss makes the string and takes the slot. A string is
 * compared a character to a byte, so it must have one character a byte (ASCII, or latin1).
 */
class KeptStrings {
  private readonly table: (string | undefined)[];

  constructor(
    slots: number,
    private readonly make: (buf: Buffer, start: number, end: number) => string,
  ) {
    this.table = new Array<string | undefined>(slots).fill(undefined);
  }

  /** The string of buf[start, end), whose hash is `h`. */
  get(buf: Buffer, start: number, end: number, h: number): string {
    const len = end - start;
    const slot = (h ^ (h >>> 13)) & (this.table.length - 1);
    const kept = this.table[slot];
    if (kept !== undefined && kept.length === len) {
      let i = 0;
      while (i < len && kept.charCodeAt(i) === buf[start + i]) i++;
      if (i === len) return kept;
    }
    const fresh = this.make(buf, start, end);
    this.table[slot] = fresh;
    return fresh;
  }
}

/**
 * Short strings repeat across objects (statuses, reasons, node and image names, label values).
 * JSON.parse keeps one copy of each short string it reads; here a KeptStrings table does (a Pod
 * kept 40 % less heap than without). Only ASCII strings are kept: then one character is one byte,
 * and a match of characters is a match of bytes.
 */
const SHORT = 40;
const shortStrings = new KeptStrings(8192, slice);

function str(buf: Buffer, start: number, end: number): string {
  const len = end - start;
  if (len > SHORT) return slice(buf, start, end);
  if (len === 0) return '';
  let h = len;
  let high = 0;
  for (let i = start; i < end; i++) {
    const b = buf[i]!;
    high |= b;
    h = Math.imul(h ^ b, 16777619);
  }
  if (high >= 0x80) return slice(buf, start, end);
  return shortStrings.get(buf, start, end, h);
}

function slice(buf: Buffer, start: number, end: number): string {
  return utf8Slice ? utf8Slice.call(buf, start, end) : buf.toString('utf8', start, end);
}

const latin1Slice = (Buffer.prototype as unknown as { latin1Slice?: (start: number, end: number) => string }).latin1Slice;

/** Bytes kept as a string of one byte a character: on V8's heap, exactly their size, nothing outside it. */
function bytesAsString(buf: Buffer, start: number, end: number): string {
  return latin1Slice ? latin1Slice.call(buf, start, end) : buf.toString('latin1', start, end);
}

// Times repeat (a rollout's objects change within the same seconds): conversions are kept, up
// to a bound.
const times = new Map<number, string>();
const TIMES_KEPT = 4096;

/** RFC 3339 in UTC, to the second, as Go's metav1.Time marshals. */
function rfc3339(seconds: number): string {
  let s = times.get(seconds);
  if (s === undefined) {
    if (times.size >= TIMES_KEPT) times.clear();
    s = `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;
    times.set(seconds, s);
  }
  return s;
}

/** RFC 3339 with microseconds, as metav1.MicroTime marshals. */
function rfc3339Micro(seconds: number, nanos: number): string {
  const micros = String(Math.floor(nanos / 1000)).padStart(6, '0');
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}.${micros}Z`;
}

/** A metav1.Time or MicroTime message: undefined for the zero time (an empty message). */
function timestamp(c: Cursor, end: number, micro: boolean): string | undefined {
  if (c.pos === end) return undefined;
  let seconds = 0;
  let nanos = 0;
  while (c.pos < end) {
    const tag = varint(c, end);
    if (tag === 8) seconds = signedVarint(c, end);
    else if (tag === 16) nanos = signedVarint(c, end);
    else skip(c, tag & 7, end);
  }
  return micro ? rfc3339Micro(seconds, nanos) : rfc3339(seconds);
}

const UNITS: [number, string][] = [
  [3_600_000_000_000, 'h'],
  [60_000_000_000, 'm'],
];

/** Go's time.Duration.String(), as metav1.Duration marshals. */
export function goDuration(nanos: number): string {
  if (nanos === 0) return '0s';
  const sign = nanos < 0 ? '-' : '';
  let n = Math.abs(nanos);
  if (n < 1_000_000_000) {
    // Below a second: the largest of ns, µs, ms that keeps an integer part.
    const [div, unit] = n < 1000 ? [1, 'ns'] : n < 1_000_000 ? [1000, 'µs'] : [1_000_000, 'ms'];
    return `${sign}${fraction(n, div)}${unit}`;
  }
  let out = sign;
  let started = false;
  for (const [div, unit] of UNITS) {
    const whole = Math.floor(n / div);
    if (whole > 0 || started) {
      out += `${whole}${unit}`;
      started = true;
    }
    n -= whole * div;
  }
  return `${out}${fraction(n, 1_000_000_000)}s`;
}

function fraction(n: number, div: number): string {
  const whole = Math.floor(n / div);
  const rest = n - whole * div;
  if (rest === 0) return String(whole);
  const digits = String(div).length - 1;
  return `${whole}.${String(rest).padStart(digits, '0').replace(/0+$/, '')}`;
}

/** A value of kind `spec` at the cursor, whose wire type is `wire`. */
function value(c: Cursor, spec: ValueSpec, wire: number, end: number, opts: DecodeOptions): unknown {
  const buf = c.buf;
  switch (spec.kind) {
    case STRING:
      return stringAt(c, end);
    case INT:
      return signedVarint(c, end);
    case BOOL:
      return varint(c, end) !== 0;
    case UINT:
      return varint(c, end);
    case DOUBLE: {
      if (wire !== WIRE_FIXED64 || c.pos + 8 > end) truncated();
      const v = buf.readDoubleLE(c.pos);
      c.pos += 8;
      return v;
    }
    case FLOAT: {
      if (wire !== WIRE_FIXED32 || c.pos + 4 > end) truncated();
      const v = buf.readFloatLE(c.pos);
      c.pos += 4;
      return v;
    }
  }
  // Everything else is length-delimited.
  if (wire !== WIRE_BYTES)
    throw new ProtobufDecodeError(`protobuf field of a ${spec.message?.id ?? 'message'} has wire type ${wire}, not a length-delimited one`);
  const stop = delimited(c, end);
  let out: unknown;
  switch (spec.kind) {
    case MESSAGE:
      out = message(c, spec.message!, stop, opts);
      break;
    case BYTES:
      out = buf.toString('base64', c.pos, stop);
      break;
    case TIME:
      out = timestamp(c, stop, false) ?? null;
      break;
    case MICRO_TIME:
      out = timestamp(c, stop, true) ?? null;
      break;
    case QUANTITY:
      out = '0';
      while (c.pos < stop) {
        const tag = varint(c, stop);
        if (tag === 10) out = stringAt(c, stop);
        else skip(c, tag & 7, stop);
      }
      break;
    case INT_OR_STRING: {
      let type = 0;
      let int = 0;
      let s = '';
      while (c.pos < stop) {
        const tag = varint(c, stop);
        if (tag === 8) type = varint(c, stop);
        else if (tag === 16) int = signedVarint(c, stop);
        else if (tag === 26) s = stringAt(c, stop);
        else skip(c, tag & 7, stop);
      }
      out = type === 1 ? s : int;
      break;
    }
    case DURATION: {
      let nanos = 0;
      while (c.pos < stop) {
        const tag = varint(c, stop);
        if (tag === 8) nanos = signedVarint(c, stop);
        else skip(c, tag & 7, stop);
      }
      out = goDuration(nanos);
      break;
    }
    case RAW:
    case FIELDS_V1: {
      // Both hold JSON in their field 1 (raw); nil raw marshals as null.
      out = null;
      while (c.pos < stop) {
        const tag = varint(c, stop);
        if (tag === 10) {
          const text = stringAt(c, stop);
          try {
            out = text.length === 0 ? null : JSON.parse(text);
          } catch {
            throw new ProtobufDecodeError('a RawExtension or FieldsV1 holds something that is not JSON');
          }
        } else skip(c, tag & 7, stop);
      }
      break;
    }
    case LIST: {
      const items: unknown[] = [];
      while (c.pos < stop) {
        const tag = varint(c, stop);
        if (tag >>> 3 === 1) items.push(value(c, spec.element!, tag & 7, stop, opts));
        else skip(c, tag & 7, stop);
      }
      out = items;
      break;
    }
    default:
      throw new ProtobufDecodeError(`protobuf value kind ${spec.kind} cannot be read here`);
  }
  c.pos = stop;
  return out;
}

/** Whether Go's JSON encoder leaves a scalar out under omitempty. */
function emptyScalar(v: unknown): boolean {
  return v === '' || v === 0 || v === false;
}

function message(c: Cursor, type: MessageType, end: number, opts: DecodeOptions): Record<string, unknown> {
  const obj: Record<string, unknown> = {};
  decodeInto(obj, c, type, end, opts);
  return obj;
}

/** Spec and status of each type that has them, made once per field (see lazyField). */
const lazies = new WeakMap<FieldSpec, LazyField>();

/**
 * Decodes a message's fields into `obj` (an inline field's message decodes into its parent's),
 * walking the schema's table: the field of each tag, read as its kind says. No code is generated
 * per type: measured against decoders generated per type with `new Function`, walking the table
 * took the same time on the sync and offline benchmarks (BENCHMARKS.md, section 1d).
 */
function decodeInto(obj: Record<string, unknown>, c: Cursor, type: MessageType, end: number, opts: DecodeOptions): void {
  let lazy = false;
  while (c.pos < end) {
    const tag = varint(c, end);
    const field = type.byNumber[tag >>> 3];
    if (field !== undefined && opts.lazySpecStatus && (tag & 7) === WIRE_BYTES && mayWait(type, field)) {
      let l = lazies.get(field);
      if (l === undefined) lazies.set(field, (l = lazyFieldFor(field)));
      lazyField(obj, c, end, l);
      lazy = true;
    } else {
      readField(obj, c, tag, end, opts, type);
    }
  }
  // A list grown by push keeps room for more (V8 grows 1 → 17 elements); JSON.parse's are exact.
  for (const f of type.fields) {
    if ((f.flags & REPEATED) === 0 || (f.flags & INLINE) !== 0) continue;
    const l = obj[f.name] as unknown[] | undefined | null;
    if (l !== undefined && l !== null && l.length > 1) obj[f.name] = l.slice();
  }
  for (const f of type.defaults) {
    if (lazy && mayWait(type, f) ? !(f.name in obj) : obj[f.name] === undefined) obj[f.name] = absentValue(f);
  }
}

/** One field of any kind, as the wire gives it. */
function decodeField(obj: Record<string, unknown>, c: Cursor, field: FieldSpec, wire: number, end: number, opts: DecodeOptions): void {
  const flags = field.flags;
  if ((flags & INLINE) !== 0) {
    if (wire !== WIRE_BYTES) throw new ProtobufDecodeError(`protobuf field ${field.num} (${field.message?.id}) is not length-delimited`);
    const stop = delimited(c, end);
    decodeInto(obj, c, field.message!, stop, opts);
    c.pos = stop;
    return;
  }
  const kind = field.kind;
  if (kind === MAP) {
    mapEntry(obj, c, field, wire, end, opts);
    return;
  }
  if ((flags & REPEATED) !== 0) {
    let list = obj[field.name] as unknown[] | undefined;
    if (list === undefined) obj[field.name] = list = [];
    if (wire === WIRE_BYTES && kind <= FLOAT && kind !== STRING) {
      // A packed list of numbers or booleans.
      const stop = delimited(c, end);
      while (c.pos < stop) list.push(value(c, field, kind === DOUBLE ? WIRE_FIXED64 : kind === FLOAT ? WIRE_FIXED32 : WIRE_VARINT, stop, opts));
      return;
    }
    list.push(value(c, field, wire, end, opts));
    return;
  }
  const v = value(c, field, wire, end, opts);
  if ((flags & POINTER) === 0) {
    if (kind <= BYTES) {
      if ((flags & OMIT_EMPTY) !== 0 && emptyScalar(v)) return;
    } else if (v === null && (kind === TIME || kind === MICRO_TIME) && (flags & OMIT_ZERO) !== 0) {
      return;
    }
  }
  obj[field.name] = v;
}

/** One field, or its skip: a number the table lacks, or managedFields the options leave out. */
function readField(obj: Record<string, unknown>, c: Cursor, tag: number, end: number, opts: DecodeOptions, type: MessageType): void {
  const field = type.byNumber[tag >>> 3];
  if (field === undefined || (field.managedFields && opts.skipManagedFields) || (field.fieldSets && opts.skipManagedFieldSets)) skip(c, tag & 7, end);
  else decodeField(obj, c, field, tag & 7, end, opts);
}

function stringAt(c: Cursor, end: number): string {
  const stop = delimited(c, end);
  const start = c.pos;
  c.pos = stop;
  return str(c.buf, start, stop);
}

/** A map key JSON.parse keeps as an own property but an assignment would take as the prototype (a ConfigMap may have it). */
function own(map: Record<string, unknown>, key: string, v: unknown): void {
  Object.defineProperty(map, key, { value: v, enumerable: true, writable: true, configurable: true });
}

/**
 * A top-level object's `spec` or `status`, left undecoded until it is first read.
 *
 * Most of an object's bytes and of its decoding are its spec and status, and an informer's store
 * holds every object of a List while a program usually reads a few of them (the trace reads the
 * objects of one chain; indexers and owner lookups read metadata). So a List's objects keep these
 * two fields as their bytes, in a string of one byte a character under a symbol of the field's,
 * and the field is an accessor property, enumerable as the field is: the first read decodes it,
 * puts the result in its place as a plain data property and drops the bytes. JSON.stringify,
 * Object.keys, spreading, structuredClone and deep equality read through the accessor, so the
 * object looks and serialises as the eager decoder's; an assignment replaces the field as it
 * would a plain one. The type that marks such objects, and their contract: Deferred (../types.ts).
 *
 * The bytes are kept in pieces that objects share (see waitingBytes): the Pods of one template
 * differ in a few fields (the node, a generated volume name, the status) and are alike in the
 * rest, so most of a List's waiting bytes are held once.
 */
interface LazyField {
  readonly name: string;
  readonly type: MessageType;
  /** Where the field's bytes wait (a non-enumerable property). */
  readonly key: symbol;
  readonly accessor: PropertyDescriptor;
}

function lazyFieldFor(field: FieldSpec): LazyField {
  const key = Symbol(field.name);
  const name = field.name;
  const type = field.message!;
  const settle = (obj: Record<PropertyKey, unknown>, value: unknown): void => {
    Object.defineProperty(obj, name, { value, writable: true, enumerable: true, configurable: true });
    obj[key] = undefined;
  };
  const accessor: PropertyDescriptor = {
    get(this: Record<PropertyKey, unknown>) {
      const raw = this[key];
      const buf = Buffer.from(typeof raw === 'string' ? raw : Array.isArray(raw) ? raw.join('') : '', 'latin1');
      const value = message(new Cursor(buf), type, buf.length, EAGER);
      // A sealed or frozen object cannot take the data property: it decodes on each read instead.
      if (!Object.isSealed(this)) settle(this, value);
      return value;
    },
    set(this: Record<PropertyKey, unknown>, value: unknown) {
      settle(this, value);
    },
    enumerable: true,
    configurable: true,
  };
  return { name, type, key, accessor };
}

const EAGER: DecodeOptions = {};

function lazyField(obj: Record<PropertyKey, unknown>, c: Cursor, end: number, lazy: LazyField): void {
  const stop = delimited(c, end);
  Object.defineProperty(obj, lazy.key, { value: waitingBytes(c, stop, lazy.type), writable: true, configurable: true });
  Object.defineProperty(obj, lazy.name, lazy.accessor);
  c.pos = stop;
}

/**
 * A waiting field's bytes, c.buf[c.pos, end), as strings of one byte a character whose
 * concatenation is the bytes: the message is cut at its nested messages of PIECE_MIN bytes or
 * more, PIECE_DEPTH levels down (a Pod's spec at its containers and volumes, and a container at
 * its env, probes and volume mounts), and each run of bytes between the cuts is kept once across
 * objects (a KeptStrings table), so a Pod keeps a list of shared pieces and its own few. Cut this
 * way, the 10,000 Pods of one template hold 2.0 MiB of spec and status bytes instead of 11.5,
 * which with the plugin's 2 MiB young generation puts the 10,000-Pod sync under half of
 * client-go's peak RSS (BENCHMARKS.md, section 1c).
 * Bytes that do not parse as the message are kept
 * whole; the first read then reports them as the eager decoder would. The cursor is left where
 * the cutting stopped: the caller moves it to `end`.
 */
function waitingBytes(c: Cursor, end: number, type: MessageType): string | string[] {
  const start = c.pos;
  const pieces: string[] = [];
  try {
    cutMessage(c, end, type, 0, pieces);
  } catch (err) {
    if (!(err instanceof ProtobufDecodeError)) throw err;
    return bytesAsString(c.buf, start, end);
  }
  // slice(): a list of its exact length, without the room push() leaves.
  return pieces.length === 1 ? pieces[0]! : pieces.slice();
}

const PIECE_MIN = 64;
const PIECE_DEPTH = 2;
/**
 * Longer runs are kept as they are, without hashing them: the table holds at most
 * 4096 × PIECE_MAX bytes (4 MiB) beyond what the objects hold.
 */
const PIECE_MAX = 1024;
const pieceStrings = new KeptStrings(4096, bytesAsString);

function cutMessage(c: Cursor, end: number, type: MessageType, depth: number, pieces: string[]): void {
  let run = c.pos;
  while (c.pos < end) {
    const tag = varint(c, end);
    const wire = tag & 7;
    if (wire !== WIRE_BYTES) {
      skip(c, wire, end);
      continue;
    }
    const stop = delimited(c, end);
    const nested = type.byNumber[tag >>> 3];
    if (depth < PIECE_DEPTH && stop - c.pos >= PIECE_MIN && nested?.kind === MESSAGE && nested.message) {
      pieces.push(piece(c.buf, run, c.pos));
      cutMessage(c, stop, nested.message, depth + 1, pieces);
      run = stop;
    }
    c.pos = stop;
  }
  if (end > run) pieces.push(piece(c.buf, run, end));
}

/** The bytes buf[start, end) as a string, the same string wherever the same bytes were kept. */
function piece(buf: Buffer, start: number, end: number): string {
  if (end - start > PIECE_MAX) return bytesAsString(buf, start, end);
  let h = end - start;
  for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i]!, 16777619);
  return pieceStrings.get(buf, start, end, h);
}

/** Whether `field` of `type` may be left for its first read: spec or status of an object with ObjectMeta. */
function mayWait(type: MessageType, field: FieldSpec): boolean {
  const meta = type.byNumber[1];
  return (
    (field.name === 'spec' || field.name === 'status') &&
    field.kind === MESSAGE &&
    (field.flags & (REPEATED | INLINE)) === 0 &&
    meta !== undefined &&
    meta.name === 'metadata' &&
    meta.message?.id === 'meta/v1.ObjectMeta'
  );
}

/** A map field's entry (a message with the key in field 1 and the value in field 2). */
function mapEntry(obj: Record<string, unknown>, c: Cursor, field: FieldSpec, wire: number, end: number, opts: DecodeOptions): void {
  if (wire !== WIRE_BYTES) throw new ProtobufDecodeError(`protobuf map ${field.name} has an entry that is not length-delimited`);
  const stop = delimited(c, end);
  let key: unknown = '';
  let v: unknown;
  while (c.pos < stop) {
    const tag = varint(c, stop);
    const num = tag >>> 3;
    if (num === 1) key = value(c, field.key!, tag & 7, stop, opts);
    else if (num === 2) v = value(c, field.value!, tag & 7, stop, opts);
    else skip(c, tag & 7, stop);
  }
  c.pos = stop;
  let map = obj[field.name] as Record<string, unknown> | undefined;
  if (map === undefined) obj[field.name] = map = {};
  const k = String(key);
  const val = v === undefined ? zeroOf(field.value!) : v;
  if (k === '__proto__') own(map, k, val);
  else map[k] = val;
}

/** What Go's JSON gives for a value missing from the wire. */
function zeroOf(spec: ValueSpec): unknown {
  switch (spec.kind) {
    case STRING:
      return '';
    case BOOL:
      return false;
    case INT:
    case UINT:
    case DOUBLE:
    case FLOAT:
    case INT_OR_STRING:
      return 0;
    case QUANTITY:
      return '0';
    case DURATION:
      return '0s';
    case MESSAGE:
      return message(EMPTY, spec.message!, 0, {});
    default:
      return null;
  }
}

const EMPTY = new Cursor(Buffer.alloc(0));

/**
 * What Go's JSON encoder writes for a field the wire did not carry (the table lists these fields
 * as the type's `defaults`: those it writes even when zero): `null` for a nil pointer, slice or
 * map, else the zero value. Go's protobuf writes every non-pointer scalar and struct, so normally
 * only a pointer, a list or a map is missing.
 */
function absentValue(field: FieldSpec): unknown {
  const nilable = (field.flags & (POINTER | REPEATED)) !== 0 || field.kind === MAP || field.kind === BYTES;
  return nilable ? null : zeroOf(field);
}

/** apiVersion and kind from a runtime.Unknown's typeMeta, and where its raw message lies. */
export interface Envelope {
  apiVersion: string;
  kind: string;
  rawStart: number;
  rawEnd: number;
}

/** Throws unless `buf[start, end)` begins with the "k8s\0" of every Kubernetes protobuf message. */
export function checkMagic(buf: Buffer, start: number, end: number): void {
  if (end - start < 4 || buf[start] !== 0x6b || buf[start + 1] !== 0x38 || buf[start + 2] !== 0x73 || buf[start + 3] !== 0) {
    throw new ProtobufDecodeError('not a Kubernetes protobuf message (no "k8s\\0" prefix)');
  }
}

/** Reads the runtime.Unknown after the "k8s\0" prefix of `buf[start, end)`. */
export function envelope(buf: Buffer, start = 0, end = buf.length): Envelope {
  checkMagic(buf, start, end);
  const c = new Cursor(buf);
  c.pos = start + 4;
  const out: Envelope = { apiVersion: '', kind: '', rawStart: c.pos, rawEnd: c.pos };
  while (c.pos < end) {
    const tag = varint(c, end);
    if (tag === 10) {
      const stop = delimited(c, end);
      while (c.pos < stop) {
        const t = varint(c, stop);
        if (t === 10) out.apiVersion = stringAt(c, stop);
        else if (t === 18) out.kind = stringAt(c, stop);
        else skip(c, t & 7, stop);
      }
    } else if (tag === 18) {
      out.rawEnd = delimited(c, end);
      out.rawStart = c.pos;
      c.pos = out.rawEnd;
    } else {
      skip(c, tag & 7, end);
    }
  }
  return out;
}

/** Decodes `buf[start, end)` as a message of `type`. */
export function decodeMessage(buf: Buffer, type: MessageType, start = 0, end = buf.length, opts: DecodeOptions = {}): Record<string, unknown> {
  const c = new Cursor(buf);
  c.pos = start;
  return message(c, type, end, opts);
}

/**
 * Decodes a whole object ("k8s\0" + runtime.Unknown) into its JSON form, with apiVersion and kind
 * first, as the API server's JSON has them.
 */
export function decodeObject(buf: Buffer, start = 0, end = buf.length, opts: DecodeOptions = {}): Record<string, unknown> {
  const env = envelope(buf, start, end);
  const type = env.kind === 'Status' ? messageType('meta/v1.Status') : kindType(env.apiVersion, env.kind);
  if (!type) throw new ProtobufDecodeError(`the API server sent a ${env.kind} (${env.apiVersion}) in protobuf, which this program has no message for`);
  const obj: Record<string, unknown> = {};
  obj.kind = env.kind;
  obj.apiVersion = env.apiVersion;
  const c = new Cursor(buf);
  c.pos = env.rawStart;
  decodeInto(obj, c, type, env.rawEnd, opts);
  return obj;
}

/** The reader, for the List and watch-frame decoders. */
export { Cursor, varint };
