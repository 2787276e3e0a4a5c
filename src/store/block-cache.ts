// Segment blocks decoded before, shared by both stores: a block is inflated once however many reads need it while it
// stays the same.

import { SegmentBlockView } from "./packed-text.js";

/**
 * Bytes of decoded segment blocks kept between calls, about 2,000 average videos of the how-to library: a graph search
 * reads some forty videos' text, often the same again. Describing entities reads every video a popular entity is in,
 * batch after batch, which no cache of a sensible size holds (all of that library would take ~115 MB).
 */
const cachedBlockBytes = 32 * 1024 * 1024;

/**
 * Segment blocks decoded before, by video and block, with the bytes they were decoded from. A block is used again only
 * when the stored bytes are the same (decoding depends on nothing else), so another process's writes are always seen;
 * what a caller gets is copied out, never the cached objects.
 */
export class BlockCache {
  private readonly blocks = new Map<string, { data: Buffer; view: SegmentBlockView; sizeBytes: number }>();
  private sizeBytes = 0;

  decode(videoKey: number, blockIndex: number, data: Buffer): SegmentBlockView {
    const key = `${videoKey}:${blockIndex}`;
    const cached = this.blocks.get(key);
    if (cached) {
      this.blocks.delete(key);
      this.sizeBytes -= cached.sizeBytes;
    }
    const view = cached?.data.equals(data) ? cached.view : new SegmentBlockView(data);
    const entry = { data, view, sizeBytes: data.length + view.sizeBytes };
    this.blocks.set(key, entry);
    this.sizeBytes += entry.sizeBytes;
    // Least recently used first: a Map iterates in insertion order, and a block used again was inserted again.
    for (const [oldest, { sizeBytes }] of this.blocks) {
      if (this.sizeBytes <= cachedBlockBytes) break;
      this.blocks.delete(oldest);
      this.sizeBytes -= sizeBytes;
    }
    return view;
  }
}
