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
}

export const DEFAULT_MAX_UNCOMPRESSED_BYTES = 200 * 1024 * 1024;
export const DEFAULT_MAX_ZIP_ENTRIES = 10_000;
export const DEFAULT_SOFFICE_TIMEOUT_MS = 45_000;

export function zipLimits(options: ConvertOptions): ZipLimits {
  return {
    maxUncompressedBytes: options.maxUncompressedBytes ?? DEFAULT_MAX_UNCOMPRESSED_BYTES,
    maxEntries: options.maxZipEntries ?? DEFAULT_MAX_ZIP_ENTRIES,
  };
}
