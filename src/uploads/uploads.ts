// Uploads: files a client sends to a thread, written under its uploads folder and converted to
// Markdown beside themselves (Office and PDF through src/convert/).
// API side, here: `/api/threads/{id}/uploads` (uploads.routes.ts, .schemas.ts, .service.ts), the
// multipart receiver, the writer that stores and converts (thread-uploads.ts), the conversion index
// and the limits on conversion work. Chat channels store their attachments through the same writer.
// There is no worker job: conversion runs in the API's converter pool.
// This module is the feature's door: code outside src/uploads/ imports only from here (the API's
// composition roots also reach its routes and service).
export { conversionLimits } from './conversion-limits.js';
export { createUploadWriter } from './thread-uploads.js';
export type { UploadWriter } from './thread-uploads.js';
export { readConversionIndex } from './upload-index.js';
