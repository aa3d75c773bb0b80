/**
 * The built-in kinds' protobuf messages, as the decoder walks them. The table
 * (schema.generated.ts) is written by scripts/protobuf-schema from the Go types of k8s.io/api
 * and k8s.io/apimachinery: each Go struct field that has a protobuf number, with
 * - its JSON name (or `inline`: an embedded struct whose fields Go's JSON encoder lifts into the
 *   parent, e.g. a Volume's VolumeSource),
 * - its JSON rules: `omitempty`, `omitzero`, and whether it is a pointer (a nil pointer, slice or
 *   map becomes `null` in JSON unless omitempty drops it),
 * - its value: a scalar, a nested message, a map, or one of the types that write their own JSON
 *   (Time, MicroTime, Duration, Quantity, IntOrString, RawExtension, FieldsV1).
 * The .proto files carry the numbers but none of the JSON rules, which is why the table is made
 * from the Go types: a decoded object must be the one the API server's JSON would give.
 *
 * The table is parsed on first use, and each message type is built from it once, when a decode
 * first reaches it.
 */
import { SCHEMA_JSON } from './schema.generated.js';

export const REPEATED = 1;
export const POINTER = 2;
export const OMIT_EMPTY = 4;
export const INLINE = 8;
export const OMIT_ZERO = 16;

/** What a value is: a scalar, a nested message, a map, or a type that writes its own JSON. */
export const ValueKind = {
  String: 0,
  Bool: 1,
  Int: 2,
  Uint: 3,
  Double: 4,
  Float: 5,
  Bytes: 6,
  Message: 7,
  Time: 8,
  MicroTime: 9,
  Duration: 10,
  Quantity: 11,
  IntOrString: 12,
  Raw: 13,
  FieldsV1: 14,
  Map: 15,
  /** A map's value that is a list (map[string][]string): a message whose field 1 repeats. */
  List: 16,
} as const;
export type ValueKind = (typeof ValueKind)[keyof typeof ValueKind];

/** What a field (or a map's key or value) holds. */
export interface ValueSpec {
  kind: ValueKind;
  /** Kind Message: the message's type; kind List: the elements'. */
  message?: MessageType | undefined;
  element?: ValueSpec | undefined;
}

export interface FieldSpec extends ValueSpec {
  num: number;
  name: string;
  flags: number;
  /** Kind Map. */
  key?: ValueSpec | undefined;
  value?: ValueSpec | undefined;
  /** metadata.managedFields: left undecoded when the caller drops it anyway. */
  managedFields: boolean;
  /** A managedFields entry's fieldsV1, likewise. */
  fieldSets: boolean;
}

export interface MessageType {
  readonly id: string;
  /** Fields by protobuf number. */
  readonly byNumber: (FieldSpec | undefined)[];
  /** Fields in number order. */
  readonly fields: FieldSpec[];
  /**
   * Fields Go's JSON encoder writes even when they are zero or nil: not omitempty (omitempty
   * never drops a struct), not an omitzero time, not inline, not managedFields.
   */
  readonly defaults: FieldSpec[];
}

interface Table {
  source: string;
  kinds: Record<string, string>;
  types: Record<string, [number, string, string, number, (string | [string, string])?, (string | [string, string])?][]>;
}

let table: Table | undefined;
const compiled = new Map<string, MessageType>();

function load(): Table {
  table ??= JSON.parse(SCHEMA_JSON) as Table;
  return table;
}

const SCALARS: Record<string, ValueKind> = {
  string: ValueKind.String,
  bool: ValueKind.Bool,
  int: ValueKind.Int,
  uint: ValueKind.Uint,
  double: ValueKind.Double,
  float: ValueKind.Float,
  bytes: ValueKind.Bytes,
  time: ValueKind.Time,
  microtime: ValueKind.MicroTime,
  duration: ValueKind.Duration,
  quantity: ValueKind.Quantity,
  intorstr: ValueKind.IntOrString,
  raw: ValueKind.Raw,
  fieldsv1: ValueKind.FieldsV1,
};

function valueSpec(code: string | [string, string]): ValueSpec {
  if (Array.isArray(code)) return { kind: ValueKind.List, element: valueSpec(code[1]) };
  if (code.startsWith('.')) return { kind: ValueKind.Message, message: messageType(code.slice(1)) };
  const kind = SCALARS[code];
  if (kind === undefined) throw new Error(`protobuf table: unknown value type ${code}`);
  return { kind };
}

/** The compiled message type of a table id (e.g. "core/v1.Pod"). */
export function messageType(id: string): MessageType {
  const done = compiled.get(id);
  if (done) return done;
  const rows = load().types[id];
  if (!rows) throw new Error(`protobuf table: no type ${id}`);
  const type: MessageType = { id, byNumber: [], fields: [], defaults: [] };
  // Registered before its fields are compiled: types may refer to themselves.
  compiled.set(id, type);
  for (const [num, name, code, flags, a, b] of rows) {
    let field: FieldSpec;
    if (code === 'map') {
      field = { num, name, flags, kind: ValueKind.Map, key: valueSpec(a!), value: valueSpec(b!), managedFields: false, fieldSets: false };
    } else {
      const managedFields = id === 'meta/v1.ObjectMeta' && name === 'managedFields';
      const fieldSets = id === 'meta/v1.ManagedFieldsEntry' && name === 'fieldsV1';
      field = { num, name, flags, ...valueSpec(code), managedFields, fieldSets };
    }
    type.byNumber[num] = field;
    type.fields.push(field);
    if (writtenWhenZero(field)) type.defaults.push(field);
  }
  return type;
}

function writtenWhenZero(field: FieldSpec): boolean {
  if ((field.flags & INLINE) !== 0 || field.managedFields || field.fieldSets) return false;
  const isTime = field.kind === ValueKind.Time || field.kind === ValueKind.MicroTime;
  if (isTime && (field.flags & OMIT_ZERO) !== 0) return false;
  if ((field.flags & OMIT_EMPTY) === 0) return true;
  // omitempty: Go drops empty scalars, nil pointers, empty lists and maps, never a struct value.
  const struct = (field.flags & (POINTER | REPEATED)) === 0 && field.kind >= ValueKind.Message && field.kind !== ValueKind.Map;
  return struct;
}

/** The message type of a built-in kind ("apps/v1", "Deployment"), or undefined (CRDs and kinds without a protobuf form). */
export function kindType(apiVersion: string, kind: string): MessageType | undefined {
  const id = load().kinds[`${apiVersion}/${kind}`];
  return id === undefined ? undefined : messageType(id);
}

/** Whether the API server can send this kind as protobuf (a built-in kind the table has). */
export function hasProtobufForm(apiVersion: string, kind: string): boolean {
  return load().kinds[`${apiVersion}/${kind}`] !== undefined;
}
