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

function isDarkAt(data: Uint8ClampedArray, pixel: number): boolean {
  const p = pixel * 4;
  return (data[p] ?? 255) * 0.3 + (data[p + 1] ?? 255) * 0.59 + (data[p + 2] ?? 255) * 0.11 < DARK;
}

function whiten(data: Uint8ClampedArray, pixel: number): void {
  const p = pixel * 4;
  data[p] = data[p + 1] = data[p + 2] = 255;
}

/**
 * Whitens every horizontal and vertical run of dark pixels at least `minRow` or `minColumn` long;
 * returns how many runs it whitened. One pass in memory order: vertical runs are counted per
 * column as the rows go by, which keeps a page-sized image fast to scan.
 */
function eraseRuns(data: Uint8ClampedArray, width: number, height: number, minRow: number, minColumn: number): number {
  const down = new Uint32Array(width);
  let erased = 0;
  for (let y = 0; y <= height; y++) {
    let start = -1;
    for (let x = 0; x <= width; x++) {
      // Whitening only reaches pixels already passed, so each pixel is judged as it was drawn.
      const isDark = y < height && x < width && isDarkAt(data, y * width + x);
      if (x < width) {
        const run = down[x] ?? 0;
        if (isDark) down[x] = run + 1;
        else {
          if (run >= minColumn) {
            for (let k = y - run; k < y; k++) whiten(data, k * width + x);
            erased++;
          }
          down[x] = 0;
        }
      }
      if (isDark && start < 0) start = x;
      if (!isDark && start >= 0) {
        if (x - start >= minRow) {
          for (let k = start; k < x; k++) whiten(data, y * width + k);
          erased++;
        }
        start = -1;
      }
    }
  }
  return erased;
}

/** The image with its rules whitened (as PGM); the PNG itself when it has none. */
export async function eraseRules(png: Uint8Array): Promise<Uint8Array> {
  const image = await loadImage(Buffer.from(png));
  const { width, height } = image;
  // A rendered page is at most 4200 px a side; a larger embedded image is read as it is.
  if (width * height > MAX_PIXELS) return png;
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(image, 0, 0);
  const pixels = ctx.getImageData(0, 0, width, height);
  const data = pixels.data;
  const minRow = Math.max(MIN_RULE_PIXELS, Math.round(width * MIN_RULE_SHARE));
  const minColumn = Math.max(MIN_RULE_PIXELS, Math.round(height * MIN_RULE_SHARE));
  if (eraseRuns(data, width, height, minRow, minColumn) === 0) return png;
  return toPgm(data, width, height);
}

/**
 * The image as a binary greyscale PGM, which Tesseract reads as well as PNG: encoding a page-sized
 * PNG costs far more than the erasing, and the file only lives in the OCR run's scratch folder.
 */
function toPgm(data: Uint8ClampedArray, width: number, height: number): Uint8Array {
  const header = Buffer.from(`P5\n${width} ${height}\n255\n`, 'latin1');
  const out = new Uint8Array(header.length + width * height);
  out.set(header, 0);
  for (let i = 0, p = header.length; i < width * height; i++, p++) {
    const q = i * 4;
    out[p] = Math.round((data[q] ?? 255) * 0.3 + (data[q + 1] ?? 255) * 0.59 + (data[q + 2] ?? 255) * 0.11);
  }
  return out;
}
