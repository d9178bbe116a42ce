// Faults of the conversion machinery itself (a document that cannot be converted is a
// ConversionError, and the upload still succeeds). Each is a bug or a broken dependency.
import { defineError } from '../errors.js';

/** The pool gave a document to a conversion thread that is ending or busy. */
export const ConvertThreadBusyError = defineError('WARREN_CONVERT_THREAD_BUSY', 500);
/** The conversion worker was loaded outside a worker thread, or sent a job the pool never sends. */
export const ConvertWorkerMisusedError = defineError('WARREN_CONVERT_WORKER_MISUSED', 500);
/** pdf-parse no longer has the per-page step the PDF converter replaces (an update changed it). */
export const ConvertPdfParserChangedError = defineError('WARREN_CONVERT_PDF_PARSER_CHANGED', 500);
