// Clears the ruling of tables from a page image before OCR. Tesseract's page layout takes a
// ruled table for a picture and reads nothing in it; without its lines the cells are words with
// boxes, from which ocr-layout.ts rebuilds the table. Long straight runs of dark pixels, far
// longer than any stroke of a letter, are rules.
import { createCanvas, loadImage } from '@napi-rs/canvas';

const DARK = 110;
/** Above this many pixels the copies made here would cost too much memory. */
const MAX_PIXELS = 4200 * 4200;

/** Runs at least this long, as a share of the image's side (and in pixels), are rules. */
const MIN_RULE_SHARE = 0.06;
const MIN_RULE_PIXELS = 80;

/** The image's grey levels, one byte a pixel (what the PGM holds). */
function greyOf(rgba: Uint8ClampedArray, width: number, height: number): Uint8Array {
  const pixels = width * height;
  const grey = new Uint8Array(pixels);
  for (let i = 0, q = 0; i < pixels; i++, q += 4) {
    grey[i] = Math.round((rgba[q] as number) * 0.3 + (rgba[q + 1] as number) * 0.59 + (rgba[q + 2] as number) * 0.11);
  }
  return grey;
}

/**
 * Whitens every horizontal and vertical run of dark pixels at least `minRow` or `minColumn` long;
 * returns how many runs it whitened. One pass in memory order: vertical runs are counted per
 * column as the rows go by, which keeps a page-sized image fast to scan.
 */
function eraseRuns(grey: Uint8Array, width: number, height: number, minRow: number, minColumn: number): number {
  const down = new Uint32Array(width);
  let erased = 0;
  for (let y = 0; y <= height; y++) {
    let start = -1;
    const row = y * width;
    for (let x = 0; x <= width; x++) {
      // Whitening only reaches pixels already passed, so each pixel is judged as it was drawn.
      const isDark = y < height && x < width && (grey[row + x] as number) < DARK;
      if (x < width) {
        const run = down[x] as number;
        if (isDark) down[x] = run + 1;
        else {
          if (run >= minColumn) {
            for (let k = y - run; k < y; k++) grey[k * width + x] = 255;
            erased++;
          }
          down[x] = 0;
        }
      }
      if (isDark && start < 0) start = x;
      if (!isDark && start >= 0) {
        if (x - start >= minRow) {
          grey.fill(255, row + start, row + x);
          erased++;
        }
        start = -1;
      }
    }
  }
  return erased;
}

/** Whitens the image's rules; returns how many it found. */
function eraseImageRules(grey: Uint8Array, width: number, height: number): number {
  const minRow = Math.max(MIN_RULE_PIXELS, Math.round(width * MIN_RULE_SHARE));
  const minColumn = Math.max(MIN_RULE_PIXELS, Math.round(height * MIN_RULE_SHARE));
  return eraseRuns(grey, width, height, minRow, minColumn);
}

/**
 * A binary greyscale PGM, which Tesseract reads as well as PNG: encoding a page-sized PNG costs
 * far more than the erasing, and the file only lives in the OCR run's scratch folder.
 */
function toPgm(grey: Uint8Array, width: number, height: number): Uint8Array {
  const header = Buffer.from(`P5\n${width} ${height}\n255\n`, 'latin1');
  const out = new Uint8Array(header.length + grey.length);
  out.set(header, 0);
  out.set(grey, header.length);
  return out;
}

/** A rendered page's pixels (RGBA) as the PGM Tesseract reads, its rules whitened. */
export function pageImageForOcr(rgba: Uint8ClampedArray, width: number, height: number): Uint8Array {
  const grey = greyOf(rgba, width, height);
  eraseImageRules(grey, width, height);
  return toPgm(grey, width, height);
}

/** An image with its rules whitened (as PGM); the PNG itself when it has none. */
export async function eraseRules(png: Uint8Array): Promise<Uint8Array> {
  const image = await loadImage(Buffer.from(png));
  const { width, height } = image;
  // A rendered page is at most 4200 px a side; a larger embedded image is read as it is.
  if (width * height > MAX_PIXELS) return png;
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(image, 0, 0);
  const grey = greyOf(ctx.getImageData(0, 0, width, height).data, width, height);
  if (eraseImageRules(grey, width, height) === 0) return png;
  return toPgm(grey, width, height);
}
