// Image and text vectors in one space from a CLIP model run by transformers.js. The text and vision halves load
// separately, so a search that only embeds its query never loads the vision encoder.

import type { PreTrainedModel, PreTrainedTokenizer, Processor, RawImage, Tensor } from "@huggingface/transformers";
import { VideoRagError } from "../../spec/errors.js";
import type { CallOptions, ImageTextEncoder, RgbImage } from "../../spec/providers.js";
import { lazy, loadPretrained, modelSource, throwIfAborted, unitRows, type TransformersProviderOptions } from "./load-pretrained.js";

export interface ClipEncoderOptions extends TransformersProviderOptions {
  /** Length of the model's vectors (its `projection_dim`). Default 512, as for ViT-B/32. */
  dimensions?: number;
}

// ViT-B/32 on 224 × 224 crops: 16 images is ~0.5 s of CPU work a call, and the activations stay under 200 MB.
const maxBatchSize = 16;

/** Creates an ImageTextEncoder over a CLIP model; nothing is read until the first call. Vectors are L2-normalised. */
export function createClipEncoder(options: ClipEncoderOptions = {}): ImageTextEncoder {
  const source = modelSource(options, "Xenova/clip-vit-base-patch32");
  const dimensions = options.dimensions ?? 512;
  const textHalf = lazy(() =>
    loadPretrained(source, async (transformers, pretrained) => ({
      tokenizer: await transformers.AutoTokenizer.from_pretrained(source.model, pretrained),
      encoder: await transformers.CLIPTextModelWithProjection.from_pretrained(source.model, pretrained),
    })),
  );
  const visionHalf = lazy(() =>
    loadPretrained(source, async (transformers, pretrained) => ({
      RawImage: transformers.RawImage,
      processor: await transformers.AutoProcessor.from_pretrained(source.model, pretrained),
      encoder: await transformers.CLIPVisionModelWithProjection.from_pretrained(source.model, pretrained),
    })),
  );

  return {
    id: `transformers:${source.model}`,
    capabilities: { maxBatchSize, maxConcurrency: 1, dimensions },

    async embedTexts(texts: string[], callOptions: CallOptions = {}): Promise<Float32Array[]> {
      throwIfAborted(callOptions.signal, "text embedding");
      if (texts.length === 0) return [];
      const { tokenizer, encoder } = await textHalf();
      throwIfAborted(callOptions.signal, "text embedding");
      return unitRows(await embedText(tokenizer, encoder, texts), dimensions, source.model);
    },

    async embedImages(images: RgbImage[], callOptions: CallOptions = {}): Promise<Float32Array[]> {
      throwIfAborted(callOptions.signal, "image embedding");
      if (images.length === 0) return [];
      images.forEach(checkImage);
      const { RawImage: Image, processor, encoder } = await visionHalf();
      throwIfAborted(callOptions.signal, "image embedding");
      const raw = images.map((image) => {
        const square = centreSquare(image);
        return new Image(square.data, square.width, square.height, 3);
      });
      return unitRows(await embedImage(processor, encoder, raw), dimensions, source.model);
    },
  };
}

async function embedText(tokenizer: PreTrainedTokenizer, encoder: PreTrainedModel, texts: string[]): Promise<Tensor> {
  // CLIP's text encoder has 77 positions; longer queries are cut rather than rejected.
  const inputs = tokenizer(texts, { padding: true, truncation: true });
  const output = (await encoder(inputs)) as { text_embeds: Tensor };
  return output.text_embeds;
}

async function embedImage(processor: Processor, encoder: PreTrainedModel, images: RawImage[]): Promise<Tensor> {
  // The processor resizes, centre-crops to 224 × 224 and normalises, as the model was trained.
  const inputs: unknown = await processor(images);
  const output = (await encoder(inputs)) as { image_embeds: Tensor };
  return output.image_embeds;
}

/**
 * The largest centred square of the image. CLIP was trained on the centre 224 × 224 after scaling the shorter side to
 * 224; transformers.js reads an integer `size` in a preprocessor config as a bound on both sides instead, and would
 * shrink a wide frame to fit and pad it with black. A square input gives the trained framing under either reading.
 */
function centreSquare(image: RgbImage): RgbImage {
  const side = Math.min(image.width, image.height);
  if (image.width === image.height) return image;
  const left = Math.floor((image.width - side) / 2);
  const top = Math.floor((image.height - side) / 2);
  const data = new Uint8Array(side * side * 3);
  for (let row = 0; row < side; row += 1) {
    const from = ((top + row) * image.width + left) * 3;
    data.set(image.data.subarray(from, from + side * 3), row * side * 3);
  }
  return { width: side, height: side, data };
}

function checkImage(image: RgbImage, index: number): void {
  const expected = image.width * image.height * 3;
  if (!(image.width > 0 && image.height > 0) || image.data.length !== expected) {
    throw new VideoRagError(
      "INPUT_UNSUPPORTED",
      `image ${index} is ${image.width}x${image.height} with ${image.data.length} bytes; expected ${expected} bytes of 8-bit RGB`,
    );
  }
}
