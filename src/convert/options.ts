// Tunables for document conversion, with their defaults in one place.

/** Caps checked against a zip's central directory (and its real contents) before parsing. */
export interface ZipLimits {
  /** Total uncompressed bytes of all entries. */
  maxUncompressedBytes: number;
  /** Number of entries, directories included. */
  maxEntries: number;
}

export interface ConvertOptions {
  /** Zip-bomb cap on the total uncompressed size of an OOXML file. Default 200 MiB. */
  maxUncompressedBytes?: number;
  /** Zip-bomb cap on the number of entries in an OOXML file. Default 10,000. */
  maxZipEntries?: number;
  /**
   * LibreOffice for .doc and .ppt: a path to `soffice`, or `false` to never use it.
   * Default: `soffice` found on PATH.
   */
  soffice?: string | false;
  /** Wall-clock limit for one LibreOffice run. Default 45 s. */
  sofficeTimeoutMs?: number;
  /** OCR of PDF pages without a text layer, and of large images on other pages. Default: off. */
  ocr?: OcrOptions | false;
}

/** How scanned PDF pages are read with Tesseract (its command-line program). */
export interface OcrOptions {
  /** A path to `tesseract`. Default: found on PATH (no OCR when there is none). */
  tesseract?: string;
  /** Tesseract language codes, e.g. ['eng', 'deu']. Default ['eng']. */
  languages?: string[];
  /** Wall-clock budget for all OCR of one document; pages past it are left out, saying so. Default 60 s. */
  timeoutMs?: number;
  /** Pages (and images) read by OCR per document; the rest are left out, saying so. Default 20. */
  maxPages?: number;
  /** Address-space cap of one Tesseract run. Default 1024 MB. */
  memoryMb?: number;
}

export const DEFAULT_MAX_UNCOMPRESSED_BYTES = 200 * 1024 * 1024;
export const DEFAULT_MAX_ZIP_ENTRIES = 10_000;
export const DEFAULT_SOFFICE_TIMEOUT_MS = 45_000;
export const DEFAULT_OCR_TIMEOUT_MS = 60_000;
export const DEFAULT_OCR_MAX_PAGES = 20;
export const DEFAULT_OCR_MEMORY_MB = 1024;

export function zipLimits(options: ConvertOptions): ZipLimits {
  return {
    maxUncompressedBytes: options.maxUncompressedBytes ?? DEFAULT_MAX_UNCOMPRESSED_BYTES,
    maxEntries: options.maxZipEntries ?? DEFAULT_MAX_ZIP_ENTRIES,
  };
}
