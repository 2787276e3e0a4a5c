// Locality-sensitive buckets for merging entities by name vector: random-hyperplane (SimHash) signatures cut into bands,
// so that the nearest entity of a type is searched among the few sharing a band with the new name rather than all of
// them. Two vectors at angle θ fall on the same side of a random hyperplane with probability 1 − θ/π; at the default
// merge distance (cosine 0.1, θ ≈ 26°) one band of 10 planes agrees with probability 0.21, and at least one of 16
// bands with probability 0.98; nearer pairs (the names that should merge) are found more surely still. Each band has
// 1,024 buckets, so a search reads about 16/1,024 of the vectors.

/** Bands per signature; a search reads the vectors sharing any of them. */
export const bucketBands = 16;
/** Hyperplanes per band: more makes buckets smaller and near pairs likelier to be split. */
export const bitsPerBand = 10;

/** Hyperplanes by dimension count, drawn from a fixed seed so every process files vectors into the same buckets. */
const planesByDimensions = new Map<number, Float32Array>();

/** Gaussian draws from a seeded generator (mulberry32 and Box–Muller): directions uniform on the sphere. */
function gaussians(count: number, seed: number): Float32Array {
  let state = seed >>> 0;
  const uniform = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 1) / 4294967297;
  };
  const values = new Float32Array(count);
  for (let index = 0; index < count; index += 2) {
    const radius = Math.sqrt(-2 * Math.log(uniform()));
    const angle = 2 * Math.PI * uniform();
    values[index] = radius * Math.cos(angle);
    if (index + 1 < count) values[index + 1] = radius * Math.sin(angle);
  }
  return values;
}

function planes(dimensions: number): Float32Array {
  let found = planesByDimensions.get(dimensions);
  if (!found) planesByDimensions.set(dimensions, (found = gaussians(bucketBands * bitsPerBand * dimensions, 0x5eed ^ dimensions)));
  return found;
}

/** The vector's bucket in each band, as `band · 2^bitsPerBand + signature bits`: one number per band, all distinct. */
export function vectorBuckets(vector: Float32Array): number[] {
  const dimensions = vector.length;
  const hyperplanes = planes(dimensions);
  const buckets: number[] = [];
  for (let band = 0; band < bucketBands; band++) {
    let code = 0;
    for (let bit = 0; bit < bitsPerBand; bit++) {
      const offset = (band * bitsPerBand + bit) * dimensions;
      let dot = 0;
      for (let index = 0; index < dimensions; index++) dot += (hyperplanes[offset + index] as number) * (vector[index] as number);
      code = (code << 1) | (dot >= 0 ? 1 : 0);
    }
    buckets.push(band * (1 << bitsPerBand) + code);
  }
  return buckets;
}

/** A stored float32 vector, copied so that its start is aligned. */
export function bytesVector(bytes: Buffer): Float32Array {
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}
