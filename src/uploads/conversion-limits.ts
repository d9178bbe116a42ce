// The conversion sandbox's limits from config.yaml's `uploads`, the same in the API (the upload
// route) and in a worker (a chat channel's attachments).
import type { UploadsConfig } from '../config/app-config.schemas.js';
import type { SandboxLimits } from '../convert/sandbox.js';

/** The OCR budget comes on top of the conversion's own time limit. */
export function conversionLimits(uploads: UploadsConfig): SandboxLimits {
  const { ocr } = uploads;
  return {
    timeoutMs: (uploads.conversion_timeout_seconds + (ocr.enabled ? ocr.timeout_seconds : 0)) * 1000,
    maxOldGenerationSizeMb: uploads.conversion_memory_mb,
    warmThreads: uploads.warm_conversion_threads,
    ocr: ocr.enabled
      ? { ...(ocr.tesseract ? { tesseract: ocr.tesseract } : {}), languages: ocr.languages, timeoutMs: ocr.timeout_seconds * 1000, maxPages: ocr.max_pages, memoryMb: ocr.memory_mb }
      : false,
  };
}
