// Posting lists of the Postgres lexical index: for one term, the documents holding it, each with its video, its counts
// per field and its length: everything BM25 needs to score the term, so a search reads the lists of its terms and no
// document row. A list is kept in blocks of a few thousand postings, ordered by document key; a block is one value of
// varints: key (as the step from the one before), video key (as a zigzag step), a mask of the fields holding the term,
// the count in each of those fields, then the length. About 5 bytes a posting.

/** Postings in columns: `counts` holds three per posting (transcript, screen, visual). */
export interface Postings {
  size: number;
  keys: Float64Array;
  videoKeys: Float64Array;
  counts: Uint32Array;
  lengths: Uint32Array;
}

export function emptyPostings(capacity: number): Postings {
  return { size: 0, keys: new Float64Array(capacity), videoKeys: new Float64Array(capacity), counts: new Uint32Array(capacity * 3), lengths: new Uint32Array(capacity) };
}

/** Adds one posting; the caller sized the columns. */
export function addPosting(into: Postings, key: number, videoKey: number, counts: ArrayLike<number>, length: number): void {
  const at = into.size++;
  into.keys[at] = key;
  into.videoKeys[at] = videoKey;
  into.counts[at * 3] = counts[0] ?? 0;
  into.counts[at * 3 + 1] = counts[1] ?? 0;
  into.counts[at * 3 + 2] = counts[2] ?? 0;
  into.lengths[at] = length;
}

/** Adds posting `at` of `from` to `into`. */
export function copyPosting(from: Postings, at: number, into: Postings): void {
  addPosting(into, from.keys[at] as number, from.videoKeys[at] as number, from.counts.subarray(at * 3, at * 3 + 3), from.lengths[at] as number);
}

class Writer {
  private bytes = new Uint8Array(256);
  length = 0;

  varint(value: number): void {
    if (this.length + 8 > this.bytes.length) {
      const grown = new Uint8Array(this.bytes.length * 2);
      grown.set(this.bytes);
      this.bytes = grown;
    }
    let rest = value;
    while (rest >= 0x80) {
      this.bytes[this.length++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    this.bytes[this.length++] = rest;
  }

  buffer(): Buffer {
    return Buffer.from(this.bytes.buffer, 0, this.length);
  }
}

const zigzag = (value: number): number => (value < 0 ? -2 * value - 1 : 2 * value);
const unzigzag = (value: number): number => (value % 2 === 1 ? -(value + 1) / 2 : value / 2);

/** Postings `from` to `to` (exclusive) of a list ordered by key, as one block value. */
export function encodePostings(postings: Postings, from = 0, to = postings.size): Buffer {
  const writer = new Writer();
  let key = postings.keys[from] ?? 0;
  let videoKey = 0;
  for (let at = from; at < to; at++) {
    const next = postings.keys[at] as number;
    writer.varint(next - key);
    key = next;
    writer.varint(zigzag((postings.videoKeys[at] as number) - videoKey));
    videoKey = postings.videoKeys[at] as number;
    const counts = postings.counts.subarray(at * 3, at * 3 + 3);
    writer.varint(counts.reduce((mask, count, field) => (count > 0 ? mask | (1 << field) : mask), 0));
    for (const count of counts) if (count > 0) writer.varint(count);
    writer.varint(postings.lengths[at] as number);
  }
  return writer.buffer();
}

/** Appends a block's `count` postings, whose first key is `firstKey`, to `into` (sized by the caller). */
export function decodePostings(block: Uint8Array, firstKey: number, count: number, into: Postings): void {
  let position = 0;
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = block[position++] as number;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
  };
  let key = firstKey;
  let videoKey = 0;
  for (let read = 0; read < count; read++) {
    key += varint();
    videoKey += unzigzag(varint());
    const mask = block[position++] as number;
    const at = into.size++;
    into.keys[at] = key;
    into.videoKeys[at] = videoKey;
    into.counts[at * 3] = mask & 1 ? varint() : 0;
    into.counts[at * 3 + 1] = mask & 2 ? varint() : 0;
    into.counts[at * 3 + 2] = mask & 4 ? varint() : 0;
    into.lengths[at] = varint();
  }
}

/** The same postings ordered by key (blocks written by concurrent writers can interleave). */
export function sortPostings(postings: Postings): Postings {
  const order = Array.from({ length: postings.size }, (_, at) => at).sort((a, b) => (postings.keys[a] as number) - (postings.keys[b] as number));
  const sorted = emptyPostings(postings.size);
  for (const at of order) copyPosting(postings, at, sorted);
  return sorted;
}
