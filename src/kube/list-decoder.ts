/**
 * Decodes a List response (`{"kind":…,"metadata":{…},"items":[{…},{…}]}`) while it arrives: each
 * element of the top-level `items` array is cut out of the byte stream and parsed on its own as
 * soon as its closing brace is read, then handed to `onItem`. The raw bytes of an item are dropped
 * once it is parsed, so a large list never exists at once as Buffer chunks, their concatenation, a
 * decoded string and a parsed tree: at most one item's bytes and the parsed (and, through onItem,
 * transformed) items. The rest of the document, the envelope, is parsed at the end with `items`
 * left empty.
 *
 * The scanner tracks only what it must to find item boundaries: nesting depth, and whether it is
 * inside a string (jumping from quote to quote, counting the backslashes before each). JSON syntax
 * inside an item is checked by JSON.parse of that item; the envelope by JSON.parse of the envelope.
 */
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const COMMA = 0x2c;

const ITEMS_KEY_BEFORE_BRACKET = /"items"\s*:\s*$/;

export class ListDecodeError extends Error {
  override readonly name = 'ListDecodeError';
}

export class ListStreamDecoder {
  private depth = 0;
  private inString = false;
  /** The first byte of the next chunk is escaped (the chunk ended on an odd run of backslashes). */
  private escaped = false;
  /** Inside the top-level items array (between its brackets). */
  private inItems = false;
  private itemsSeen = false;
  /** Bytes of the item being read that came in earlier chunks; empty between items. */
  private itemParts: Buffer[] = [];
  private readonly envelopeParts: Buffer[] = [];
  private itemCount = 0;

  constructor(private readonly onItem: (item: unknown) => void) {}

  /** Items decoded so far. */
  get count(): number {
    return this.itemCount;
  }

  write(chunk: Buffer): void {
    const n = chunk.length;
    let i = 0;
    // Where the envelope (or the current item) began in this chunk; -1 when not copying it.
    let envStart = this.inItems ? -1 : 0;
    let itemStart = this.itemParts.length > 0 ? 0 : -1;
    let depth = this.depth;
    while (i < n) {
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false;
          i++;
          continue;
        }
        const q = chunk.indexOf(QUOTE, i);
        if (q < 0) {
          let k = n - 1;
          while (k >= i && chunk[k] === BACKSLASH) k--;
          this.escaped = (n - 1 - k) % 2 === 1;
          i = n;
          break;
        }
        let k = q - 1;
        while (k >= i && chunk[k] === BACKSLASH) k--;
        i = q + 1;
        if ((q - 1 - k) % 2 === 0) this.inString = false;
        continue;
      }
      const b = chunk[i]!;
      if (b === QUOTE) {
        this.inString = true;
      } else if (b === LBRACE || b === LBRACKET) {
        if (depth === 2 && this.inItems) {
          itemStart = i;
        } else if (depth === 1 && b === LBRACKET && !this.itemsSeen && this.envelopeEndsWithItemsKey(chunk, envStart, i)) {
          this.envelopeParts.push(Buffer.from(chunk.subarray(envStart, i + 1)));
          envStart = -1;
          this.inItems = true;
          this.itemsSeen = true;
        }
        depth++;
      } else if (b === RBRACE || b === RBRACKET) {
        depth--;
        if (this.inItems) {
          if (depth === 2) {
            this.emit(chunk, itemStart, i + 1);
            itemStart = -1;
          } else if (depth === 1) {
            this.inItems = false;
            envStart = i;
          }
        }
      } else if (this.inItems && depth === 2 && b !== COMMA && b > 0x20) {
        throw new ListDecodeError(`a list item is not an object (found ${JSON.stringify(String.fromCharCode(b))})`);
      }
      i++;
    }
    this.depth = depth;
    // Chunks from a response are not reused by Node, so a view of one is safe to keep.
    if (itemStart >= 0) this.itemParts.push(chunk.subarray(itemStart));
    if (envStart >= 0 && envStart < n) this.envelopeParts.push(Buffer.from(chunk.subarray(envStart)));
  }

  /** Parses the envelope; throws when the document ended early or is not JSON. */
  end(): Record<string, unknown> {
    if (this.inString || this.depth !== 0 || this.itemParts.length > 0 || this.inItems)
      throw new ListDecodeError('the list ended before its JSON was complete');
    const text = Buffer.concat(this.envelopeParts).toString('utf8');
    let envelope: unknown;
    try {
      envelope = JSON.parse(text);
    } catch (err) {
      throw new ListDecodeError(`the list is not JSON: ${(err as Error).message}`, { cause: err });
    }
    if (!envelope || typeof envelope !== 'object' || Array.isArray(envelope)) throw new ListDecodeError('the list is not a JSON object');
    return envelope as Record<string, unknown>;
  }

  private envelopeEndsWithItemsKey(chunk: Buffer, envStart: number, at: number): boolean {
    const before = Buffer.concat([...this.envelopeParts, chunk.subarray(Math.max(envStart, 0), at)]).toString('utf8');
    return ITEMS_KEY_BEFORE_BRACKET.test(before);
  }

  private emit(chunk: Buffer, start: number, end: number): void {
    let text: string;
    if (this.itemParts.length > 0) {
      this.itemParts.push(chunk.subarray(0, end));
      text = Buffer.concat(this.itemParts).toString('utf8');
      this.itemParts = [];
    } else {
      text = chunk.toString('utf8', start, end);
    }
    let item: unknown;
    try {
      item = JSON.parse(text);
    } catch (err) {
      throw new ListDecodeError(`list item ${this.itemCount} is not JSON: ${(err as Error).message}`, { cause: err });
    }
    this.itemCount++;
    this.onItem(item);
  }
}
