export {
  type CappedBytes,
  type CappedText,
  truncationMarker,
  decodeUtf8,
  utf8SafeEnd,
  utf8SafeStart,
  renderCapped,
  capBuffer,
  readCappedFile,
} from './output.js';
export { type ExecOutcome, classifyOutcome, looksLikeMemoryError, sandboxErrorResult } from './result.js';
export { execResultSchema } from './schema.js';
