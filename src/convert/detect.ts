// Works out what a document really is from its bytes. The extension is only a tie-breaker: a
// .docx that is really a PDF is converted as a PDF.
import { ConversionError } from '../errors.js';
import { OLE2_MAGIC, rootEntryNames } from './cfb.js';
import type { ZipLimits } from './options.js';
import { inspectZip } from './zip.js';

export type DocumentKind = 'pdf' | 'docx' | 'xlsx' | 'pptx' | 'doc' | 'xls' | 'ppt';

const OOXML_KINDS = ['docx', 'xlsx', 'pptx'] as const;
const OLE2_KINDS = ['doc', 'xls', 'ppt'] as const;

/** The kind the file name claims, if it names one we know. */
export function kindFromExtension(filename: string): DocumentKind | null {
  const ext = /\.([a-z0-9]+)$/i.exec(filename)?.[1]?.toLowerCase();
  switch (ext) {
    case 'pdf':
    case 'docx':
    case 'xlsx':
    case 'pptx':
    case 'doc':
    case 'xls':
    case 'ppt':
      return ext;
    case 'docm':
    case 'dotx':
    case 'dotm':
      return 'docx';
    case 'xlsm':
    case 'xltx':
    case 'xltm':
    case 'xlsb':
      return 'xlsx';
    case 'pptm':
    case 'potx':
    case 'ppsx':
      return 'pptx';
    default:
      return null;
  }
}

function startsWith(bytes: Buffer, ascii: string, at = 0): boolean {
  return bytes.length >= at + ascii.length && bytes.toString('latin1', at, at + ascii.length) === ascii;
}

/** Picks one candidate: the one the extension names if it is among them, else the first. */
function pick<K extends DocumentKind>(candidates: readonly K[], claimed: DocumentKind | null): K | null {
  const byName = candidates.find((k) => k === claimed);
  return byName ?? candidates[0] ?? null;
}

async function detectOoxml(
  bytes: Buffer,
  claimed: DocumentKind | null,
  limits: ZipLimits,
  label: string,
): Promise<DocumentKind> {
  const names = await inspectZip(bytes, limits, label);
  const has = (prefix: string) => names.some((n) => n.startsWith(prefix));
  const found = OOXML_KINDS.filter(
    (kind) => has({ docx: 'word/', xlsx: 'xl/', pptx: 'ppt/' }[kind]),
  );
  const kind = pick(found, claimed);
  if (kind) return kind;
  if (names.includes('mimetype') || has('META-INF/manifest.xml')) {
    throw new ConversionError(`${label} is an OpenDocument or similar zip-based file, which is not supported.`);
  }
  throw new ConversionError(`${label} is a zip archive, not a Word, Excel or PowerPoint document.`);
}

function detectOle2(bytes: Buffer, claimed: DocumentKind | null, label: string): DocumentKind {
  const names = rootEntryNames(bytes);
  if (names) {
    if (names.includes('EncryptedPackage') || names.includes('EncryptionInfo')) {
      throw new ConversionError(`${label} is password-protected and cannot be read.`);
    }
    const found = OLE2_KINDS.filter((kind) =>
      kind === 'doc'
        ? names.includes('WordDocument')
        : kind === 'xls'
          ? names.includes('Workbook') || names.includes('Book')
          : names.includes('PowerPoint Document'),
    );
    const kind = pick(found, claimed);
    if (kind) return kind;
    if (names.length > 0 && !OLE2_KINDS.some((k) => k === claimed)) {
      throw new ConversionError(`${label} is an OLE2 compound file but not a Word, Excel or PowerPoint document.`);
    }
  }
  // The directory is unreadable or unfamiliar: trust the extension, and let the parser decide.
  const fallback = OLE2_KINDS.find((k) => k === claimed);
  if (fallback) return fallback;
  throw new ConversionError(`${label} is a damaged or unrecognised legacy Office file.`);
}

/**
 * Detects the real type of a document from its magic bytes (and, for zip and OLE2 containers,
 * their entries). Throws ConversionError for empty, unsupported or unreadable files; the zip
 * check also enforces the zip-bomb limits.
 */
export async function detectDocument(
  bytes: Buffer,
  filename: string,
  limits: ZipLimits,
  label: string,
): Promise<DocumentKind> {
  if (bytes.length === 0) throw new ConversionError(`${label} is empty.`);
  const claimed = kindFromExtension(filename);
  if (startsWith(bytes, 'PK\x03\x04') || startsWith(bytes, 'PK\x05\x06')) {
    return detectOoxml(bytes, claimed, limits, label);
  }
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(OLE2_MAGIC)) {
    return detectOle2(bytes, claimed, label);
  }
  // PDF readers accept the header anywhere in the first KiB; so do we, after the containers.
  if (bytes.subarray(0, 1024).includes('%PDF-', 0, 'latin1')) return 'pdf';
  if (startsWith(bytes, '{\\rtf')) {
    throw new ConversionError(`${label} is an RTF file, which is not supported; save it as .docx or PDF.`);
  }
  throw new ConversionError(`${label} is not a PDF or an Office document (its contents match no supported format).`);
}
